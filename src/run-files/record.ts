/**
 * The run record: one versioned schema for a run directory's three files (manifest.json,
 * summary.json, items.jsonl) and the one reader every command reads a run through.
 *
 * Versions (docs/runs.md, "Run directory"):
 *  - `rawrag.run/2` (RUN_SCHEMA): what rawrag writes now; manifest.json and summary.json carry
 *    `schema: "rawrag.run/2"`, item lines are read by the manifest's version.
 *  - `rawrag.run/1`: no `schema` field, `format: "rawrag.run/1"` (a run) or `"rawrag.import/1"`
 *    (an import) in the manifest. Upgraded on reading: `format` of a run becomes `schema`, and a
 *    run recorded `complete` with failed items is `incomplete` (rawrag.run/2 calls a run complete
 *    only when none failed).
 *  - neither field: an external system's minimal folder (manifest.json with system, benchmark and
 *    setting; items.jsonl of {"id", "score"}), as `rawrag stats` accepts it.
 * Any other version, and any file that breaks the schema, is refused with an InputError naming the
 * file and the place (a JSON path, or the line of items.jsonl): exit 2.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { InputError, formatPath } from '../util/errors.js';
import { parseJsonText } from '../util/fsx.js';
import { splitJsonLines } from '../util/jsonl.js';
import { decodeUtf8Lines } from '../util/text.js';

export const RUN_SCHEMA = 'rawrag.run/2';
export const RUN_SCHEMA_V1 = 'rawrag.run/1';
/** The `format` values of a rawrag.run/1 manifest: a run, an import. */
const V1_FORMATS = ['rawrag.run/1', 'rawrag.import/1'];

export const MANIFEST_FILE = 'manifest.json';
export const SUMMARY_FILE = 'summary.json';
export const ITEMS_FILE = 'items.jsonl';

const RUN_STATUSES = ['running', 'complete', 'incomplete', 'interrupted', 'stopped-cost-cap', 'failed'] as const;

/** What every manifest has, rawrag's or an external system's. */
const ManifestCore = {
  system: z.string().min(1),
  benchmark: z.string().min(1),
  setting: z.string().min(1),
  run_id: z.string().optional(),
  /** The run's label (`--name`). */
  name: z.string().min(1).optional(),
  reference: z.boolean().optional(),
  oracle: z.boolean().optional(),
  pair_with: z.string().optional(),
  /** External runs may name their judge model; rawrag runs record it per item. */
  judge: z.string().min(1).optional(),
  retriever: z.looseObject({ name: z.string(), stand_in: z.boolean().optional(), notes: z.array(z.string()).optional() }).optional(),
  config_hash: z.string().optional(),
  config: z
    .looseObject({
      benchmark: z.string().optional(),
      judge: z.looseObject({ model: z.string().nullable().optional() }).optional(),
    })
    .optional(),
};

/** An external system's manifest.json (no `schema`): only what `rawrag stats` needs. */
export const ExternalManifestSchema = z.looseObject({ ...ManifestCore, status: z.string().optional() });

/**
 * A rawrag.run/2 manifest.json (src/run-files/manifest.ts `Manifest` is what the writers fill in). Only
 * what every reader needs is required; the rest is typed where present (a reader that needs more,
 * a resume's config_hash, asks for it by name).
 */
export const RunManifestSchema = z.looseObject({
  ...ManifestCore,
  schema: z.literal(RUN_SCHEMA),
  /** An import's kind (`rawrag.import/1`); absent on runs. */
  format: z.string().optional(),
  status: z.enum(RUN_STATUSES).optional(),
  incomplete_because: z.string().optional(),
  identity: z.looseObject({ config_hash: z.string() }).optional(),
  policy: z.record(z.string(), z.unknown()).optional(),
  skipped: z.array(z.string()).optional(),
  deviations: z.array(z.string()).optional(),
  dataset: z.looseObject({ sha256: z.string().optional(), warnings: z.array(z.unknown()).optional() }).optional(),
  questions: z
    .looseObject({ selected: z.number().int().min(0), done: z.number().int().min(0), errors: z.number().int().min(0) })
    .optional(),
  imported_from: z.looseObject({ sha256: z.string().optional() }).optional(),
  shard: z.object({ index: z.number().int(), count: z.number().int() }).optional(),
  merged_from: z.array(z.looseObject({ dir: z.string(), run_id: z.string() })).optional(),
  cache_dir: z.string().nullable().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  finished_at: z.string().nullable().optional(),
  timings: z.record(z.string(), z.number().nullable()).optional(),
  phase_wall_ms: z
    .looseObject({
      ingest: z.number().optional(),
      search: z.number().optional(),
      add_search: z.number().optional(),
      processes: z.number().optional(),
    })
    .optional(),
  error: z.string().nullable().optional(),
  spent_usd: z.number().nullable().optional(),
});

