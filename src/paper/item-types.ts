/**
 * What an item of the reproduction map is (src/paper/items.ts): its section, the paper's figure,
 * the command that regenerates it, the steps `rawrag paper --run` takes and the run it is read from.
 */
import type { SettingSpec } from '../core/comparability.js';
import type { Figure } from './figures.js';

export type PaperSection =
  | 'main results'
  | 'retriever'
  | 'weak spots'
  | 'ablations'
  | 'prior weak baselines'
  | 'memory-management add-ons'
  | 'motivation audit'
  | 'efficiency'
  | 'evidence length'
  | 'coverage x utilization'
  | 'result vs path'
  | 'complete-store oracle'
  | 'phase-visible oracle'
  | 'evidence controls'
  | 'judge variance';

/** The section names `--only` accepts, in the map's order. */
export const PAPER_SECTIONS: readonly PaperSection[] = [
  'main results',
  'retriever',
  'weak spots',
  'ablations',
  'prior weak baselines',
  'memory-management add-ons',
  'motivation audit',
  'efficiency',
  'evidence length',
  'coverage x utilization',
  'result vs path',
  'complete-store oracle',
  'phase-visible oracle',
  'evidence controls',
  'judge variance',
];

/**
 * One command `rawrag paper --run` runs for an item: `rawrag <command> <args> --out results/<out>`.
 * Items that need the same run share the step (the same `out`), so it runs once.
 */
export interface PaperStep {
  command: 'run' | 'ablate';
  args: readonly string[];
  /** The run directory (or ablation folder), relative to results/. */
  out: string;
  /** What the step needs that rawrag cannot provide itself (a running service, another run's store): skipped, and said why. */
  needs?: string;
}

export interface PaperItem {
  id: string;
  section: PaperSection;
  title: string;
  /** The paper's figure(s), as text. */
  paper: string;
  /** The paper's main figure in the item's unit, for the side-by-side. */
  paperValue?: number;
  /**
   * How close rawrag's figure must come where no 95 % interval applies (a wall time, a token count,
   * a share without per-question outcomes): `abs` in the item's unit, or `rel` a fraction of the paper's figure.
   */
  tolerance?: { abs?: number; rel?: number };
  /** The paper's figure is a bound, not a point (`all within 1.3 points`): rawrag's must not exceed it. */
  bound?: 'at most';
  /** The paper gives a range (`4,000-12,000 tokens`): rawrag's figure must lie in it. */
  range?: [number, number];
  /** The command (or config) that regenerates it, as shown; null = rawrag cannot (said in `note`). */
  command: string | null;
  note?: string;
  /** What `rawrag paper --run` runs for it (absent: nothing it can run on its own, `note` says why). */
  steps?: readonly PaperStep[];
  /** A figure read from one run directory: the setting that reproduces it and the figure. */
  run?: {
    spec: SettingSpec;
    figure: Figure;
    /** For differences: the run it is paired against (`rawrag stats`'s paired bootstrap, the benchmark's aggregation). */
    against?: SettingSpec;
    /** The figure is shown beside the same figure of the `against` run (e.g. RAW-RAG's TTL beside an add-on's). */
    againstFigure?: boolean;
    /** The paper's figure is the paired difference against `against` (an add-on's -19.62), not the run's own level. */
    compare?: 'delta';
  };
  /** Variants of an ablation folder (ablation.json): the reference variant's setting, and which variants hold the item. */
  ablation?: {
    spec: SettingSpec;
    variants: (name: string) => boolean;
    /** The item is the variant's own accuracy (a prior baseline's 30.20), not its difference from the reference. */
    absolute?: boolean;
    /** The item measures the delta of questions whose evidence did not change: their answers must be re-read and re-judged (--rejudge-unchanged). */
    rejudgeUnchanged?: boolean;
  };
}
