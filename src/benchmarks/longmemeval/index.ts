/**
 * LongMemEval adapter (Wu et al., ICLR 2025; xiaowu0162/LongMemEval). Each of the 500 questions
 * comes with its own haystack of chat sessions, so each question is its own episode. Scoring is
 * the official one: reader template and history layout, per-type GPT-4o judge prompts, task-averaged
 * and abstention accuracy, and the official retrieval metrics computed offline.
 */
import type { Benchmark } from '../../core/benchmark.js';
import { DEFAULT_POLICY } from '../../core/policy.js';
import { QUESTION_TYPES } from './format.js';
import { loadLongMemEval } from './load.js';
import { longMemEvalRankingMetrics } from './retrieval-metrics.js';
import { OFFICIAL_JUDGE_MODEL, longMemEvalScoring } from './scoring.js';
import { summariseLongMemEval } from './summary.js';
import { DATA_DIR, DEFAULT_VARIANT, DOWNLOADS, VARIANTS } from './variants.js';

/**
 * Windows ranked for the retrieval metrics. k counts documents (user turns, sessions), and a
 * 256-token window holds about one turn, half of them assistant turns: 50 windows seldom reach
 * 50 user turns. 128 = the first-stage depth, which costs no extra request.
 */
export const LONGMEMEVAL_RANKING_DEPTH = 128;

export const longmemeval: Benchmark = {
  name: 'longmemeval',
  title: 'LongMemEval (500 questions, one haystack each; S, M and oracle, original and cleaned)',
  defaultData: DATA_DIR,
  policy: { ...DEFAULT_POLICY },
  aggregation: {
    overall: 'micro',
    extra: [{ name: 'task-averaged', weighting: 'macro' }],
    note: 'overall = micro average over questions; task-averaged = mean of the per-type accuracies (LongMemEval official)',
  },
  typeOrder: [...QUESTION_TYPES],
  options: [
    {
      flags: '--variant <name>',
      key: 'variant',
      description: `LongMemEval release: the file picked when --data is a folder (or the default ${DATA_DIR}/), else what a file is recorded as (default: read from its name): ${VARIANTS.join(', ')}`,
      defaultValue: DEFAULT_VARIANT,
      definesSetting: true,
    },
    {
      flags: '--reading <method>',
      key: 'reading',
      description: 'LongMemEval reader template: con (official chain-of-note, step by step) | direct',
      defaultValue: 'con',
    },
  ],
  load: (opts) => loadLongMemEval(opts),
  scoring: longMemEvalScoring,
  defaultJudgeModel: OFFICIAL_JUDGE_MODEL,
  summarise: (items) => summariseLongMemEval(items),
  rankingDepth: LONGMEMEVAL_RANKING_DEPTH,
  rankingMetrics: (q, ranked, ep) => longMemEvalRankingMetrics(q, ranked, ep),
  downloads: DOWNLOADS,
};