export type RunManifest = z.infer<typeof RunManifestSchema>;
export type ExternalManifest = z.infer<typeof ExternalManifestSchema>;

/** summary.json: the run's aggregates (src/reader-judge/summary.ts and each benchmark's own), as written at its end. */
export const RunSummarySchema = z.looseObject({
  schema: z.literal(RUN_SCHEMA).optional(),
  run_id: z.string().optional(),
  system: z.string().optional(),
  overall: z.looseObject({}).optional(),
  coverage_at_k: z.record(z.string(), z.unknown()).optional(),
  judge_runs: z.looseObject({}).nullable().optional(),
  usage: z.looseObject({}).nullable().optional(),
  service: z.looseObject({}).nullable().optional(),
  memory: z.looseObject({}).nullable().optional(),
  provenance: z.unknown().optional(),
  failures: z.unknown().optional(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

const CoverageSchema = z.union([z.boolean(), z.looseObject({ all: z.boolean(), any: z.boolean() })]);
const VotesSchema = z.array(z.number().min(0).max(1));

/** One items.jsonl line: rawrag's ItemRecord (src/core/item.ts) or an external system's {"id", "score"}. */
export const RunItemSchema = z.looseObject({
  id: z.union([z.string().min(1), z.number()]),
  score: z.number().min(0).max(1).nullable(),
  type: z.union([z.string(), z.number()]).nullable().optional(),
  coverage: CoverageSchema.nullable().optional(),
  /** External format: the judge's per-run verdicts. */
  judge: VotesSchema.optional(),
  /** rawrag format: `{stage, message}`; external files may give a string. */
  error: z
    .union([z.looseObject({ stage: z.string().optional(), message: z.string() }), z.string()])
    .nullable()
    .optional(),
  details: z
    .looseObject({
      judge: z
        .looseObject({ votes: VotesSchema.optional(), model: z.string().nullable().optional(), protocol: z.string().optional() })
        .optional(),
    })
    .optional(),
  episode: z.string().nullable().optional(),
  meta: z.record(z.string(), z.unknown()).nullable().optional(),
  answer: z.string().nullable().optional(),
  evidence_turns: z.array(z.string()).optional(),
  metrics: z.record(z.string(), z.unknown()).optional(),
});
export type RunItem = z.infer<typeof RunItemSchema>;

/** The manifest of a run directory, validated and at the current version. */
export type ReadManifest =
  | { kind: 'rawrag'; manifest: RunManifest; file: string; upgradedFrom: typeof RUN_SCHEMA_V1 | null }
  | { kind: 'external'; manifest: ExternalManifest; file: string; upgradedFrom: null };

export interface RunRecord {
  dir: string;
  /** `rawrag`: written by rawrag (run, ablate, judge, import, merge); `external`: another system's minimal folder. */
  kind: 'rawrag' | 'external';
  manifest: RunManifest | ExternalManifest;
  /** The version the files were written in, when older than RUN_SCHEMA and upgraded on reading. */
  upgradedFrom: typeof RUN_SCHEMA_V1 | null;
  /** null: no summary.json (a run still writing, killed, or an external folder). */
  summary: RunSummary | null;
  /** Items, the last line of each id winning (in the order each id first appeared). */
  items: RunItem[];
  /** What the reading noticed (a torn last line, repeated ids, no items.jsonl). */
  notes: string[];
}

/**
 * A zod failure as an input error naming the file and the first issue's place: its JSON path, or
 * `what` (the line of items.jsonl) with the path inside the line.
 */
function refuse(file: string, issue: z.core.$ZodIssue, what: string, line?: number): InputError {
  const at = formatPath(issue.path);
  const message = `${issue.message} (${what})`;
  return line === undefined
    ? new InputError(message, { file, place: at })
    : new InputError(`${at}: ${message}`, { file, place: `line ${line}` });
}

/** Brings a rawrag.run/1 manifest to rawrag.run/2 (a new object; the file is not rewritten). */
export function upgradeManifestV1(raw: Record<string, unknown>): Record<string, unknown> {
  const { format, ...rest } = raw;
  const up: Record<string, unknown> = { ...rest, schema: RUN_SCHEMA };
  // An import kept its kind in `format`; a run's `format` was its version.
  if (format !== RUN_SCHEMA_V1) up.format = format;
  const q = raw.questions as { errors?: unknown } | undefined;
  if (raw.status === 'complete' && typeof q?.errors === 'number' && q.errors > 0) {
    up.status = 'incomplete';
  }
  return up;
}

/** Validates (and upgrades) a parsed manifest.json. `file` names it in errors. */
export function parseManifest(raw: unknown, file: string): ReadManifest {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new InputError('not a run manifest (a JSON object is expected)', { file, place: '(top level)' });
  const obj = raw as Record<string, unknown>;
  let upgradedFrom: ReadManifest['upgradedFrom'] = null;
  let input: unknown = obj;
  if ('schema' in obj) {
    if (obj.schema !== RUN_SCHEMA)
      throw new InputError(
        `unknown run record version ${JSON.stringify(obj.schema)}: this rawrag reads ${RUN_SCHEMA} and ${RUN_SCHEMA_V1} (a newer rawrag wrote it?)`,
        { file, place: 'schema' },
      );
  } else if ('format' in obj) {
    if (typeof obj.format !== 'string' || !V1_FORMATS.includes(obj.format))
      throw new InputError(
        `unknown run format ${JSON.stringify(obj.format)}: this rawrag reads ${V1_FORMATS.join(', ')} and ${RUN_SCHEMA}`,
        {
          file,
          place: 'format',
        },
      );
    input = upgradeManifestV1(obj);
    upgradedFrom = RUN_SCHEMA_V1;
  } else {
    const r = ExternalManifestSchema.safeParse(obj);
    if (!r.success) throw refuse(file, r.error.issues[0]!, 'not a run manifest: an external one needs system, benchmark and setting');
    return { kind: 'external', manifest: r.data, file, upgradedFrom: null };
  }
  const r = RunManifestSchema.safeParse(input);
  if (!r.success) throw refuse(file, r.error.issues[0]!, `not a rawrag run manifest of ${upgradedFrom ?? RUN_SCHEMA}`);
  return { kind: 'rawrag', manifest: r.data, file, upgradedFrom };
}

/**
 * A run file's text: strict UTF-8 (a byte that is not is refused by its line and offset), a BOM
 * dropped; a character cut at the very end of items.jsonl by a killed writer is held back (a torn line).
 */
function readStrict(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new InputError(`cannot read file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
  }
  return decodeUtf8Lines(bytes, file);
}

/** manifest.json of a run directory, validated and upgraded; an InputError when absent or invalid. */
export function readRunManifest(dir: string): ReadManifest {
  const file = join(dir, MANIFEST_FILE);
  if (!existsSync(file)) throw new InputError('not a run directory (no manifest.json)', { file: dir });
  return parseManifest(parseJsonText(readStrict(file), file), file);
}

/** summary.json of a run directory, validated; null when there is none. */
export function readRunSummary(dir: string): RunSummary | null {
  const file = join(dir, SUMMARY_FILE);
  if (!existsSync(file)) return null;
  return parseSummary(parseJsonText(readStrict(file), file), file);
}

/** Validates a parsed summary.json. `file` names it in errors. */
export function parseSummary(raw: unknown, file: string): RunSummary {
  if (raw !== null && typeof raw === 'object' && 'schema' in raw && (raw as { schema: unknown }).schema !== RUN_SCHEMA)
    throw new InputError(
      `unknown run record version ${JSON.stringify((raw as { schema: unknown }).schema)}: this rawrag reads ${RUN_SCHEMA}`,
      {
        file,
        place: 'schema',
      },
    );
  const r = RunSummarySchema.safeParse(raw);
  if (!r.success) throw refuse(file, r.error.issues[0]!, `not a run summary of ${RUN_SCHEMA}`);
  return r.data;
}

/**
 * items.jsonl's lines, each validated (strict UTF-8, BOM dropped, CRLF accepted; a last line torn
 * by a killed writer is skipped with a note, util/jsonl.ts). Every line in file order, repeats kept.
 */
export function readRunItemLines(dir: string, notes: string[] = []): ItemLine[] {
  const read = itemLines(dir, notes);
  return read ? read.lines.map(({ line, text }) => ({ line, item: parseItemLine(text, read.file, line) })) : [];
}

/**
 * The same lines as readRunItemLines, turning the event loop every `every` lines: a command reading a
 * large run (60,000 items: about 2 s of parsing) stays responsive to Ctrl-C while it reads.
 */
export async function readRunItemLinesYielding(dir: string, notes: string[] = [], every = 2000): Promise<ItemLine[]> {
  const read = itemLines(dir, notes);
  const out: ItemLine[] = [];
  for (const [i, { line, text }] of (read?.lines ?? []).entries()) {
    if (i % every === every - 1) await new Promise((r) => setImmediate(r));
    out.push({ line, item: parseItemLine(text, read!.file, line) });
  }
  return out;
}

type ItemLine = { line: number; item: RunItem };

/** items.jsonl's complete lines as text (null, noted, when there is no file; a torn last line noted). */
function itemLines(dir: string, notes: string[]): { file: string; lines: Array<{ line: number; text: string }> } | null {
  const file = join(dir, ITEMS_FILE);
  if (!existsSync(file)) {
    notes.push('no items.jsonl: the run has no questions');
    return null;
  }
  const { lines, torn } = splitJsonLines(readStrict(file));
  if (torn) notes.push(`${basename(file)}: last line ${torn.line} is incomplete (no newline, not valid JSON) and was skipped`);
  return { file, lines };
}

/** One items.jsonl line's JSON text through the schema (an InputError naming the file and line). */
export function parseItemLine(text: string, file: string, line: number): RunItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new InputError(`not JSON (${(e as Error).message})`, { file, place: `line ${line}` });
  }
  const r = RunItemSchema.safeParse(value);
  if (!r.success) throw refuse(file, r.error.issues[0]!, 'not a run item', line);
  return r.data;
}

/** Items, the last line of each id winning (repeats noted). */
export function readRunItems(dir: string, notes: string[] = []): RunItem[] {
  return lastLinePerId(readRunItemLines(dir, notes), notes);
}

/** Of lines read from items.jsonl, the last of each id (repeats noted). */
export function lastLinePerId(lines: Array<{ item: RunItem }>, notes: string[] = []): RunItem[] {
  const byId = new Map<string, RunItem>();
  let repeats = 0;
  for (const { item } of lines) {
    const id = String(item.id);
    if (byId.has(id)) repeats++;
    byId.set(id, item);
  }
  if (repeats) notes.push(`items.jsonl: ${repeats} repeated id(s); the last line of each id was used`);
  return [...byId.values()];
}

/** The whole run directory through the schema: manifest (upgraded), summary, items. */
export function readRun(dir: string): RunRecord {
  const m = readRunManifest(dir);
  const notes: string[] = [];
  const summary = readRunSummary(dir);
  const items = readRunItems(dir, notes);
  return { dir, kind: m.kind, manifest: m.manifest, upgradedFrom: m.upgradedFrom, summary, items, notes };
}

/** The version field a writer puts on manifest.json and summary.json. */
export function withSchema<T extends object>(doc: T): T & { schema: typeof RUN_SCHEMA } {
  const { format, ...rest } = doc as T & { format?: unknown };
  // A run's `format` was its rawrag.run/1 version; an import's names its kind and stays.
  return { schema: RUN_SCHEMA, ...(format !== undefined && format !== RUN_SCHEMA_V1 ? { format } : {}), ...rest } as T & {
    schema: typeof RUN_SCHEMA;
  };
}
