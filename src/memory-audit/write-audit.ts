/**
 * `rawrag memory audit`: the paper's write-decision table for one decision log (a run's own, or
 * one imported in the documented format, src/core/write-decisions.ts): the distribution of
 * proposed operations, the proposed vs effective mutation rate, the share of repeated / malformed
 * / no-op proposals, and per episode the two rates with median and mean over episodes (percentile
 * bootstrap CIs over episodes, seeded).
 */
import { classifyDecisions, OPERATIONS, type ClassifiedDecision, type Operation, type WriteDecision } from '../core/write-decisions.js';
import { paperFigures } from '../benchmarks/paper-figures.js';
import { Xoshiro128 } from '../stats/rng.js';
import { markdownTable, pct } from '../util/table.js';
import { quantileSorted } from '../util/quantile.js';

export interface Interval {
  value: number;
  ci_low: number;
  ci_high: number;
}

export interface EpisodeAudit {
  episode: string;
  decisions: number;
  operations: Record<Operation, number>;
  proposed_mutation_rate: number;
  effective_mutation_rate: number;
}

export interface WriteAudit {
  source: string;
  benchmark: string | null;
  system: string | null;
  decisions: number;
  episodes: number;
  /** Proposed operations. */
  operations: Record<Operation, number>;
  /** Operations the system carried out, when it differs from the proposal (add-only: UPDATE -> ADD). */
  applied: Record<Operation, number>;
  proposed_mutations: number;
  effective_mutations: { UPDATE: number; DELETE: number; total: number };
  classes: { repeated: number; malformed: number; 'no-op': number };
  proposed_mutation_rate: number;
  effective_mutation_rate: number;
  per_episode: {
    proposed: { median: Interval; mean: Interval };
    effective: { median: Interval; mean: Interval };
  };
  episodes_table: EpisodeAudit[];
  /** The paper's figures for Mem0 on this benchmark, when it reports them. */
  paper?: PaperAudit;
}

export interface PaperAudit {
  system: string;
  decisions: number;
  operations: Partial<Record<Operation, number>>;
  /** The counts the paper gives beside the shares (LoCoMo: UPDATE 1,148, DELETE 341). */
  counts?: Partial<Record<Operation, number>>;
  proposed_mutation_rate: number;
  effective_mutation_rate: number;
  per_episode_proposed_median: number;
  /** Where in the paper the figures come from. */
  source: string;
}

/** The paper's audit of Mem0 (its Claim and Diagnostics sections), as fractions: configs/paper/figures.json. */
export const PAPER_AUDITS: Record<string, PaperAudit> = paperFigures().audits;

const zeroOps = (): Record<Operation, number> => ({ ADD: 0, UPDATE: 0, DELETE: 0, NONE: 0 });
const isMutation = (op: Operation) => op === 'UPDATE' || op === 'DELETE';

export function auditDecisions(
  decisions: readonly WriteDecision[],
  meta: { source: string; benchmark: string | null; system: string | null },
  opts: { resamples?: number; seed?: number | string } = {},
): WriteAudit {
  const c = classifyDecisions(decisions);
  const operations = zeroOps();
  const applied = zeroOps();
  const classes = { repeated: 0, malformed: 0, 'no-op': 0 };
  const effective = { UPDATE: 0, DELETE: 0, total: 0 };
  const byEpisode = new Map<string, ClassifiedDecision[]>();
  for (const d of c) {
    operations[d.operation]++;
    applied[d.applied ?? d.operation]++;
    if (d.class !== 'ok') classes[d.class]++;
    if (d.effectiveMutation) {
      effective[d.operation as 'UPDATE' | 'DELETE']++;
      effective.total++;
    }
    byEpisode.set(d.episode, [...(byEpisode.get(d.episode) ?? []), d]);
  }
  const episodes_table: EpisodeAudit[] = [...byEpisode.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([episode, ds]) => {
      const ops = zeroOps();
      for (const d of ds) ops[d.operation]++;
      return {
        episode,
        decisions: ds.length,
        operations: ops,
        proposed_mutation_rate: ds.filter((d) => isMutation(d.operation)).length / ds.length,
        effective_mutation_rate: ds.filter((d) => d.effectiveMutation).length / ds.length,
      };
    });
  const n = c.length;
  const resamples = opts.resamples ?? 2000;
  const seed = opts.seed ?? 0;
  const rates = (key: 'proposed_mutation_rate' | 'effective_mutation_rate') => episodes_table.map((e) => e[key]);
  const audit: WriteAudit = {
    ...meta,
    decisions: n,
    episodes: episodes_table.length,
    operations,
    applied,
    proposed_mutations: operations.UPDATE + operations.DELETE,
    effective_mutations: effective,
    classes,
    proposed_mutation_rate: n ? (operations.UPDATE + operations.DELETE) / n : 0,
    effective_mutation_rate: n ? effective.total / n : 0,
    per_episode: {
      proposed: {
        median: bootstrap(rates('proposed_mutation_rate'), median, resamples, `${seed}:pm`),
        mean: bootstrap(rates('proposed_mutation_rate'), mean, resamples, `${seed}:pa`),
      },
      effective: {
        median: bootstrap(rates('effective_mutation_rate'), median, resamples, `${seed}:em`),
        mean: bootstrap(rates('effective_mutation_rate'), mean, resamples, `${seed}:ea`),
      },
    },
    episodes_table,
  };
  const paper = meta.benchmark ? PAPER_AUDITS[meta.benchmark] : undefined;
  if (paper) audit.paper = paper;
  return audit;
}

