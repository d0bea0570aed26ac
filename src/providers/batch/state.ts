/**
 * batches.json in the run directory: every batch part (its requests on disk beside it, its batch
 * id once submitted, its last known state) and the requests that failed inside a batch. Written
 * atomically after every change, so a kill at any point leaves the last consistent state.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError, formatPath } from '../../util/errors.js';
import { readJsonFile, writeFileAtomic, writeJsonAtomic } from '../../util/fsx.js';
import type { BatchLine } from './parts.js';
import type { DeferredRequest } from './defer.js';
import { addCost } from '../usage.js';

export const BATCHES_FILE = 'batches.json';
export const PARTS_DIR = 'batches';

/** Provider states in which a batch will not change any more. */
export const TERMINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);
/** Batches that did not run all their requests (never adopted again), and parts never submitted whose requests went elsewhere. */
export const DEAD = new Set(['failed', 'expired', 'cancelled', 'superseded']);

const CountsSchema = z.object({ total: z.number(), completed: z.number(), failed: z.number() });

export const BatchUsageSchema = z.object({
  replies: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  cost_usd: z.number().nullable(),
});
export type BatchUsage = z.infer<typeof BatchUsageSchema>;

/** Adds `u` into `into[role]` (a null cost stays unknown). */
export function addBatchUsage(into: Record<string, BatchUsage>, role: string, u: BatchUsage): void {
  const t = (into[role] ??= { replies: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 });
  t.replies += u.replies;
  t.prompt_tokens += u.prompt_tokens;
  t.completion_tokens += u.completion_tokens;
  t.cost_usd = addCost(t.cost_usd, u.cost_usd);
}

const PartSchema = z.object({
  hash: z.string(),
  part: z.number().int(),
  model: z.string(),
  role: z.enum(['reader', 'judge', 'embed', 'extract']),
  base_url: z.string(),
  url: z.string(),
  /** The batch API the part goes to (models.ts BATCH_APIS); null in files written before it was recorded: by `url`. */
  batch_api: z.string().nullable().default(null),
  requests: z.number().int(),
  bytes: z.number().int(),
  roles: z.record(z.string(), z.number()),
  input_file_id: z.string().nullable(),
  batch_id: z.string().nullable(),
  /** `prepared` until the provider holds a batch for it, then the provider's status. */
  status: z.string(),
  counts: CountsSchema.nullable(),
  output_file_id: z.string().nullable(),
  error_file_id: z.string().nullable(),
  /** Batch-level errors (a failed batch). */
  errors: z.string().nullable(),
  collected: z
    .object({
      stored: z.number(),
      failed: z.number(),
      unfinished: z.number(),
      at: z.string(),
      /** What the stored replies used and cost, at batch prices, by role. */
      usage: z.record(z.string(), BatchUsageSchema).default({}),
    })
    .nullable(),
  /** When a create was last sent for the part (a provider whose batches carry no metadata: where a lost create is looked for). */
  create_sent_at: z.string().nullable().default(null),
  /** The parts an expired batch's unfinished requests went out in. */
  resubmitted_as: z.array(z.string()).default([]),
  created_at: z.string(),
  updated_at: z.string(),
});
export type PartRecord = z.infer<typeof PartSchema>;

const StateSchema = z.object({
  format: z.literal('rawrag.batches/1'),
  run_id: z.string(),
  /** The response cache the replies go to (a local path; collect uses it unless told otherwise). */
  cache_dir: z.string().nullable(),
  parts: z.array(PartSchema),
  /** Requests that failed inside a batch, by cache key: item errors until --retry-errors. */
  failures: z.record(z.string(), z.object({ message: z.string(), batch_id: z.string().nullable() })),
});
export type BatchesState = z.infer<typeof StateSchema>;

/** What a part's requests need beyond their JSONL line: who asked (cache role, usage) and which replicate. */
export type RequestMeta = Pick<DeferredRequest, 'key' | 'role' | 'model' | 'replicate'>;

export class BatchStore {
  readonly file: string;

  constructor(readonly dir: string) {
    this.file = join(dir, BATCHES_FILE);
  }

  exists(): boolean {
    return existsSync(this.file);
  }

  load(): BatchesState {
    const parsed = StateSchema.safeParse(readJsonFile(this.file));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InputError(issue.message, { file: this.file, place: formatPath(issue.path) });
    }
    return parsed.data;
  }

  save(state: BatchesState): void {
    mkdirSync(this.dir, { recursive: true });
    writeJsonAtomic(this.file, state);
  }

  /** Writes a part's input file and its request list beside batches.json (before anything is uploaded). */
  writePart(hash: string, jsonl: string, meta: RequestMeta[]): void {
    mkdirSync(join(this.dir, PARTS_DIR), { recursive: true });
    writeFileAtomic(this.partFile(hash), jsonl);
    writeFileAtomic(this.metaFile(hash), JSON.stringify(meta) + '\n');
  }

  partFile(hash: string): string {
    return join(this.dir, PARTS_DIR, `${hash}.jsonl`);
  }

  metaFile(hash: string): string {
    return join(this.dir, PARTS_DIR, `${hash}.requests.json`);
  }

  readPartText(hash: string): string {
    const file = this.partFile(hash);
    if (!existsSync(file)) throw new InputError('batch input file is missing', { file });
    return readFileSync(file, 'utf8');
  }

  readPart(hash: string): { lines: BatchLine[]; meta: RequestMeta[] } {
    const file = this.partFile(hash);
    const lines = this.readPartText(hash)
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l, i) => {
        try {
          return JSON.parse(l) as BatchLine;
        } catch {
          throw new InputError('invalid JSON line', { file, place: `line ${i + 1}` });
        }
      });
    return { lines, meta: readJsonFile(this.metaFile(hash)) as RequestMeta[] };
  }
}
