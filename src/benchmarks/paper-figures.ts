/**
 * The paper's published figures as one data file, configs/paper/figures.json: the RAW-RAG rows
 * (with the strongest other system of each), the per-type weak spots, and the audit of Mem0's
 * write decisions, each with where in the paper it comes from. Validated on first use: a wrong
 * entry stops the command with an error naming the file and the place (`rows[3].accuracy`).
 */
import { z } from 'zod';
import { OPERATIONS } from '../core/write-decisions.js';
import { InputError, formatPath } from '../util/errors.js';
import { readJsonFile } from '../util/fsx.js';
import { fromRoot } from '../util/paths.js';

/** The file, relative to the project root. */
export const PAPER_FIGURES_FILE = 'configs/paper/figures.json';

const source = z.string().min(1);
const operationShares = z.partialRecord(z.enum(OPERATIONS), z.number().nonnegative());

const RowSchema = z.strictObject({
  benchmark: z.string().min(1),
  reader: z.string().min(1),
  retriever: z.enum(['openai', 'qwen3', 'full-context']),
  system: z.string().min(1).optional(),
  accuracy: z.number(),
  headline: z.string().min(1),
  strongestOther: z.strictObject({ system: z.string().min(1), accuracy: z.number() }).optional(),
  source,
});

const BreakdownSchema = z.strictObject({
  benchmark: z.string().min(1),
  reader: z.string().min(1),
  column: z.string().min(1),
  label: z.string().min(1),
  value: z.number(),
  note: z.string().min(1).optional(),
  source,
});

const AuditSchema = z.strictObject({
  system: z.string().min(1),
  decisions: z.number().int().positive(),
  operations: operationShares,
  counts: z.partialRecord(z.enum(OPERATIONS), z.number().int().nonnegative()).optional(),
  proposed_mutation_rate: z.number().min(0).max(1),
  effective_mutation_rate: z.number().min(0).max(1),
  per_episode_proposed_median: z.number().min(0).max(1),
  source,
});

export const PaperFiguresSchema = z.strictObject({
  $comment: z.string().optional(),
  rows: z.array(RowSchema).min(1),
  breakdowns: z.array(BreakdownSchema),
  audits: z.record(z.string().min(1), AuditSchema),
});

export type PaperFigures = z.infer<typeof PaperFiguresSchema>;

/** Validates a parsed figures file; errors name `file` and the place in it. */
export function parsePaperFigures(raw: unknown, file: string): PaperFigures {
  const parsed = PaperFiguresSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(issue.message, { file, place: formatPath(issue.path) });
  }
  return parsed.data;
}

let cached: PaperFigures | undefined;

/** The project's figures file, read and validated once per process. */
export function paperFigures(): PaperFigures {
  cached ??= parsePaperFigures(readJsonFile(fromRoot(PAPER_FIGURES_FILE)), PAPER_FIGURES_FILE);
  return cached;
}
