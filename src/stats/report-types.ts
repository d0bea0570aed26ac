/**
 * What `rawrag stats` computes (src/stats/compute-tables.ts): its options, every table's rows and
 * the report of one family of runs.
 */
import type { EpochRow } from './epochs.js';
import type { Aggregation } from '../core/aggregation.js';
import type { LoadedRun, SkippedDir, StatItem } from './load.js';

export interface StatsOptions {
  resamples: number;
  seed: number | string;
  /** Reference system for pairwise tests (default: the RAW-RAG run of each family). */
  baseline?: string;
  allPairs: boolean;
  /** Question types in display order, per benchmark (the adapters' typeOrder). */
  typeOrder?: (benchmark: string) => string[];
  /** Each benchmark's aggregation (the adapters' own, src/core/aggregation.ts); default the micro average. */
  aggregation?: (benchmark: string) => Aggregation | undefined;
  /** Folders found but not used (no manifest, ...), reported with the runs skipped here. */
  skipped?: SkippedDir[];
  /** Called as resampling work is done (units: item draws), for a progress display. */
  onProgress?: (done: number, total: number) => void;
}

export interface Cell {
  n: number;
  accuracy: number;
  ci_low: number;
  ci_high: number;
  ci_method: 'wilson' | 'bootstrap';
}

export interface SystemRow {
  rank: number;
  system: string;
  dir: string;
  /** The paper's method (the run's manifest says so) and the evidence source it used: the report's paper row. */
  reference: boolean;
  source: string | null;
  status: string | null;
  /** Items in the run's items.jsonl. */
  items: number;
  scored: number;
  failed: number;
  unscored: number;
  /** Questions other runs of the family have and this one lacks. */
  missing: number;
  by_type: Record<string, Cell | null>;
  columns: Record<string, Cell | null>;
}

export interface PairRow {
  system_a: string;
  system_b: string;
  /** Questions scored in both (the pairing). */
  n: number;
  /** Questions scored in only one of the two, left out of the pairing. */
  excluded: number;
  /** Headline difference A − B (the benchmark's aggregation) on the paired questions. */
  delta: number;
  ci_low: number;
  ci_high: number;
  /** Paired p-value of Δ: exact sign-flip over all sign patterns (few non-zero differences) or bootstrap. */
  p_bootstrap: number;
  p_method: 'sign-flip' | 'bootstrap';
  /** p_bootstrap is the bootstrap floor 1/(B+1): the p-value is below it. */
  p_bootstrap_bound: boolean;
  /** Discordant counts on binarised outcomes: b = A right, B wrong; c = A wrong, B right. */
  mcnemar_b: number;
  mcnemar_c: number;
  p_mcnemar: number;
  /** log10 of p_mcnemar, exact where p underflows to 0. */
  log10_p_mcnemar: number;
  /** Holm-adjusted McNemar p within the family (the primary test). */
  p_holm: number;
  log10_p_holm: number;
  p_bootstrap_holm: number;
  /** p_bootstrap_holm is an upper bound (it comes from a p at the bootstrap floor). */
  p_bootstrap_holm_bound: boolean;
}

export interface OmnibusRow {
  systems: string[];
  n: number;
  q: number;
  df: number;
  p: number;
}

export interface CoverageRow {
  system: string;
  /** Questions with known coverage (gold evidence, not failed). */
  n: number;
  coverage: number | null;
  coverage_ci_low: number | null;
  coverage_ci_high: number | null;
  /** Covered questions that were scored (utilization's denominator). */
  covered_scored: number;
  utilization: number | null;
  utilization_ci_low: number | null;
  utilization_ci_high: number | null;
  utilization_ci_method: 'wilson' | 'bootstrap' | null;
  /** Memory systems: mean pollution rate over the questions that have one (null: none), and how many. */
  pollution?: number | null;
  pollution_n?: number;
}

export interface CoveragePairRow {
  measure: 'coverage' | 'utilization';
  system_a: string;
  system_b: string;
  n: number;
  delta: number | null;
  ci_low: number | null;
  ci_high: number | null;
  p_bootstrap: number | null;
  p_method: 'sign-flip' | 'bootstrap' | null;
  p_bootstrap_bound: boolean;
  p_holm: number | null;
}

export interface AgreementRow {
  system: string;
  /** Items with the modal number of judge votes. */
  n: number;
  raters: number;
  kappa: number | null;
  observed: number | null;
  expected: number | null;
  /** Items left out: no votes, or a different number of votes. */
  excluded: number;
  /** Judge variance tested: each judge run's accuracy over the same items (votes >= 0.5 count), Wilson 95% CI. */
  replicates: Array<{ run: number; accuracy: number; ci_low: number; ci_high: number }>;
  /** Cochran's Q across the judge runs (H0: every run has the same accuracy); null with fewer than 2 runs or items. */
  replicate_q: { q: number; df: number; p: number } | null;
}

export interface FamilyProblems {
  /** Per system: question ids present in another run of the family but not in this one. */
  missing: Record<string, string[]>;
  /** Per system: ids of failed items (error recorded). */
  failed: Record<string, string[]>;
  /** Per system: ids present but not scored (no judge). */
  unscored: Record<string, string[]>;
  /** Ids whose type differs between runs (the first run's type is used). */
  type_conflicts: string[];
  notes: string[];
}

export interface FamilyReport {
  benchmark: string;
  setting: string;
  /** The judge model of the family's scored runs (null when no run states it). */
  judge: string | null;
  aggregation: { overall: string; note: string; columns: string[] };
  questions: number;
  /** Questions of headline types (what the tests and Cochran's Q can use). */
  headline_questions: number;
  types: string[];
  baseline: string | null;
  mode: 'baseline' | 'all-pairs';
  leaderboard: SystemRow[];
  pairwise: PairRow[];
  omnibus: OmnibusRow | null;
  coverage: CoverageRow[];
  coverage_pairwise: CoveragePairRow[];
  agreement: AgreementRow[];
  /** `--epochs N` runs: accuracy between the reader's answers beside between the judge's runs (absent without epochs). */
  epochs?: EpochRow[];
  problems: FamilyProblems;
}

export interface StatsReport {
  format: 'rawrag.stats/1';
  options: { resamples: number; seed: number | string; baseline: string | null; all_pairs: boolean; confidence: number };
  runs: Array<{ dir: string; system: string; benchmark: string; setting: string; status: string | null; items: number; notes: string[] }>;
  /** Folders not used, and why (no manifest.json, no items, a duplicate of another run). */
  skipped: SkippedDir[];
  families: FamilyReport[];
}

/** A run of a family under the name its tables give it. */
export interface SystemRun {
  name: string;
  run: LoadedRun;
  /** Items after the benchmark's cross-item rule (if any): what is scored and tested. */
  byId: Map<string, StatItem>;
}
