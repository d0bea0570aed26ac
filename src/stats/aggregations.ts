/**
 * How each benchmark turns item scores into its published numbers, as data keyed by benchmark
 * name; unknown benchmarks get the micro average. Every column is a weighted mean of per-type
 * means, which is also what the stratified bootstrap resamples (within each type).
 */
import type { StatItem } from './load.js';
import { memeBeforeAfterRule } from './meme-rule.js';

/** micro: mean over questions; macro: equal weight per group at each level, down to the types. */
export type Weighting = 'micro' | 'macro';

/** A level above the types: each type belongs to the group of the first matching rule, else to itself. */
export interface Level {
  name: string;
  rules: Array<{ match: RegExp; group: string }>;
}

export interface Aggregation {
  /** How `overall` (the headline: leaderboard order, pairwise tests) is computed. */
  overall: Weighting;
  /** Further headline columns, e.g. LongMemEval's task-averaged accuracy. */
  extra?: Array<{ name: string; weighting: Weighting }>;
  /** Levels between types and the overall macro, finest first (MemoryAgentBench: source -> task -> competency). */
  levels?: Level[];
  /** One headline column per group of this level (macro within the group). */
  columnsFor?: string;
  /** Types that enter the headline, pairwise tests and Cochran's Q (the others are shown per type only). */
  headlineTypes?: RegExp;
  /** Cross-item scoring rule applied to a run's items before anything else, with a note saying so. */
  adjust?: (items: StatItem[]) => { items: StatItem[]; note: string | null };
  /** One line for the legend. */
  note: string;
}

const MICRO: Aggregation = { overall: 'micro', note: 'overall = micro average over questions' };

export const AGGREGATIONS: Record<string, Aggregation> = {
  locomo: { overall: 'micro', note: 'overall = micro average over questions (LoCoMo official)' },
  longmemeval: {
    overall: 'micro',
    extra: [{ name: 'task-averaged', weighting: 'macro' }],
    note: 'overall = micro average over questions; task-averaged = mean of the per-type accuracies (LongMemEval official)',
  },
  meme: {
    overall: 'macro',
    headlineTypes: /^(ER|Agg|Tr|Del|Cas|Abs)$/,
    adjust: memeBeforeAfterRule,
    note:
      'overall = unweighted mean of the six after-question task accuracies (MEME); Del/Cas/Abs count only real passes ' +
      '(the before-question on the same entity passed); before-questions are shown but not in the headline',
  },
  memoryagentbench: {
    overall: 'macro',
    levels: [
      { name: 'task', rules: [{ match: /^icl_/i, group: 'MCC' }] },
      {
        name: 'competency',
        rules: [
          { match: /^(ruler_qa|eventqa|longmemeval)/i, group: 'AR' },
          { match: /^(icl_|MCC$|recsys)/i, group: 'TTL' },
          { match: /^(infbench_sum|detective)/i, group: 'LRU' },
          { match: /^factconsolidation/i, group: 'CR' },
        ],
      },
    ],
    columnsFor: 'competency',
    note:
      'per source = micro; MCC = mean of the 5 ICL sources; per competency (AR/TTL/LRU/CR) = mean of its tasks; ' +
      'overall = mean of the competencies (MemoryAgentBench four-competency macro)',
  },
};

export function aggregationFor(benchmark: string): Aggregation {
  return AGGREGATIONS[benchmark.toLowerCase()] ?? MICRO;
}

/** Group of a type at a level (rules see the type and, for coarser levels, its finer groups). */
function groupAt(level: Level, names: string[]): string {
  for (const r of level.rules) if (names.some((n) => r.match.test(n))) return r.group;
  return names[names.length - 1]!;
}

/** [type, group at level 1, group at level 2, ...]. */
export function pathOf(agg: Aggregation, type: string): string[] {
  const path = [type];
  for (const level of agg.levels ?? []) path.push(groupAt(level, path));
  return path;
}

export function inHeadline(agg: Aggregation, type: string): boolean {
  return agg.headlineTypes ? agg.headlineTypes.test(type) : true;
}

/** A headline column: which items it covers and how it weighs them. */
export interface ColumnSpec {
  name: string;
  weighting: Weighting;
  /** Only types whose group at `columnsFor` level is this (a competency column). */
  group?: string;
}

/** Headline columns for a family whose items have these types (in display order). */
export function headlineColumns(agg: Aggregation, types: string[]): ColumnSpec[] {
  const cols: ColumnSpec[] = [];
  const levelIndex = (agg.levels ?? []).findIndex((l) => l.name === agg.columnsFor);
  if (levelIndex >= 0) {
    // Groups in the order the level's rules name them (AR, TTL, LRU, CR), others after.
    const named = agg.levels![levelIndex]!.rules.map((r) => r.group);
    const rank = (g: string) => (named.includes(g) ? named.indexOf(g) : named.length);
    const groups = [...new Set(types.filter((t) => inHeadline(agg, t)).map((t) => pathOf(agg, t)[levelIndex + 1]!))].sort(
      (a, b) => rank(a) - rank(b),
    );
    for (const g of groups) cols.push({ name: g, weighting: 'macro', group: g });
  }
  for (const e of agg.extra ?? []) cols.push({ name: e.name, weighting: e.weighting });
  cols.push({ name: 'overall', weighting: agg.overall });
  return cols;
}

export interface Strata {
  strata: number[][];
  weights: number[];
  labels: string[];
}

/**
 * Strata (one per type, or one for micro) and their weights for a column over items with these
 * types. Macro: each group at the coarsest level gets an equal share, split equally among its
 * children at the next level, and so on down to the types. Null when the column has no items.
 */
export function columnStrata(agg: Aggregation, col: ColumnSpec, itemTypes: string[]): Strata | null {
  const levelIndex = (agg.levels ?? []).findIndex((l) => l.name === agg.columnsFor);
  const idx = itemTypes
    .map((_, i) => i)
    .filter((i) => inHeadline(agg, itemTypes[i]!))
    .filter((i) => col.group === undefined || pathOf(agg, itemTypes[i]!)[levelIndex + 1] === col.group);
  if (idx.length === 0) return null;
  if (col.weighting === 'micro') return { strata: [idx], weights: [1], labels: ['all'] };
  const byType = new Map<string, number[]>();
  for (const i of idx) {
    const t = itemTypes[i]!;
    if (!byType.has(t)) byType.set(t, []);
    byType.get(t)!.push(i);
  }
  const labels = [...byType.keys()];
  const weights = macroWeights(labels.map((t) => pathOf(agg, t).reverse()));
  return { strata: labels.map((t) => byType.get(t)!), weights, labels };
}

/** Equal split at every level of the paths (coarsest first; the last element is the type). */
function macroWeights(paths: string[][]): number[] {
  const weights = new Array<number>(paths.length).fill(0);
  const split = (members: number[], depth: number, weight: number) => {
    if (depth === paths[members[0]!]!.length) {
      for (const m of members) weights[m] = weight / members.length;
      return;
    }
    const keys = [...new Set(members.map((m) => paths[m]![depth]!))];
    for (const k of keys) split(members.filter((m) => paths[m]![depth] === k), depth + 1, weight / keys.length);
  };
  split(paths.map((_, i) => i), 0, 1);
  return weights;
}
