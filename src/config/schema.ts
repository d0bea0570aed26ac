/**
 * The run configuration. Defaults are the paper's; every method choice is a value here.
 * Precedence: these defaults < a config file (`--config`, JSON or YAML) < command-line flags.
 */
import { z } from 'zod';

/** The retrievers `--retriever` accepts (src/retrieval/retrievers.ts builds them). */
export const RETRIEVER_NAMES = ['local', 'local-lexical', 'local-dense', 'openai', 'qwen3', 'full-context'] as const;
/** The systems `--system` accepts (src/pipeline/sources.ts builds them). */
export const SYSTEM_NAMES = ['raw-rag', 'agentic-memory'] as const;

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
  })
  .strict();

export const JudgeSchema = z
  .object({
    /** null = the benchmark's official judge (gpt-4o-mini where the benchmark names none). */
    model: z.string().nullable().default(null),
    runs: z.number().int().positive().default(3),
    temperature: z.number().min(0).max(2).default(0),
    /**
     * Another judge prompt (`--judge-prompt FILE`: `{question}`, `{gold_answer}`, `{generated_answer}`
     * slots), recorded with its text's sha256. Absent = the benchmark's official prompt; optional so
     * runs without it keep their config hash.
     */
    prompt: z.object({ file: z.string().min(1), sha256: z.string().min(1) }).strict().optional(),
  })
  .strict();

/**
 * The built-in agentic memory system (`--system agentic-memory`; docs/agentic-memory.md). Absent
 * from a config = these defaults; optional so RAW-RAG runs keep their config hash.
 */
export const MemorySchema = z
  .object({
    /** Extraction model; null = the reader's model. */
    extractor: z.string().nullable().default(null),
    /** Extraction batches: one per session, or one per `turns` turns (sessions never split otherwise). */
    batch: z.union([z.literal('session'), z.number().int().positive()]).default('session'),
    /** Completion budget of one extraction reply. */
    maxTokens: z.number().int().positive().default(2048),
    /** Items the extractor is less sure of are not stored (the handbook's 0.6). */
    minConfidence: z.number().min(0).max(1).default(0.6),
    /** Duplicate = same entities AND cosine >= this: merged into the older item. */
    dedupThreshold: z.number().min(-1).max(1).default(0.9),
    /** An item the extractor flags as an update supersedes the most similar active item sharing an entity, at cosine >= this. */
    conflictThreshold: z.number().min(-1).max(1).default(0.5),
    weights: z
      .object({
        cosine: z.number().min(0).default(0.4),
        entity: z.number().min(0).default(0.3),
        recency: z.number().min(0).default(0.2),
        importance: z.number().min(0).default(0.1),
      })
      .strict()
      .prefault({}),
    /** recency = base ^ (days since last access / periodDays). */
    recencyBase: z.number().positive().max(1).default(0.9),
    recencyPeriodDays: z.number().positive().default(7),
    /** Injection budget: at most `items` items and `tokens` cl100k tokens. */
    items: z.number().int().positive().default(5),
    tokens: z.number().int().positive().default(800),
    /** Recall superseded items too (never forgotten ones). */
    includeSuperseded: z.boolean().default(false),
    /** Forgetting (src/memory/forget.ts): decay, eviction and the write cap; every number here. */
    forgetting: z
      .object({
        enabled: z.boolean().default(true),
        /** Importance an ordinary item can count at most (key attributes: 1). */
        importanceCeiling: z.number().min(0).max(1).default(0.9),
        /** Importance halves every this many days without access, per memory type. */
        halfLifeDays: z
          .object({
            episodic: z.number().positive().default(90),
            semantic: z.number().positive().default(365),
            procedural: z.number().positive().default(365),
          })
          .strict()
          .prefault({}),
        /** A never-accessed item whose decayed importance falls below this is expired: forgotten, never recalled. */
        floor: z.number().min(0).max(1).default(0.05),
        /** Attribute words that make an item a key attribute (identity, safety preferences): it never decays nor is evicted. */
        keyAttributes: z
          .array(z.string().min(1))
          .default([
            'name',
            'identity',
            'age',
            'birthday',
            'gender',
            'pronouns',
            'nationality',
            'allergy',
            'allergies',
            'diet',
            'dietary',
            'medical',
            'health',
            'medication',
            'disability',
            'safety',
            'emergency',
          ]),
        /** Active items kept per owner (and visibility horizon); beyond, the lowest decayed importance, least recently accessed go first. */
        maxItems: z.number().int().positive().default(1000),
        /** At most `writeCap` items written per owner per `writeWindowDays` days; the rest are recorded as forgotten. */
        writeCap: z.number().int().positive().default(100),
        writeWindowDays: z.number().positive().default(1),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export const RunConfigSchema = z
  .object({
    benchmark: z.string().min(1),
    /** The system under test: RAW-RAG (the paper's method) or the built-in agentic memory system. */
    system: z
      .enum(SYSTEM_NAMES, { error: (i) => `unknown system '${String(i.input)}' (known: ${SYSTEM_NAMES.join(', ')})` })
      .default('raw-rag'),
    /** Data file or folder; null = the benchmark's bundled default. */
    data: z.string().nullable().default(null),
    /** The benchmark's own options (e.g. LoCoMo `categories`). */
    options: z.record(z.string(), z.string()).default({}),
    /** Ask only the first N selected questions. */
    limit: z.number().int().positive().nullable().default(null),
    /**
     * A random sample of N questions, stratified by question type and episode (seeded by `seed`).
     * Optional without a default (like `ids`), so configs that do not use it keep their hash and run id.
     */
    sample: z.number().int().positive().nullable().optional(),
    /** A file listing the question ids to ask, one a line (or JSON lines with an `id`). */
    ids: z.string().min(1).nullable().optional(),
    seed: z.number().int().default(0),
    chunking: ChunkingSchema.prefault({}),
    retrieval: RetrievalSchema.prefault({}),
    assembly: AssemblySchema.prefault({}),
    reader: ReaderSchema.prefault({}),
    judge: JudgeSchema.prefault({}),
    memory: MemorySchema.optional(),
  })
  .strict();

export type RunConfig = z.infer<typeof RunConfigSchema>;
export type ChunkingConfig = z.infer<typeof ChunkingSchema>;
export type MemoryConfig = z.infer<typeof MemorySchema>;
