/** Hypothesis tests on paired binary outcomes: exact McNemar, Cochran's Q, Holm's correction. */
import { chiSquareSf } from './gamma.js';

/**
 * Exact two-sided McNemar test (statsmodels `mcnemar(exact=True)`): b and c are the discordant
 * counts. p = min(1, 2 · P(Bin(b+c, 1/2) ≤ min(b, c))), from its logarithm (below).
 */
export function mcnemarExact(b: number, c: number): number {
  return Math.min(1, Math.exp(Math.LN10 * mcnemarExactLog10(b, c, 'mcnemarExact')));
}

/**
 * log10 of the exact McNemar p-value. The binomial sum runs in log space with a running maximum,
 * so thousands of discordant pairs neither underflow nor overflow, and p-values below the
 * smallest double (0 vs 1,171 discordant pairs: p ≈ 1e-352) stay exact as logarithms.
 */
export function mcnemarExactLog10(b: number, c: number, caller = 'mcnemarExactLog10'): number {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) {
    throw new RangeError(`${caller}: counts must be non-negative integers (got ${b}, ${c})`);
  }
  const n = b + c;
  const k = Math.min(b, c);
  if (n === 0) return 0;
  // sum = exp(logMax) · acc, where the terms are C(n, i) / 2^n for i = 0..k.
  let logTerm = -n * Math.LN2;
  let logMax = logTerm;
  let acc = 1;
  for (let i = 0; i < k; i++) {
    logTerm += Math.log((n - i) / (i + 1));
    if (logTerm > logMax) {
      acc = acc * Math.exp(logMax - logTerm) + 1;
      logMax = logTerm;
    } else {
      acc += Math.exp(logTerm - logMax);
    }
  }
  return Math.min(0, (Math.LN2 + logMax + Math.log(acc)) / Math.LN10);
}

/** Holm-adjusted p-values on the log10 scale (same step-down rule as `holm`), for p-values that underflow. */
export function holmLog10(log10p: number[]): number[] {
  const m = log10p.length;
  const order = log10p.map((_, i) => i).sort((x, y) => log10p[x]! - log10p[y]! || x - y);
  const adjusted = new Array<number>(m);
  let running = -Infinity;
  order.forEach((idx, rank) => {
    running = Math.max(running, Math.log10(m - rank) + log10p[idx]!);
    adjusted[idx] = Math.min(0, running);
  });
  return adjusted;
}

export interface CochranQ {
  q: number;
  df: number;
  p: number;
}

/**
 * Cochran's Q over an items × systems matrix of 0/1 outcomes (statsmodels `cochrans_q`).
 * Convention when every row is constant (the denominator is 0, numpy gives NaN): Q = 0, p = 1 —
 * no item separates the systems, so there is no evidence of a difference.
 */
export function cochranQ(matrix: number[][]): CochranQ {
  const k = matrix[0]?.length ?? 0;
  if (k < 2) throw new RangeError('cochranQ: need at least two systems (columns)');
  const colSums = new Array<number>(k).fill(0);
  let total = 0;
  let sumRowSq = 0;
  for (const [i, row] of matrix.entries()) {
    if (row.length !== k) throw new RangeError(`cochranQ: row ${i} has ${row.length} columns, expected ${k}`);
    let r = 0;
    for (let j = 0; j < k; j++) {
      const x = row[j]!;
      if (x !== 0 && x !== 1) throw new RangeError(`cochranQ: row ${i} column ${j} is ${x}, expected 0 or 1`);
      r += x;
      colSums[j]! += x;
    }
    total += r;
    sumRowSq += r * r;
  }
  const df = k - 1;
  const denominator = k * total - sumRowSq;
  if (denominator === 0) return { q: 0, df, p: 1 };
  const sumColSq = colSums.reduce((s, c) => s + c * c, 0);
  const q = ((k - 1) * (k * sumColSq - total * total)) / denominator;
  return { q, df, p: chiSquareSf(q, df) };
}

/**
 * Holm–Bonferroni step-down adjusted p-values, returned in input order: sorted ascending,
 * p̃(i) = min(1, max_{j ≤ i} (m − j + 1) p(j)). Ties get identical values through the running max.
 */
export function holm(pvalues: number[]): number[] {
  const m = pvalues.length;
  const order = pvalues.map((_, i) => i).sort((x, y) => pvalues[x]! - pvalues[y]! || x - y);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach((idx, rank) => {
    running = Math.max(running, (m - rank) * pvalues[idx]!);
    adjusted[idx] = Math.min(1, running);
  });
  return adjusted;
}

/** Holm on p-values some of which are upper bounds: an adjusted value is a bound when the p that sets it is. */
export function holmWithBounds(p: number[], bound: boolean[]): { adjusted: number[]; bound: boolean[] } {
  const m = p.length;
  const order = p.map((_, i) => i).sort((x, y) => p[x]! - p[y]! || x - y);
  const adjusted = new Array<number>(m);
  const isBound = new Array<boolean>(m);
  let running = 0;
  let runningBound = false;
  order.forEach((idx, rank) => {
    const v = (m - rank) * p[idx]!;
    if (v >= running) {
      running = v;
      runningBound = bound[idx]!;
    }
    adjusted[idx] = Math.min(1, running);
    isBound[idx] = runningBound && running < 1;
  });
  return { adjusted, bound: isBound };
}
