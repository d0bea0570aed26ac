/**
 * The ablation table: each variant against the reference, paired per question. The compared
 * figure is accuracy when answers were judged, else coverage (all gold evidence turns shown),
 * the paper's main diagnostic. Differences carry a paired-bootstrap 95% interval; p-values are
 * Holm-adjusted over the family of variants.
 */
import { holm, pairedBootstrap } from '../stats/index.js';
import type { ItemRecord } from '../datasets/item.js';
import type { VariantOutcome } from './engine.js';

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
  time_s: number;
}

export interface AblationTable {
  metric: AblationMetric;
  resamples: number;
  seed: number;
  rows: AblationRow[];
}

export function analyseAblation(outcomes: VariantOutcome[], opts: { resamples: number; seed: number }): AblationTable {
  const metric: AblationMetric = outcomes.some((o) => o.summary.overall.scored > 0) ? 'accuracy' : 'coverage';
  const ref = outcomes.find((o) => o.variant.isDefault);
  if (!ref) throw new Error('ablation without its reference variant');
  const refValues = valuesById(ref.items, metric);
  const rows: AblationRow[] = outcomes.map((o) => {
    const v = o.variant;
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
      questions: o.summary.n,
      errors: o.summary.errors,
      coverage: o.summary.overall.coverage.all,
      accuracy: o.summary.overall.accuracy,
      paired: 0,
      delta: null,
      ci_low: null,
      ci_high: null,
      p: null,
      p_holm: null,
      evidence_tokens: o.summary.evidence_tokens_mean,
      time_s: (o.manifest.timings.total_ms ?? 0) / 1000,
    };
    if (v.isDefault) return row;
    const mine = valuesById(o.items, metric);
    const a: number[] = [];
    const b: number[] = [];
    // Pairs in the reference's order, so the same runs always resample the same way.
    for (const [id, refValue] of refValues) {
      const x = mine.get(id);
      if (x === undefined) continue;
      a.push(x);
      b.push(refValue);
    }
    row.paired = a.length;
    if (a.length > 0) {
      const r = pairedBootstrap(a, b, { resamples: opts.resamples, seed: opts.seed });
      Object.assign(row, { delta: r.delta, ci_low: r.ciLow, ci_high: r.ciHigh, p: r.p });
    }
    return row;
  });
  const tested = rows.filter((r) => r.p !== null);
  const adjusted = holm(tested.map((r) => r.p!));
  tested.forEach((r, i) => (r.p_holm = adjusted[i]!));
  return { metric, resamples: opts.resamples, seed: opts.seed, rows };
}

/** Per-question value of the compared metric; questions without one (errors, no gold evidence) are left out. */
function valuesById(items: ItemRecord[], metric: AblationMetric): Map<string, number> {
  const out = new Map<string, number>();
  for (const i of items) {
    if (i.error) continue;
    if (metric === 'accuracy') {
      if (i.score !== null) out.set(i.id, i.score);
    } else if (i.coverage !== null) out.set(i.id, i.coverage.all ? 1 : 0);
  }
  return out;
}
