/**
 * The paper's published figures as one data file, configs/paper/figures.json: the RAW-RAG rows
 * (with the strongest other system of each), the per-type weak spots, the audit of Mem0's write
 * decisions, and every other figure `rawrag paper` and the systems' paper rows show (ablations,
 * add-ons, efficiency, evidence length, diagnostics, oracles, controls), each with where in the
 * paper it comes from. Validated on first use: a wrong
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

const name = z.string().min(1);
const pair = z.tuple([z.number(), z.number()]);
/** Another system's figure the paper gives beside RAW-RAG's (`EverMemOS 53.25`). */
const otherAccuracy = z.strictObject({ system: name, accuracy: z.number() });
const otherValue = z.strictObject({ system: name, value: z.number() });
const otherCoverage = z.strictObject({ system: name, coverage: z.number() });

const PersonaMemSchema = z.strictObject({
  benchmark: name,
  retriever: z.enum(['openai', 'qwen3']),
  headline: name,
  accuracy: z.number(),
  others: z.array(otherAccuracy).min(1),
  source,
});

const AblationsSchema = z.strictObject({
  benchmark: name,
  reader: name,
  /** Each variant's paired difference from the reference (points), keyed as rawrag's items name it. */
  variants: z.record(name, z.strictObject({ delta: z.number(), pHolm: z.number().min(0).max(1).optional() })),
  /** k in {5, 10, 30, 60} and windows 128-1024: every difference within this many points. */
  flatWithinPoints: z.number().positive(),
  source,
});

const AddOnsSchema = z.strictObject({
  benchmark: name,
  reader: name,
  /** Keyed by the rawrag system that implements the add-on on RAW-RAG's backbone. */
  systems: z.record(
    name,
    z.strictObject({
      delta: z.number(),
      accuracy: z.number().optional(),
      breakdown: z.array(z.strictObject({ column: name, label: name, rawRag: z.number(), value: z.number() })).optional(),
    }),
  ),
  cost: z.strictObject({
    llmTokensMillions: pair,
    hours: pair,
    rawRag: z.strictObject({ llmTokens: z.number().nonnegative(), minutes: z.number().positive() }),
  }),
  source,
});

const EfficiencySchema = z.strictObject({
  value: z.number().nonnegative(),
  unit: z.enum(['s', 'h']),
  others: z.array(otherValue).optional(),
  llmTokens: z.number().nonnegative().optional(),
  source,
});

const CoverageSchema = z.strictObject({
  coverage: z.number(),
  utilization: z.number().optional(),
  coverageLowest: z.number().optional(),
  utilizationRange: pair.optional(),
  spread: z.strictObject({ coverage: z.number(), utilization: z.number() }).optional(),
  others: z.array(otherCoverage),
  source,
});

export const PaperFiguresSchema = z.strictObject({
  $comment: z.string().optional(),
  rows: z.array(RowSchema).min(1),
  breakdowns: z.array(BreakdownSchema),
  audits: z.record(z.string().min(1), AuditSchema),
  personamem: PersonaMemSchema,
  ablations: AblationsSchema,
  priorBaselines: z.strictObject({ chunks4096: z.number(), source }),
  addOns: AddOnsSchema,
  efficiency: z.record(name, EfficiencySchema),
  evidence: z.strictObject({ locomoMeanTokens: z.number().positive(), tokensPerQuestion: pair, source }),
  coverage: z.record(name, CoverageSchema),
  resultPath: z.record(name, z.strictObject({ rawRag: z.number(), others: z.array(otherValue), source })),
  storeOracle: z.strictObject({ raw: z.number(), stores: z.array(otherAccuracy).min(1), uncappedGaps: pair, source }),
  phaseVisible: z.record(name, z.strictObject({ overall: z.number(), parts: z.record(name, z.number()), source })),
  controls: z.record(name, z.strictObject({ delta: z.number(), unchangedQuestions: z.number().int().positive().optional(), source })),
  addOnly: z.strictObject({
    system: name,
    benchmark: name,
    reader: name,
    withUpdates: z.number(),
    addOnly: z.number(),
    delta: z.number(),
    source,
  }),
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

/**
 * The entry `key` of a keyed section of the figures file (`efficiency`, `coverage`, ...): a
 * missing one stops the command with an error naming the file and the place the code looked.
 */
export function figureEntry<T>(section: Readonly<Record<string, T>>, place: string, key: string): T {
  const entry = Object.hasOwn(section, key) ? section[key] : undefined;
  if (entry === undefined) throw new InputError(`no entry "${key}" (rawrag reads it)`, { file: PAPER_FIGURES_FILE, place });
  return entry;
}

/** An optional field of an entry that rawrag reads for this item: missing, an error naming the file and `place`. */
export function figureField<T>(value: T | undefined, place: string): T {
  if (value === undefined) throw new InputError('missing (rawrag reads it)', { file: PAPER_FIGURES_FILE, place });
  return value;
}

/** A figure in points or percent as rawrag prints the paper's: two decimals (`83.00`, `-3.92`); `signed` adds `+` to a positive one. */
export function points(x: number, signed = false): string {
  return `${signed && x > 0 ? '+' : ''}${x.toFixed(2)}`;
}

/** A figure as the paper prints it, thousands grouped (`1,561.97`, `4,778.8`, `0.0012`); `signed` adds `+` to a positive one. */
export function figure(x: number, signed = false): string {
  return `${signed && x > 0 ? '+' : ''}${x.toLocaleString('en-US', { maximumFractionDigits: 20 })}`;
}

/** A pair as a range (`21.6-109.3`), each end printed by `fmt`. */
export const range = ([lo, hi]: readonly [number, number], fmt: (x: number) => string = figure): string => `${fmt(lo)}-${fmt(hi)}`;

/** What the paper's memory-management add-ons cost (`21.6-109.3 M LLM tokens, 2.9-8.8 h`). */
export function addOnCost(): string {
  const c = paperFigures().addOns.cost;
  return `${range(c.llmTokensMillions)} M LLM tokens, ${range(c.hours)} h`;
}
