/**
 * The ablation table: each variant against the reference, paired per question. The compared
 * figure is the benchmark's headline when answers were judged (its own aggregation: MEME's
 * before/after rule and macro, MemoryAgentBench's competency macro, ...), else coverage (all gold
 * evidence turns shown), the paper's main diagnostic. The figures come from `rawrag stats`'s own
 * computation over the variants (one family, the reference as baseline), so the two commands
 * report the same Δ, interval and Holm-adjusted p for the same folders.
 */
import { judgeVotes, type ItemRecord } from '../core/item.js';
import { evidenceDigest } from './reuse.js';
import { getBenchmark } from '../benchmarks/registry.js';
import { analyse, type FamilyReport } from '../stats/compute-tables.js';
import { toStatItem, type LoadedRun } from '../stats/load.js';
import type { VariantOutcome } from './types.js';

export type AblationMetric = 'accuracy' | 'coverage';

export interface AblationRow {
  variant: string;
  system: string;
  dir: string;
  is_default: boolean;
  window: number;
  stride: number;
  candidates: number;
  k: number;
  rerank: boolean;
  expand: boolean;
  /** The system knob values that differ from the reference (`items=3,dedup=0.8`); '' when none. */
  config: string;
  questions: number;
  errors: number;
  /** Share of questions with gold evidence whose every gold turn was shown. */
  coverage: number | null;
  /** Mean judged score; null when nothing was judged. */
  accuracy: number | null;
  /** Questions paired with the reference (both have a value for the compared metric). */
  paired: number;
  /** Variant minus reference, as a fraction (0.0123 = +1.23 points). */
  delta: number | null;
  ci_low: number | null;
  ci_high: number | null;
  p: number | null;
  p_holm: number | null;
  evidence_tokens: number | null;
  /**
   * Summed work charged to the variant (load, ingest, search, rerank, reader/judge; per-question
   * times add up over questions in flight at once, so this can exceed any wall time).
   */
  work_s: number;
  /** The variant's own wall-clock time when it ran as a plain run (memory.* sweeps); null when variants share one sweep. */
  wall_s: number | null;
  /** Questions (paired, both scored) whose evidence is exactly the reference's, and how many were compared. */
  unchanged: number | null;
  compared: number | null;
  /**
   * The part of the (micro-averaged) delta that comes from questions whose evidence did not change:
   * judge re-scoring of the same evidence, i.e. noise (the paper's 5k-control caveat). Fraction.
   */
  delta_unchanged: number | null;
  /** The micro-averaged delta over the same questions (the headline may be a macro), for scale. */
  delta_micro: number | null;
  /**
   * An earlier variant (or the reference) that showed exactly this variant's evidence for every
   * question: the sweep changed nothing here (e.g. windows on data chunked one fact per chunk). null otherwise.
   */
  identical_to: string | null;
}

export interface AblationTable {
  metric: AblationMetric;
  /** Unchanged evidence was read and judged again (`--rejudge-unchanged`): `delta_unchanged` measures judge noise, not a reuse. */
  rejudged: boolean;
  resamples: number;
  seed: number;
  rows: AblationRow[];
}

export function analyseAblation(outcomes: VariantOutcome[], opts: { resamples: number; seed: number; rejudged?: boolean }): AblationTable {
  const metric: AblationMetric = outcomes.some((o) => o.summary.overall.scored > 0) ? 'accuracy' : 'coverage';
  const ref = outcomes.find((o) => o.variant.isDefault);
  if (!ref) throw new Error('ablation without its reference variant');
  const refSystem = ref.manifest.system;
  const family = statsFamily(outcomes, refSystem, opts);
  const rows: AblationRow[] = outcomes.map((o) => {
    const v = o.variant;
    const headline = family?.leaderboard.find((r) => r.system === o.manifest.system)?.columns.overall;
    const row: AblationRow = {
      variant: v.name,
      system: o.manifest.system,
      dir: o.dir,
      is_default: v.isDefault,
      window: v.window.size,
      stride: v.window.stride,
      candidates: v.candidates,
      k: v.k,
      rerank: v.rerank,
      expand: v.expand,
      config: v.configName,
      questions: o.summary.n,
      errors: o.summary.errors,
      coverage: o.summary.overall.coverage.all,
      accuracy: headline ? headline.accuracy : o.summary.overall.accuracy,
      paired: 0,
      delta: null,
      ci_low: null,
      ci_high: null,
      p: null,
      p_holm: null,
      evidence_tokens: o.summary.evidence_tokens_mean,
      work_s: (o.manifest.timings.work_ms ?? o.manifest.timings.total_ms ?? 0) / 1000,
      wall_s: typeof o.manifest.timings.wall_ms === 'number' ? o.manifest.timings.wall_ms / 1000 : null,
      unchanged: null,
      compared: null,
      delta_unchanged: null,
      delta_micro: null,
      identical_to: identicalTo(o, outcomes),
    };
    if (!v.isDefault && metric === 'accuracy') Object.assign(row, unchangedShare(o.items, ref.items));
    if (v.isDefault || !family) return row;
    const sys = o.manifest.system;
    if (metric === 'accuracy') {
      const pair = family.pairwise.find(
        (p) => (p.system_a === sys && p.system_b === refSystem) || (p.system_a === refSystem && p.system_b === sys),
      );
      if (pair) {
        const flip = pair.system_a !== sys;
        Object.assign(row, {
          paired: pair.n,
          delta: flip ? -pair.delta : pair.delta,
          ci_low: flip ? -pair.ci_high : pair.ci_low,
          ci_high: flip ? -pair.ci_low : pair.ci_high,
          p: pair.p_bootstrap,
          p_holm: pair.p_bootstrap_holm,
        });
      }
    } else {
      const pair = family.coverage_pairwise.find(
        (p) =>
          p.measure === 'coverage' &&
          ((p.system_a === sys && p.system_b === refSystem) || (p.system_a === refSystem && p.system_b === sys)),
      );
      if (pair && pair.delta !== null) {
        const flip = pair.system_a !== sys;
        Object.assign(row, {
          paired: pair.n,
          delta: flip ? -pair.delta : pair.delta,
          ci_low: flip ? -(pair.ci_high ?? 0) : pair.ci_low,
          ci_high: flip ? -(pair.ci_low ?? 0) : pair.ci_high,
          p: pair.p_bootstrap,
          p_holm: pair.p_holm,
        });
      }
    }
    return row;
  });
  return { metric, rejudged: opts.rejudged === true, resamples: opts.resamples, seed: opts.seed, rows };
}

