/** The store oracle's config section (`oracle`): which store, and the MEME phase-visible setting. */
import { z } from 'zod';
import type { RunConfig } from '../../config/schema.js';

export const ORACLE_SECTION = 'oracle';

/** The paper's packing budget for both oracles' evidence (cl100k tokens). */
export const ORACLE_DEFAULT_BUDGET = 5000;

export const OracleSchema = z
  .object({
    store: z
      .string()
      .min(1)
      .default('raw')
      .describe("raw (the raw history) | a run directory (its system's whole store) | an exported store .jsonl"),
    /**
     * The exact MEME phase-visible oracle: every gold-relevant raw turn visible at the question,
     * in the order it happened, no budget (the raw store only).
     */
    phaseVisible: z
      .boolean()
      .default(false)
      .describe(
        "MEME's phase-visible oracle: every gold-relevant raw turn visible at the question, chronological, no budget (refused where questions have no phases)",
      ),
    /**
     * How the budget is packed. `fill` (the paper's "packed to 5,000 tokens"): the objects with gold
     * evidence first, then the rest by how much of the question and its answer they share, until the
     * budget is full (no budget: the whole store, in that order). `relevant`: the objects with gold
     * evidence only (the budget an upper limit). The phase-visible oracle shows the relevant turns only.
     */
    packing: z
      .enum(['fill', 'relevant'])
      .default('fill')
      .describe(
        "fill: gold-evidence objects first, then the rest by overlap with the question and its answer, until the budget is full (the paper's packing) | relevant: gold-evidence objects only",
      ),
  })
  .strict()
  .refine((o) => !o.phaseVisible || o.store === 'raw', {
    message: 'the phase-visible oracle reads the raw history: use -S store=raw',
    path: ['store'],
  })
  .refine((o) => !o.phaseVisible || o.packing === 'fill', {
    message: 'the phase-visible oracle shows every gold-relevant turn and nothing else: -S packing does not apply',
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