function mean(xs: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return xs.length ? s / xs.length : 0;
}

function median(xs: ArrayLike<number>): number {
  const s = Float64Array.from(xs).sort();
  if (s.length === 0) return 0;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Percentile bootstrap over episodes (95 %). */
function bootstrap(xs: number[], stat: (x: ArrayLike<number>) => number, resamples: number, seed: string): Interval {
  const value = stat(xs);
  if (xs.length < 2) return { value, ci_low: value, ci_high: value };
  const rng = new Xoshiro128(seed);
  const reps = new Float64Array(resamples);
  const draw = new Float64Array(xs.length);
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < xs.length; i++) draw[i] = xs[Math.floor((rng.nextU32() / 4294967296) * xs.length)]!;
    reps[b] = stat(draw);
  }
  reps.sort();
  const at = (q: number) => quantileSorted(reps, q, 'lower');
  return { value, ci_low: at(0.025), ci_high: at(0.975) };
}

const ci = (i: Interval) => `${pct(i.value)} [${pct(i.ci_low)}, ${pct(i.ci_high)}]`;

/** The audit as Markdown: the decision table (with the paper's Mem0 row beside), rates, and the per-episode table. */
export function renderAudit(a: WriteAudit, opts: { episodes?: boolean } = {}): string {
  const title = `Write-decision audit — ${[a.system, a.benchmark].filter(Boolean).join(' on ') || a.source} (${a.source})`;
  const share = (k: number) => (a.decisions ? pct(k / a.decisions) : '—');
  const rows: Array<Array<string | number>> = [
    [
      a.system ?? 'this log',
      a.decisions,
      ...OPERATIONS.map((op) => share(a.operations[op])),
      pct(a.proposed_mutation_rate),
      pct(a.effective_mutation_rate),
      ci(a.per_episode.proposed.median),
      ci(a.per_episode.effective.mean),
    ],
  ];
  if (a.paper)
    rows.push([
      a.paper.system,
      a.paper.decisions,
      ...OPERATIONS.map((op) => (a.paper!.operations[op] === undefined ? '—' : pct(a.paper!.operations[op]))),
      pct(a.paper.proposed_mutation_rate),
      pct(a.paper.effective_mutation_rate),
      pct(a.paper.per_episode_proposed_median),
      pct(a.paper.effective_mutation_rate),
    ]);
  const lines = [
    title,
    '',
    markdownTable(
      [
        'system',
        'decisions',
        'ADD %',
        'UPDATE %',
        'DELETE %',
        'NONE %',
        'proposed mutation %',
        'effective mutation %',
        'per-episode proposed median % [95% CI]',
        'per-episode effective mean % [95% CI]',
      ],
      rows,
    ),
    '',
    `${a.episodes} episodes; proposed UPDATE ${a.operations.UPDATE}, DELETE ${a.operations.DELETE}; effective UPDATE ${a.effective_mutations.UPDATE}, DELETE ${a.effective_mutations.DELETE}`,
    `not effective: ${a.classes.repeated} repeated (${share(a.classes.repeated)} %), ${a.classes.malformed} malformed (${share(a.classes.malformed)} %), ${a.classes['no-op']} no-op (${share(a.classes['no-op'])} %) of all decisions`,
    `applied: ${OPERATIONS.map((op) => `${op} ${a.applied[op]}`).join(', ')}` +
      (a.applied.ADD > a.operations.ADD
        ? ` (${a.applied.ADD - a.operations.ADD} proposals carried out as ADD: add-only or no target)`
        : ''),
    `per-episode proposed mutation rate: median ${ci(a.per_episode.proposed.median)}, mean ${ci(a.per_episode.proposed.mean)}; effective: median ${ci(a.per_episode.effective.median)}, mean ${ci(a.per_episode.effective.mean)}`,
  ];
  if (opts.episodes !== false) {
    lines.push(
      '',
      markdownTable(
        ['episode', 'decisions', 'ADD', 'UPDATE', 'DELETE', 'NONE', 'proposed mutation %', 'effective mutation %'],
        a.episodes_table.map((e) => [
          e.episode,
          e.decisions,
          ...OPERATIONS.map((op) => e.operations[op]),
          pct(e.proposed_mutation_rate),
          pct(e.effective_mutation_rate),
        ]),
      ),
    );
  }
  return lines.join('\n');
}
