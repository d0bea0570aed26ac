/**
 * Reading the released split files: Parquet (as on the dataset host, `data/<Split>-00000-of-00001.parquet`)
 * and the JSON list form (`[{context, questions, answers, metadata}, ...]`, e.g. the shared sample).
 *
 * Parquet is read in two passes so that only the rows a run asks for are decoded: first the
 * `metadata` column of every row (sources, question ids, for selection and the count check), then
 * `context`/`questions`/`answers` of the selected rows, one contiguous row range at a time.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { InputError } from '../../util/errors.js';
import { readJsonFile } from '../../util/fsx.js';
import { SPLITS, splitFromFileName, type Split } from './sources.js';

export interface RowMeta {
  /** Row position in its file. */
  index: number;
  source: string;
  metadata: Record<string, unknown>;
}

export interface RowData {
  context: string;
  questions: unknown;
  answers: unknown;
}

export interface SplitFile {
  path: string;
  format: 'parquet' | 'json';
  /** From the file name; null when the name does not say (rows are then classified by source). */
  split: Split | null;
  /** Metadata of every row, in file order. */
  metas(): Promise<RowMeta[]>;
  /** Context, questions and answers of the given rows (ascending), one row at a time. */
  rows(indices: number[]): AsyncGenerator<{ index: number; row: RowData }>;
}

/** The split files at `path`: the file itself, or the split files in a folder (and its `data/`). */
export function findSplitFiles(path: string): SplitFile[] {
  if (!statSync(path).isDirectory()) return [openSplitFile(path)];
  const found: string[] = [];
  for (const dir of [path, join(path, 'data')]) {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (!/\.(parquet|json)$/i.test(name) || splitFromFileName(name) === null) continue;
      if (statSync(join(dir, name)).isFile()) found.push(join(dir, name));
    }
  }
  if (found.length === 0) {
    throw new InputError(
      'no MemoryAgentBench split file here (expected e.g. Accurate_Retrieval-00000-of-00001.parquet or Conflict_Resolution.json; `rawrag data pull memoryagentbench` fetches them)',
      { file: path },
    );
  }
  // Split order (AR, TTL, LRU, CR), then name: questions come out in the paper's competency order.
  const rank = (f: string) => SPLITS.indexOf(splitFromFileName(basename(f))!);
  return found.sort((a, b) => rank(a) - rank(b) || basename(a).localeCompare(basename(b))).map(openSplitFile);
}

export function openSplitFile(path: string): SplitFile {
  const split = splitFromFileName(basename(path));
  if (/\.parquet$/i.test(path)) return parquetFile(path, split);
  if (/\.json$/i.test(path)) return jsonFile(path, split);
  throw new InputError('not a MemoryAgentBench split file (.parquet or .json list of rows)', { file: path });
}

function metaOf(value: unknown, file: string, index: number): RowMeta {
  let metadata = value;
  // Some re-exports store the struct as a JSON string.
  if (typeof metadata === 'string') {
    try {
      metadata = JSON.parse(metadata);
    } catch {
      throw new InputError('metadata is a string that is not JSON', { file, place: `row ${index}.metadata` });
    }
  }
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw new InputError('metadata missing or not an object', { file, place: `row ${index}.metadata` });
  }
  const source = (metadata as Record<string, unknown>).source;
  if (typeof source !== 'string' || !source) {
    throw new InputError('metadata.source missing or not a string', { file, place: `row ${index}.metadata.source` });
  }
  return { index, source, metadata: metadata as Record<string, unknown> };
}

function rowDataOf(value: Record<string, unknown>, file: string, index: number): RowData {
  if (typeof value.context !== 'string') {
    throw new InputError('context missing or not a string', { file, place: `row ${index}.context` });
  }
  return { context: value.context, questions: value.questions, answers: value.answers };
}

function jsonFile(path: string, split: Split | null): SplitFile {
  let rows: Record<string, unknown>[] | null = null;
  const load = (): Record<string, unknown>[] => {
    if (rows) return rows;
    const raw = readJsonFile(path);
    if (!Array.isArray(raw)) throw new InputError('not a JSON list of MemoryAgentBench rows', { file: path, place: '(top level)' });
    raw.forEach((r, i) => {
      if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new InputError('row is not an object', { file: path, place: `[${i}]` });
    });
    return (rows = raw as Record<string, unknown>[]);
  };
  return {
    path,
    format: 'json',
    split,
    async metas() {
      return load().map((r, i) => metaOf(r.metadata, path, i));
    },
    async *rows(indices) {
      const all = load();
      for (const i of indices) yield { index: i, row: rowDataOf(all[i]!, path, i) };
    },
  };
}

function parquetFile(path: string, split: Split | null): SplitFile {
  const open = async () => {
    // Imported here: every rawrag run loads the benchmark registry, and only this reader needs hyparquet.
    const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } = await import('hyparquet');
    try {
      const file = await asyncBufferFromFile(path);
      return { file, metadata: await parquetMetadataAsync(file), parquetReadObjects };
    } catch (e) {
      throw new InputError(`cannot read Parquet (${(e as Error).message})`, { file: path });
    }
  };
  let opened: Awaited<ReturnType<typeof open>> | null = null;
  const read = async (columns: string[], rowStart: number, rowEnd: number) => {
    opened ??= await open();
    try {
      return await opened.parquetReadObjects({ file: opened.file, metadata: opened.metadata, columns, rowStart, rowEnd });
    } catch (e) {
      throw new InputError(`cannot read Parquet columns ${columns.join(', ')} (${(e as Error).message})`, { file: path, place: `rows ${rowStart}-${rowEnd - 1}` });
    }
  };
  return {
    path,
    format: 'parquet',
    split,
    async metas() {
      opened ??= await open();
      const names = new Set(opened.metadata.schema.map((s) => s.name));
      for (const col of ['context', 'questions', 'answers', 'metadata']) {
        if (!names.has(col)) throw new InputError(`Parquet file has no '${col}' column`, { file: path });
      }
      const n = Number(opened.metadata.num_rows);
      const rows = await read(['metadata'], 0, n);
      return rows.map((r, i) => metaOf(r.metadata, path, i));
    },
    async *rows(indices) {
      // Contiguous runs are read together; each run's rows are handed out and then dropped.
      for (const [start, end] of runs(indices)) {
        const rows = await read(['context', 'questions', 'answers'], start, end);
        for (let i = 0; i < rows.length; i++) yield { index: start + i, row: rowDataOf(rows[i]!, path, start + i) };
      }
    },
  };
}

/** Ascending indices -> [start, end) runs of consecutive indices, at most `maxRun` rows each (memory bound). */
export function runs(indices: number[], maxRun = 4): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const i of indices) {
    const last = out[out.length - 1];
    if (last && last[1] === i && last[1] - last[0] < maxRun) last[1] = i + 1;
    else out.push([i, i + 1]);
  }
  return out;
}
