/**
 * The run configuration. Defaults are the paper's; every method choice is a value here.
 * Precedence: these defaults < a config file (`--config`, JSON or YAML) < command-line flags.
 */
import { z } from 'zod';

/** The retrievers `--retriever` accepts (src/retrieval/retrievers.ts builds them). */
export const RETRIEVER_NAMES = ['local', 'local-lexical', 'local-dense', 'openai', 'qwen3', 'full-context'] as const;

export const ChunkingSchema = z
  .object({
    tokenizer: z.literal('cl100k_base').default('cl100k_base'),
    size: z.number().int().positive().default(256),
    stride: z.number().int().positive().default(224),
  })
  .strict()
  .refine((c) => c.stride <= c.size, { message: 'stride must not exceed size (windows would skip tokens)', path: ['stride'] });

export const RetrievalSchema = z
  .object({
    /** `local` = the embedded retriever (no network, no key). */
    retriever: z
      .enum(RETRIEVER_NAMES, { error: (i) => `unknown retriever '${String(i.input)}' (known: ${RETRIEVER_NAMES.join(', ')})` })
      .default('local'),
    /** First-stage depth (cosine top-128 in the paper). */
    candidates: z.number().int().positive().default(128),
    /** Evidence windows kept after reranking (top-15 in the paper). */
    k: z.number().int().positive().default(15),
    rerank: z.boolean().default(true),
  })
  .strict()
  .refine((r) => r.k <= r.candidates, { message: 'k must not exceed candidates', path: ['k'] });

export const AssemblySchema = z
  .object({
    /** null = the benchmark's policy decides. */
    expand: z.boolean().nullable().default(null),
    order: z.enum(['rank', 'chronological']).nullable().default(null),
    /**
     * Evidence budget in cl100k tokens for every system (0 = no cap); items are packed in rank order,
     * skipping what does not fit (src/retrieval/pack.ts). Optional without a default, like `dedup`, so
     * configs that do not use them keep their hash. The store oracle's default is 5000.
     */
    maxEvidenceTokens: z.number().int().nonnegative().optional(),
    /**
     * false (the default) = a turn shared by overlapping windows is shown once per window, the paper's
     * display (docs/faithfulness.md); true = once. A manifest without the key was written when the
     * default was once.
     */
    dedup: z.boolean().default(false),
  })
  .strict();

export const ReaderSchema = z
  .object({
    /** null = no reader: retrieval and coverage only. */
    model: z.string().nullable().default(null),
    temperature: z.number().min(0).max(2).default(0),
    /**
     * null = the benchmark's official budget (per question where it has one; none sent where the
     * upstream sends none); a number = that budget for every question; 'none' = never send max_tokens.
     */
    maxTokens: z
      .union([z.number().int().positive(), z.literal('none')])
      .nullable()
      .default(null),
    /**
     * A reader template in place of the official prompt (`--reader-prompt`; src/reader-judge/reader-override.ts),
     * with the sha256 of its text so the run's identity follows the content. Optional without a
     * default, so configs that do not use it keep their hash.
     */
    promptFile: z.string().min(1).nullable().optional(),
    promptSha256: z.string().min(1).nullable().optional(),
  })
  .strict();

export const JudgeSchema = z
  .object({
    /**
     * null = the benchmark's official judge (gpt-4o-mini where the benchmark names none); `none` = no
     * judge: answers are written without verdicts (`rawrag judge --rejudge` scores them later).
     */
    model: z.string().nullable().default(null),
    runs: z.number().int().positive().default(3),
    temperature: z.number().min(0).max(2).default(0),
    /**
     * Another judge prompt (`--judge-prompt FILE`: `{question}`, `{gold_answer}`, `{generated_answer}`
     * slots), recorded with its text's sha256. Absent = the benchmark's official prompt; optional so
     * runs without it keep their config hash.
     */
    prompt: z
      .object({
        file: z.string().min(1),
        sha256: z.string().min(1),
        /** A named protocol of `configs/prompts/<benchmark>-judge-protocols.json` (sha256 over its whole definition). */
        protocol: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** `--limit A-B`: questions A to B of the selection, 1-based and inclusive (inspect's `--limit 11-20`). */
export const LimitRangeSchema = z
  .string()
  .regex(/^[1-9]\d*-[1-9]\d*$/, { message: "a limit range is 'A-B' with whole numbers 1 <= A <= B, e.g. 11-20" })
  .refine((r) => Number(r.split('-')[0]) <= Number(r.split('-')[1]), { message: 'a limit range A-B needs A <= B' });

/**
 * The config every system shares. A system's own section (e.g. `memory`) is added by the systems
 * registry (src/systems/registry.ts, `RunConfigSchema`), which also checks `system` against the
 * registered names and supplies its default.
 */
export const BaseRunConfigSchema = z
  .object({
    benchmark: z.string().min(1),
    /** The system under test (src/systems/<name>/); the registry checks the name and gives the default. */
    system: z.string().min(1).optional(),
    /** Data file or folder; null = the benchmark's bundled default. */
    data: z.string().nullable().default(null),
    /** The benchmark's own options (e.g. LoCoMo `categories`). */
    options: z.record(z.string(), z.string()).default({}),
    /** Ask only the first N selected questions, or a 1-based inclusive range of them ("11-20", as inspect's `--limit 11-20`). */
    limit: z.union([z.number().int().positive(), LimitRangeSchema]).nullable().default(null),
    /**
     * A random sample of N questions, stratified by question type and episode (seeded by `seed`).
     * Optional without a default (like `ids`), so configs that do not use it keep their hash and run id.
     */
    sample: z.number().int().positive().nullable().optional(),
    /** A file listing the question ids to ask, one a line (or JSON lines with an `id`). */
    ids: z.string().min(1).nullable().optional(),
    seed: z.number().int().default(0),
    /**
     * The reader answers each question this many times (`--epochs N`), each answer judged, the item
     * score their mean. Optional without a default (1 is dropped), so configs without it keep their hash.
     */
    epochs: z.number().int().positive().optional(),
    chunking: ChunkingSchema.prefault({}),
    retrieval: RetrievalSchema.prefault({}),
    assembly: AssemblySchema.prefault({}),
    reader: ReaderSchema.prefault({}),
    judge: JudgeSchema.prefault({}),
  })
  .strict();

/**
 * A validated run config: the shared part, `system` resolved, plus the systems' own sections
 * (each read and typed by its system through its own schema).
 */
export type RunConfig = Omit<z.infer<typeof BaseRunConfigSchema>, 'system'> & { system: string } & { [section: string]: unknown };
export type ChunkingConfig = z.infer<typeof ChunkingSchema>;
