/**
 * RFC 4180 CSV: comma-separated fields; double-quoted fields may hold commas, quotes ("" inside)
 * and line breaks; records end in CRLF, LF or CR; a final line break is optional; a UTF-8 BOM is
 * dropped; blank lines are skipped (as Python's csv.DictReader and pandas do). Malformed input
 * (text after a closing quote, an unterminated quote) is an error naming the line, never repaired.
 */
export class CsvError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'CsvError';
  }
}

export interface CsvRecord {
  fields: string[];
  /** 1-based line where the record starts. */
  line: number;
}

export function parseCsv(text: string): CsvRecord[] {
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  const delim = /[,\r\n]/g;
  let fields: string[] = [];
  let line = 1;
  let start = 1;
  let i = 0;
  // Fields are cut with indexOf/regex scans and slices: per-character string building is far too
  // slow on a multi-megabyte CSV.
  for (;;) {
    let field: string;
    let quoted = false;
    if (s[i] === '"') {
      quoted = true;
      const at = line;
      const parts: string[] = [];
      let j = i + 1;
      for (;;) {
        const q = s.indexOf('"', j);
        if (q === -1) throw new CsvError('unterminated quoted field', at);
        parts.push(s.slice(j, q));
        if (s[q + 1] === '"') {
          parts.push('"');
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      field = parts.join('');
      line += countLineBreaks(field);
      const n = s[i];
      if (n !== undefined && n !== ',' && n !== '\n' && n !== '\r') {
        throw new CsvError(`text after the closing quote of field ${fields.length + 1}`, line);
      }
    } else {
      delim.lastIndex = i;
      const m = delim.exec(s);
      const j = m ? m.index : s.length;
      field = s.slice(i, j);
      i = j;
    }
    fields.push(field);
    const c = s[i];
    if (c === ',') {
      i++;
      continue;
    }
    // End of record (line break or end of text). A blank line is no record; a record of one
    // empty quoted field ("") is.
    if (!(fields.length === 1 && field === '' && !quoted)) records.push({ fields, line: start });
    fields = [];
    if (c === undefined) break;
    i += c === '\r' && s[i + 1] === '\n' ? 2 : 1;
    line++;
    start = line;
    if (i >= s.length) break;
  }
  return records;
}

/** Line breaks inside a quoted field (CRLF, LF or CR each count once). */
function countLineBreaks(t: string): number {
  let n = 0;
  for (let k = t.indexOf('\n'); k !== -1; k = t.indexOf('\n', k + 1)) n++;
  for (let k = t.indexOf('\r'); k !== -1; k = t.indexOf('\r', k + 1)) if (t[k + 1] !== '\n') n++;
  return n;
}

/** Records as objects keyed by the header (the first record); every record must have the header's width. */
export function parseCsvObjects(text: string): { header: string[]; rows: Array<{ values: Record<string, string>; line: number }> } {
  const records = parseCsv(text);
  if (records.length === 0) throw new CsvError('no header record', 1);
  const header = records[0]!.fields;
  const dup = header.find((h, i) => header.indexOf(h) !== i);
  if (dup !== undefined) throw new CsvError(`column '${dup}' appears twice in the header`, 1);
  const rows = records.slice(1).map((r) => {
    if (r.fields.length !== header.length) throw new CsvError(`${r.fields.length} fields, the header has ${header.length}`, r.line);
    return { values: Object.fromEntries(header.map((h, i) => [h, r.fields[i]!])), line: r.line };
  });
  return { header, rows };
}
