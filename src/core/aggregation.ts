/**
 * How a benchmark turns item scores into its published numbers, declared by its adapter
 * (`Benchmark.aggregation`) and used alike by `rawrag run`'s summary, `rawrag ablate`'s table and
 * `rawrag stats`. Every column is a weighted mean of per-type means, which is also what the
 * stratified bootstrap resamples (within each type).
 */

/** micro: mean over questions; macro: equal weight per group at each level, down to the types. */
export type Weighting = 'micro' | 'macro';

/** A level above the types (MemoryAgentBench: source -> task -> competency). */
export interface Level {
  name: string;
  /** The group at this level of a type, given its path so far: [type, group at the finer levels...]. */
  groupOf(path: string[]): string;
  /** Display order of this level's groups (others after, by name). */
  order?: string[];
}

/** What a cross-item rule reads of an item (stats items and run items both have these). */
export interface AggregationItem {
  id: string;
  type: string | null;
  score: number | null;
  votes: number[] | null;
  episode: string | null;
  meta: Record<string, unknown> | null;
  error: string | null;
}

export interface Aggregation {
  /** How `overall` (the headline: leaderboard order, pairwise tests) is computed. */
  overall: Weighting;
  /** Further headline columns, e.g. LongMemEval's task-averaged accuracy. */
  extra?: Array<{ name: string; weighting: Weighting }>;
  /** Levels between types and the overall macro, finest first. */
  levels?: Level[];
  /** One headline column per group of this level (macro within the group). */
  columnsFor?: string;
  /** Types that enter the headline, pairwise tests and Cochran's Q (the others are shown per type only). */
  inHeadline?(type: string): boolean;
  /** Cross-item scoring rule applied to a run's items before anything else, with a note saying so. */
  adjust?<T extends AggregationItem>(items: T[]): { items: T[]; note: string | null };
  /** One line for the legend. */
  note: string;
}

export const MICRO_AGGREGATION: Aggregation = { overall: 'micro', note: 'overall = micro average over questions' };
