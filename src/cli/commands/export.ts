/**
 * `rawrag export RUN_DIR --format csv|parquet`: one row per question (src/run-files/export.ts). CSV goes to
 * stdout or --out; Parquet needs --out (or writes <run folder name>.parquet) and the hyparquet-writer package.
 */
import { lastLinePerId, readRunItemLinesYielding } from '../../run-files/record.js';
import { basename, dirname, resolve } from 'node:path';
import { mkdirSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { stringify } from 'csv-stringify/sync';
import { EXPORT_COLUMNS, exportRows, type ExportRow } from '../../run-files/export.js';
import { loadRunWithLines } from '../../stats/load.js';
import { InputError } from '../../util/errors.js';
import { writeFileAtomic } from '../../util/fsx.js';
import { writeStdout } from '../../util/stdout.js';
import { setRuns } from '../../grid/set-runs.js';

/** A grid's rows: each run's, with the cell's name first (`run`). */
type Row = ExportRow & { run?: string };

export function exportCsv(rows: Row[], columns: readonly string[] = EXPORT_COLUMNS): string {
  return stringify(rows, {
    header: true,
    columns: [...columns],
    // votes (a list) as JSON text: `[1,1,0]`, one cell that pandas reads back with json.loads.
    cast: { boolean: (b) => (b ? 'true' : 'false'), number: (n) => String(n), object: (o) => JSON.stringify(o) },
  });
}

type ParquetElement = { name: string; type?: string; converted_type?: string; repetition_type?: string; num_children?: number };

/** Typed columns (scalars may be null); votes is Parquet's standard three-level LIST of doubles, so pandas reads a list per row. */
function parquetSchema(columns: readonly string[]): ParquetElement[] {
  const scalar: Record<string, Omit<ParquetElement, 'name' | 'repetition_type'>> = {
    score: { type: 'DOUBLE' },
    judge_runs: { type: 'INT32' },
    evidence_tokens: { type: 'INT32' },
    coverage_all: { type: 'BOOLEAN' },
    coverage_any: { type: 'BOOLEAN' },
  };
  const schema: ParquetElement[] = [{ name: 'root', num_children: columns.length }];
  for (const name of columns) {
    if (name === 'votes')
      schema.push(
        { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', type: 'DOUBLE', repetition_type: 'REQUIRED' },
      );
    else schema.push({ name, repetition_type: 'OPTIONAL', ...(scalar[name] ?? { type: 'BYTE_ARRAY', converted_type: 'UTF8' }) });
  }
  return schema;
}

/** Parquet bytes (hyparquet-writer, loaded only when asked for). */
export async function exportParquet(rows: Row[], columns: readonly string[] = EXPORT_COLUMNS): Promise<Uint8Array> {
  let writer: { parquetWriteBuffer(o: { columnData: Array<{ name: string; data: unknown[] }>; schema: ParquetElement[] }): ArrayBuffer };
  try {
    writer = (await import('hyparquet-writer')) as unknown as typeof writer;
  } catch {
    throw new InputError('Parquet needs the hyparquet-writer package, which is not installed here: use --format csv', {});
  }
  const columnData = columns.map((name) => ({ name, data: rows.map((r) => (r as Record<string, unknown>)[name]) }));
  return new Uint8Array(writer.parquetWriteBuffer({ columnData, schema: parquetSchema(columns) }));
}

function format(value: string): 'csv' | 'parquet' {
  if (value !== 'csv' && value !== 'parquet') throw new InvalidArgumentError(`'${value}' is not one of csv, parquet.`);
  return value;
}

/**
 * Items as items.jsonl holds them (last line per id), after rawrag stats' checks of the folder;
 * `notes` gets what those checks found (a torn last line skipped, repeated ids), as stats reports them.
 * The file is read once, turning the event loop as it parses, so that Ctrl-C is seen at once.
 */
export async function runItems(dir: string, notes: string[] = []): Promise<Array<Record<string, unknown>>> {
  const lines = await readRunItemLinesYielding(dir, notes);
  notes.push(...loadRunWithLines(dir, lines).notes);
  // The lines as written, every field kept, through the run record (src/run-files/record.ts).
  return lastLinePerId(lines) as Array<Record<string, unknown>>;
}

/** exportCsv's text, made a few thousand rows at a time with a turn of the event loop between (Ctrl-C). */
async function exportCsvYielding(rows: Row[], columns: readonly string[], every = 5000): Promise<string> {
  const parts: string[] = [];
  for (let i = 0; i < Math.max(rows.length, 1); i += every) {
    const csv = exportCsv(rows.slice(i, i + every), columns);
    parts.push(i === 0 ? csv : csv.slice(csv.indexOf('\n') + 1));
    await new Promise((r) => setImmediate(r));
  }
  return parts.join('');
}

export function exportCommand(): Command {
  return new Command('export')
    .description(
      'A run as one row per question for pandas or R: id, type, episode, question, answer, gold, score, votes, judge_runs, coverage_all, coverage_any, evidence_tokens, error',
    )
    .argument('<dir>', 'a run directory, or a grid set folder (one row per question of every run, its cell in a first column `run`)')
    .option('--format <format>', 'csv | parquet', format, 'csv')
    .option('--out <file>', 'the file to write (csv default: stdout; parquet default: <run folder name>.parquet)')
    .action(async (dir: string, opts: { format: 'csv' | 'parquet'; out?: string }) => {
      const runs = setRuns(dir);
      const rows: Row[] = [];
      for (const r of runs ?? [{ name: null, dir }]) {
        const notes: string[] = [];
        for (const row of exportRows(await runItems(r.dir, notes))) rows.push(r.name === null ? row : { run: r.name, ...row });
        // As rawrag stats says it: a torn last line or repeated ids are not dropped silently.
        for (const n of notes) process.stderr.write(`warning: ${r.dir}: ${n}\n`);
      }
      const columns = runs ? ['run', ...EXPORT_COLUMNS] : EXPORT_COLUMNS;
      const data = opts.format === 'csv' ? await exportCsvYielding(rows, columns) : await exportParquet(rows, columns);
      if (opts.format === 'csv' && !opts.out) {
        await writeStdout(data);
        return;
      }
      const out = opts.out ?? `${basename(resolve(dir))}.parquet`;
      // A folder that does not exist yet is made (as stats and report do); the file lands whole or not at all.
      mkdirSync(dirname(resolve(out)), { recursive: true });
      writeFileAtomic(out, data);
      const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
      process.stderr.write(`export: ${out} (${rows.length} rows${opts.format === 'parquet' ? `, ${bytes} bytes` : ''})\n`);
    });
}
