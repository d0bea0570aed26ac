import { csvParse } from '../../util/lazy-packages.js';

/**
 * RFC 4180 CSV, read by csv-parse: comma-separated fields; double-quoted fields may hold commas, quotes ("" inside)
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
  const records: CsvRecord[] = [];
  // csv-parse counts a CRLF inside a quoted field as two lines, in its record's line and in every
  // later one; `inflation` takes those back out so lines match an editor's (and Python's).
  let inflation = 0;
  try {
    csvParse()(text, {
      bom: true,
      // Any of the three line ends, in any mix (the default detects one and holds to it).
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (record: string[], info) => {
        const crlf = record.reduce((n, f) => n + count(f, /\r\n/g), 0);
        inflation += crlf;
        const end = info.lines - inflation;
        records.push({ fields: record, line: end - record.reduce((n, f) => n + countLineBreaks(f), 0) });
        return null;
      },
    });
  } catch (e) {
    const err = e as { code?: string; lines?: number; column?: number | string; message: string };
    const line = (err.lines ?? 1) - inflation;
    if (err.code === 'CSV_QUOTE_NOT_CLOSED') throw new CsvError('unterminated quoted field', line);
    if (err.code === 'CSV_INVALID_CLOSING_QUOTE') {
      const field = typeof err.column === 'number' ? ` of field ${err.column + 1}` : '';
      throw new CsvError(`text after the closing quote${field}`, line);
    }
    throw new CsvError(err.message.replace(/ at line \d+.*$/, ''), line);
  }
  return records;
}

function count(t: string, re: RegExp): number {
  return t.match(re)?.length ?? 0;
}

/** Line breaks inside a quoted field (CRLF, LF or CR each count once). */
function countLineBreaks(t: string): number {
  return count(t, /\r\n|\n|\r/g);
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
