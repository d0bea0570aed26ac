/** The store oracle's config section (`oracle`): which store, and the MEME phase-visible setting. */
import { z } from 'zod';
import type { RunConfig } from '../../config/schema.js';

export const ORACLE_SECTION = 'oracle';

/** The paper's packing budget for both oracles' evidence (cl100k tokens). */
export const ORACLE_DEFAULT_BUDGET = 5000;

export const OracleSchema = z
  .object({
    /** `raw` = the raw history; a run directory = that system's whole store; a `.jsonl` file = an exported store. */
    store: z.string().min(1).default('raw'),
    /**
     * The exact MEME phase-visible oracle: every gold-relevant raw turn visible at the question,
     * in the order it happened, no budget (the raw store only).
     */
    phaseVisible: z.boolean().default(false),
    /**
     * How the budget is packed. `fill` (the paper's "packed to 5,000 tokens"): the objects with gold
     * evidence first, then the rest by how much of the question and its answer they share, until the
     * budget is full (no budget: the whole store, in that order). `relevant`: the objects with gold
     * evidence only (the budget an upper limit). The phase-visible oracle shows the relevant turns only.
     */
    packing: z.enum(['fill', 'relevant']).default('fill'),
  })
  .strict()
  .refine((o) => !o.phaseVisible || o.store === 'raw', {
    message: 'the phase-visible oracle reads the raw history: use --store raw',
    path: ['store'],
  })
  .refine((o) => !o.phaseVisible || o.packing === 'fill', {
    message: 'the phase-visible oracle shows every gold-relevant turn and nothing else: --oracle-packing does not apply',
    path: ['packing'],
  });

export type OracleConfig = z.infer<typeof OracleSchema>;

export function oracleConfig(cfg: RunConfig): OracleConfig {
  return OracleSchema.parse(cfg[ORACLE_SECTION] ?? {});
}

/** The budget in force: none for the phase-visible oracle, else `--max-evidence-tokens` (0 = none), else 5000. */
export function oracleBudget(cfg: RunConfig, o: OracleConfig): number | null {
  if (o.phaseVisible) return null;
  const max = cfg.assembly.maxEvidenceTokens ?? ORACLE_DEFAULT_BUDGET;
  return max > 0 ? max : null;
}
