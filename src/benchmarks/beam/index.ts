/**
 * BEAM adapter (Tavakoli et al., 2025, "Beyond a Million Tokens"; mohammadtavakoli78/BEAM @ b2a3ee8).
 * 100 conversations in four sizes (100K, 500K, 1M, 10M tokens), 20 probing questions each: two per
 * ability, scored against rubrics by an LLM judge (event ordering by Kendall tau).
 */
import type { Benchmark, LoadOptions } from '../../core/benchmark.js';
import type { Dataset } from '../../core/schema.js';
import { DEFAULT_POLICY } from '../../core/policy.js';
import { ABILITIES, SIZES } from './format.js';
import { loadBeam, parseFlag, parseSizes } from './load.js';
import { beamScoring } from './scoring.js';
import { RUBRIC_FLAG, officialRubric, summariseBeam } from './summary.js';

export const beam: Benchmark = {
  name: 'beam',
  title: 'BEAM (100 conversations of 100K-10M tokens; 2,000 rubric-scored questions, 10 abilities)',
  defaultData: 'datasets/beam',
  policy: { ...DEFAULT_POLICY },
  typeOrder: [...ABILITIES],
  options: [
    {
      flags: '--size <sizes>',
      key: 'size',
      description: `conversation sizes to load, comma-separated: ${SIZES.join(', ')} or all (default: the size of the folder given, else 100K)`,
      definesSetting: true,
    },
    {
      flags: RUBRIC_FLAG,
      key: 'beamRubric',
      description:
        'BEAM rubric scoring: official (upstream compute_metrics.py: int() truncates 0.5 to 0, the judge sees a literal <question>, a NaN tau fails the item) | corrected (0.5 kept, <question> filled, tau guarded); the other variant is printed beside the headline',
      defaultValue: 'official',
    },
    {
      flags: '--skip-incomplete',
      key: 'skipIncomplete',
      description: 'leave out conversation folders without a chat or probing file (a partial checkout), listing them in a warning',
    },
  ],
  load: async ({ path, options }: LoadOptions): Promise<Dataset> =>
    loadBeam(path, {
      sizes: options.size === undefined ? undefined : parseSizes(options.size),
      officialDefects: officialRubric(options),
      skipIncomplete: parseFlag(options.skipIncomplete, '-B skip-incomplete'),
    }),
  scoring: beamScoring,
  /** The official judge (src/llm.py gpt_llm, temperature 0). */
  defaultJudgeModel: 'gpt-4.1-mini',
  summarise: summariseBeam,
};
