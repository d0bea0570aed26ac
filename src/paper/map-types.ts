/**
 * What `rawrag paper` prints (src/paper/map.ts): each item's entry, its status and the condition
 * that decides it, the figure check, other runs and swept variants.
 */
import type { Condition } from '../core/comparability.js';
import type { Unit } from './figures.js';

/**
 * `reproduced` is earned: the same data (the release's sha256 and all its questions), the whole
 * split, the same system, the same setting (reader, retriever, judge protocol, display, method,
 * the benchmark's protocol options) and a figure within the paper's uncertainty. Anything else
 * names the first condition that fails.
 */
export type PaperStatus =
  'reproduced' | 'figure differs' | 'other data' | 'other system' | 'other setting' | 'partial' | 'runnable' | 'not in rawrag';

/** The comparability condition an item fails (null: reproduced, or nothing run). */
export type PaperCondition = Condition | 'figure';

/** rawrag's figure against the paper's: the difference, rawrag's interval, and whether the paper's figure lies within it. */
export interface FigureCheck {
  paper: number;
  rawrag: number;
  /** rawrag minus the paper, in the item's unit. */
  difference: number;
  /** rawrag's 95 % interval (null where none applies: the tolerance decides). */
  ci_low: number | null;
  ci_high: number | null;
  /** How the two were compared: `needs the paper's figure inside rawrag's 95 % CI`, `needs rawrag's figure within the item's tolerance ±5 % of the paper's`, a bound or a range. */
  rule: string;
  within: boolean;
}

/** A run (or ablation folder) related to an item that does not reproduce it, with its label. */
export interface OtherRun {
  run: string;
  /** `partial (200 of 1,540)`, `other setting (gold=audited)`, `incomplete (interrupted: 120 of 1,540 done)`. */
  label: string;
  rawrag: number | null;
  text: string | null;
  /** Its figure against the paper's (interval and difference), though it does not reproduce the item. */
  figure: FigureCheck | null;
}

/** One variant of a swept item (an ablation folder's row), in points. */
export interface VariantFigure {
  variant: string;
  /** What the ablation compared: judged accuracy, or coverage when no reader was set. Never mixed. */
  measure: 'accuracy' | 'coverage';
  /** Variant minus reference, points (the ablation's paired bootstrap, `rawrag stats`'s computation). */
  delta: number | null;
  ci_low: number | null;
  ci_high: number | null;
  n: number;
  /** The variant's own accuracy and coverage, percent. */
  accuracy: number | null;
  coverage: number | null;
  /** Questions whose evidence equals the reference's and the delta they carry (micro, points), and whether they were re-judged. */
  unchanged: { questions: number; of: number; delta: number; delta_micro: number; rejudged: boolean } | null;
  run: string;
}

export interface PaperEntry {
  id: string;
  section: string;
  title: string;
  paper: string;
  paper_value: number | null;
  /** What rawrag's figure is (`accuracy % (six-task macro)`, `Δ accuracy (points)`, `add + search (wall time)`). */
  measure: string;
  unit: Unit;
  command: string | null;
  note: string | null;
  status: PaperStatus;
  /** Which comparability condition fails (data, system, setting, split, figure); null when reproduced or nothing ran. */
  condition: PaperCondition | null;
  /** Why it is not reproduced, in words (`other data (233 questions, not the release's 1,540)`, `figure differs: 56.84 vs 89.07 …`). */
  why: string | null;
  /** The shown run's figure against the paper's: the difference, rawrag's interval, the rule. */
  figure: FigureCheck | null;
  /** rawrag's figure from the item's run (a complete run of its setting: reproduced, its figure differs, or the paper names no data); null otherwise. */
  rawrag: number | null;
  /** Words beside the figure (each judge run's accuracy, the reader used, RAW-RAG's figure beside an add-on's). */
  text: string | null;
  /** The run directory (or ablation folder) that reproduces it. */
  run: string | null;
  /** For differences: the paired delta (points, the benchmark's aggregation) and its 95% CI. */
  delta: { against: string; n: number; delta: number; ci_low: number; ci_high: number } | null;
  /** Coverage beside the figure, in its own column: the run's coverage all %, or an ablation variant's Δ coverage (points). */
  coverage: number | null;
  coverage_measure: string | null;
  /** Ablation items: every variant the item covers. */
  variants: VariantFigure[];
  /** Related runs that do not reproduce it (partial, other settings), best first. */
  others: OtherRun[];
  /** Every related run directory or ablation folder found. */
  runs: string[];
}

export interface PaperMap {
  searched: string[];
  entries: PaperEntry[];
  /** Run directories the run record refused (corrupt, unknown version): left out, with why. */
  unreadable: Array<{ dir: string; error: string }>;
}

export interface Found {
  status: PaperStatus;
  condition?: PaperCondition | null;
  why?: string | null;
  figure?: FigureCheck | null;
  measure?: string;
  rawrag: number | null;
  text: string | null;
  run: string | null;
  delta: PaperEntry['delta'];
  coverage: number | null;
  coverage_measure: string | null;
  variants: VariantFigure[];
  others: OtherRun[];
  runs: string[];
}