/** The first variant before `o` (the reference first) whose evidence equals o's for every question; null when none or o is the reference. */
function identicalTo(o: VariantOutcome, outcomes: VariantOutcome[]): string | null {
  if (o.variant.isDefault || o.items.length === 0) return null;
  const digests = (x: VariantOutcome) => new Map(x.items.filter((i) => !i.error).map((i) => [i.id, evidenceDigest(i)]));
  const mine = digests(o);
  const earlier = [
    outcomes.find((x) => x.variant.isDefault)!,
    ...outcomes.slice(0, outcomes.indexOf(o)).filter((x) => !x.variant.isDefault),
  ];
  for (const p of earlier) {
    if (!p || p.items.length === 0) continue;
    const theirs = digests(p);
    if (theirs.size === mine.size && mine.size > 0 && [...mine].every(([id, d]) => theirs.get(id) === d)) return p.variant.name;
  }
  return null;
}

/**
 * Splits a variant's micro delta against the reference by whether the question's evidence changed:
 * over questions scored in both, Σ(score_v - score_ref) / n for the questions with identical
 * evidence (what a re-judged, unchanged prompt moved) beside the same sum over all of them.
 */
export function unchangedShare(
  variant: ItemRecord[],
  reference: ItemRecord[],
): Pick<AblationRow, 'unchanged' | 'compared' | 'delta_unchanged' | 'delta_micro'> {
  const refById = new Map(reference.map((i) => [i.id, i]));
  let n = 0;
  let unchanged = 0;
  let sumAll = 0;
  let sumUnchanged = 0;
  for (const i of variant) {
    const r = refById.get(i.id);
    if (!r || i.error || r.error || i.score === null || r.score === null) continue;
    n++;
    const d = i.score - r.score;
    sumAll += d;
    if (evidenceDigest(i) === evidenceDigest(r)) {
      unchanged++;
      sumUnchanged += d;
    }
  }
  if (n === 0) return { unchanged: null, compared: null, delta_unchanged: null, delta_micro: null };
  return { unchanged, compared: n, delta_unchanged: sumUnchanged / n, delta_micro: sumAll / n };
}

/** The variants as `rawrag stats` sees them: one family, the reference as baseline. */
function statsFamily(outcomes: VariantOutcome[], baseline: string, opts: { resamples: number; seed: number }): FamilyReport | null {
  const runs: LoadedRun[] = outcomes.map((o) => ({
    dir: o.dir,
    label: o.variant.name,
    system: o.manifest.system,
    reference: o.manifest.reference === true,
    source: o.manifest.retriever?.name ?? null,
    benchmark: o.manifest.benchmark,
    setting: o.manifest.setting,
    status: o.manifest.status,
    items: o.items.map((i) =>
      toStatItem({ ...i, votes: judgeVotes(i), error: i.error ? `${i.error.stage}: ${i.error.message}` : null, meta: i.meta ?? null }),
    ),
    notes: [],
    judge: o.summary.overall.scored > 0 ? o.manifest.config.judge.model : null,
    configHash: o.manifest.config_hash,
  }));
  const report = analyse(runs, {
    resamples: opts.resamples,
    seed: opts.seed,
    baseline,
    allPairs: false,
    typeOrder: (b) => getBenchmark(b).typeOrder,
    aggregation: (b) => getBenchmark(b).aggregation,
  });
  return (
    report.families.find((f) => f.leaderboard.some((r) => r.system === baseline) || f.coverage.some((r) => r.system === baseline)) ?? null
  );
}
