/**
 * Quantiles of ascending-sorted values, q in [0, 1], by the rule a figure is defined with:
 * - `linear`: numpy's default percentile (type 7), interpolating between order statistics;
 * - `nearest-rank`: the smallest value with at least q of the values at or below it (latencies' p50/p95);
 * - `lower`: the value at index floor(q·n), clamped (the write audit's bootstrap interval ends).
 * NaN for no values.
 */
export type QuantileRule = 'linear' | 'nearest-rank' | 'lower';

export function quantileSorted(sorted: ArrayLike<number>, q: number, rule: QuantileRule): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const clamp = (i: number) => Math.min(n - 1, Math.max(0, i));
  if (rule === 'nearest-rank') return sorted[clamp(Math.ceil(q * n) - 1)]!;
  if (rule === 'lower') return sorted[clamp(Math.floor(q * n))]!;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** The values sorted ascending (a copy). */
export const ascending = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);
