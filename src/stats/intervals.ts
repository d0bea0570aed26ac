/** Confidence intervals for one accuracy, and inter-rater agreement. */

/** Φ⁻¹(0.975): the 95% two-sided normal quantile. */
export const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/**
 * Wilson score interval for `successes` out of `n` (statsmodels `proportion_confint(method='wilson')`).
 * The bounds are exactly 0 at x = 0 and exactly 1 at x = n (the formula leaves ~1e-17 there).
 */
export function wilson(successes: number, n: number, z: number = Z95): Interval {
  if (!(n > 0)) throw new RangeError(`wilson: n must be positive (got ${n})`);
  if (successes < 0 || successes > n) throw new RangeError(`wilson: successes ${successes} outside [0, ${n}]`);
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return {
    low: successes === 0 ? 0 : Math.max(0, center - half),
    high: successes === n ? 1 : Math.min(1, center + half),
  };
}

export interface FleissKappa {
  kappa: number | null;
  /** Items rated. */
  n: number;
  /** Raters per item. */
  raters: number;
  /** Observed agreement P̄ and chance agreement P̄e. */
  observed: number | null;
  expected: number | null;
}

/**
 * Fleiss' kappa from an items × categories matrix of counts (row i, column j = how many raters put
 * item i in category j); every row must sum to the same number of raters (≥ 2). κ is null when it
 * is undefined: no items, or every rating falls in one category (chance agreement = 1).
 */
export function fleissKappa(counts: number[][]): FleissKappa {
  const n = counts.length;
  if (n === 0) return { kappa: null, n: 0, raters: 0, observed: null, expected: null };
  const raters = counts[0]!.reduce((s, x) => s + x, 0);
  if (raters < 2) throw new RangeError('fleissKappa: need at least two ratings per item');
  const categories = counts[0]!.length;
  const categoryTotals = new Array<number>(categories).fill(0);
  let agreementSum = 0;
  for (const [i, row] of counts.entries()) {
    if (row.length !== categories) throw new RangeError(`fleissKappa: row ${i} has ${row.length} categories, expected ${categories}`);
    const sum = row.reduce((s, x) => s + x, 0);
    if (sum !== raters) throw new RangeError(`fleissKappa: row ${i} has ${sum} ratings, expected ${raters}`);
    let sq = 0;
    row.forEach((x, j) => {
      sq += x * x;
      categoryTotals[j]! += x;
    });
    agreementSum += (sq - raters) / (raters * (raters - 1));
  }
  const observed = agreementSum / n;
  const expected = categoryTotals.reduce((s, t) => s + (t / (n * raters)) ** 2, 0);
  const kappa = expected >= 1 ? null : (observed - expected) / (1 - expected);
  return { kappa, n, raters, observed, expected };
}

/** Fleiss' kappa from per-item vote lists (e.g. three judge runs): categories = distinct vote values. */
export function fleissKappaFromVotes(votes: number[][]): FleissKappa {
  const values = [...new Set(votes.flat())].sort((a, b) => a - b);
  return fleissKappa(votes.map((v) => values.map((c) => v.filter((x) => x === c).length)));
}
