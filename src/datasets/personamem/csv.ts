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
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    // A blank line is no record; a record of one empty quoted field ("") is.
    if (!(fields.length === 1 && field === '' && !quoted)) records.push({ fields, line: start });
    fields = [];
    field = '';
    quoted = false;
  };
  while (i < s.length) {
    const c = s[i]!;
    if (c === '"' && field === '' && !quoted) {
      quoted = true;
      const at = line;
      i++;
      for (;;) {
        if (i >= s.length) throw new CsvError('unterminated quoted field', at);
        const d = s[i]!;
        if (d === '"') {
          if (s[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (d === '\n' || (d === '\r' && s[i + 1] !== '\n')) line++;
        field += d;
        i++;
      }
      const n = s[i];
      if (n !== undefined && n !== ',' && n !== '\n' && n !== '\r') {
        throw new CsvError(`text after the closing quote of field ${fields.length + 1}`, line);
      }
      continue;
    }
    if (c === ',') {
      fields.push(field);
      field = '';
      quoted = false;
      i++;
    } else if (c === '\n' || c === '\r') {
      endRecord();
      i += c === '\r' && s[i + 1] === '\n' ? 2 : 1;
      line++;
      start = line;
    } else {
      field += c;
      i++;
    }
  }
  if (field !== '' || fields.length > 0 || quoted) endRecord();
  return records;
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
