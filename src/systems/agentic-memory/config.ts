/**
 * The agentic memory system's config section, `memory` in a run config (absent = these
 * defaults), and the helpers that read it.
 */
import { z } from 'zod';
import type { RunConfig } from '../../config/schema.js';

/** The section's key in the run config. */
export const MEMORY_SECTION = 'memory';

/**
 * The built-in agentic memory system (`--system agentic-memory`; docs/agentic-memory.md). Absent
 * from a config = these defaults; optional so other systems' runs keep their config hash.
 */
export const MemorySchema = z
  .object({
    /** Extraction model; null = the reader's model. */
    extractor: z.string().nullable().default(null).describe('the extraction model (default: the reader model)'),
    /** Extraction batches: one per session, or one per `turns` turns (sessions never split otherwise). */
    batch: z
      .union([z.literal('session'), z.number().int().positive()])
      .default('session')
      .describe("extraction batches: 'session' or a number of turns"),
    /** Completion budget of one extraction reply. */
    maxTokens: z.number().int().positive().default(2048).describe('completion budget of one extraction reply'),
    /** Items the extractor is less sure of are not stored (the handbook's 0.6). */
    minConfidence: z.number().min(0).max(1).default(0.6).describe('items the extractor is less sure of are not stored'),
    /** Duplicate = same entities AND cosine >= this: merged into the older item. */
    dedupThreshold: z.number().min(-1).max(1).default(0.9).describe('cosine at or above which items with the same entities merge'),
    /** An item the extractor flags as an update supersedes the most similar active item sharing an entity, at cosine >= this. */
    conflictThreshold: z
      .number()
      .min(-1)
      .max(1)
      .default(0.5)
      .describe('cosine at or above which an update supersedes the most similar item sharing an entity'),
    weights: z
      .object({
        cosine: z.number().min(0).default(0.4),
        entity: z.number().min(0).default(0.3),
        recency: z.number().min(0).default(0.2),
        importance: z.number().min(0).default(0.1),
      })
      .strict()
      .prefault({})
      .describe('recall weights {cosine, entity, recency, importance} (0.4, 0.3, 0.2, 0.1)'),
    /** recency = base ^ (days since last access / periodDays). */
    recencyBase: z.number().positive().max(1).default(0.9).describe('recency = base ^ (days since last access / recencyPeriodDays)'),
    recencyPeriodDays: z.number().positive().default(7).describe('the period of the recency decay, in days'),
    /** Injection budget: at most `items` items and `tokens` cl100k tokens. */
    items: z.number().int().positive().default(5).describe('items injected per question'),
    tokens: z.number().int().positive().default(800).describe('injection budget in cl100k tokens'),
    /** Entity hard gate: when the question names an entity the memory knows, only items about one of the named entities are recalled. */
    entityGate: z.boolean().default(true).describe('when the question names a known entity, only items about a named entity are recalled'),
    /** false: add-only memory (`-S mutations=false`): an UPDATE is stored as an ADD beside the old item (absent = true). */
    mutations: z
      .boolean()
      .optional()
      .describe('false: add-only memory: UPDATE proposals are stored as ADD beside the old item (absent = true)'),
    /** Recall superseded items too (never forgotten ones). */
    includeSuperseded: z.boolean().default(false).describe('recall superseded items too (never forgotten ones)'),
    /** Forgetting (forget.ts): decay, eviction and the write cap; every number here. */
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
      .prefault({})
      .describe('decay, eviction and the write cap (enabled, halfLifeDays, floor, maxItems, writeCap, ...)'),
  })
  .strict();

export type MemoryConfig = z.infer<typeof MemorySchema>;

/** The run's memory settings: the config's `memory` section, or its defaults when the config has none. */
export function memoryConfig(cfg: RunConfig): MemoryConfig {
  return (cfg[MEMORY_SECTION] as MemoryConfig | undefined) ?? MemorySchema.parse({});
}

/** The extraction model: memory.extractor, else the reader's model; null when neither is set. */
export function extractorModel(cfg: RunConfig): string | null {
  return memoryConfig(cfg).extractor ?? cfg.reader.model;
}
