// Vectors: stats-and-providers.md §A.4 (numpy linear percentile; exact "ideal bootstrap" values
// computed by enumerating the multinomial; Monte Carlo tolerance 4·sqrt(p(1-p)/B) + 1/(B+1)).
import { describe, expect, it } from 'vitest';
import {
  bootstrapMean,
  designStatistic,
  pairedBootstrap,
  pairedBootstrapDesign,
  percentileSorted,
  replicates,
  resampleSums,
  Xoshiro128,
} from '../../../src/stats/index.js';

function paired(nPlus: number, nMinus: number, n: number): { a: number[]; b: number[] } {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i < nPlus) (a.push(1), b.push(0));
    else if (i < nPlus + nMinus) (a.push(0), b.push(1));
    else (a.push(i % 2), b.push(i % 2)); // ties: both right or both wrong
  }
  return { a, b };
}

describe('percentile (numpy linear)', () => {
  it('matches the spec examples', () => {
    const x = [0.1, 0.4, 0.2, 0.3, 0.5].sort((p, q) => p - q);
    expect(percentileSorted(x, 0.025)).toBeCloseTo(0.11, 12);
    expect(percentileSorted(x, 0.975)).toBeCloseTo(0.49, 12);
    expect(percentileSorted(x, 0.5)).toBeCloseTo(0.3, 12);
    const y = [-0.02, 0, 0.01, 0.03, 0.05, 0.05, 0.06, 0.08, 0.1, 0.12];
    expect(percentileSorted(y, 0.025)).toBeCloseTo(-0.0155, 12);
    expect(percentileSorted(y, 0.975)).toBeCloseTo(0.1155, 12);
  });
});

describe('pairedBootstrap', () => {
  const B = 20_000;
  const tol = (p: number) => 4 * Math.sqrt((p * (1 - p)) / B) + 1 / (B + 1);
  // (n+, n-, n) -> δ, ideal two-sided p (no +1), exact 2.5% / 97.5% quantiles of δ*.
  const ideal: Array<[number, number, number, number, number, number, number]> = [
    [4, 2, 8, 0.25, 0.529785, -0.375, 0.75],
    [3, 0, 10, 0.3, 0.075597, 0.0, 0.6],
    [5, 5, 20, 0.0, 1.0, -0.3, 0.3],
    [14, 6, 100, 0.08, 0.087541, -0.01, 0.17],
    [30, 15, 200, 0.075, 0.028517, 0.01, 0.14],
  ];
  it.each(ideal)('(%i, %i, %i): δ, p and interval agree with the exact bootstrap', (np, nm, n, delta, p2, qlo, qhi) => {
    const { a, b } = paired(np, nm, n);
    const r = pairedBootstrap(a, b, { resamples: B, seed: 0 });
    expect(r.delta).toBeCloseTo(delta, 12);
    expect(Math.abs(r.pBootstrap - p2)).toBeLessThanOrEqual(tol(p2));
    // Monte Carlo quantiles (interpolated) land within one grid step 1/n of the exact ones.
    expect(Math.abs(r.ciLow - qlo)).toBeLessThanOrEqual(1 / n + 1e-12);
    expect(Math.abs(r.ciHigh - qhi)).toBeLessThanOrEqual(1 / n + 1e-12);
  });
  it('δ = 0 gives p = 1 exactly', () => {
    const { a, b } = paired(7, 7, 40);
    expect(pairedBootstrap(a, b, { resamples: 1000, seed: 3 }).p).toBe(1);
  });
  it('same seed, same numbers; another seed, other numbers; string seeds work', () => {
    const { a, b } = paired(14, 6, 100);
    const o = { resamples: 5000 };
    expect(pairedBootstrap(a, b, { ...o, seed: 1 })).toEqual(pairedBootstrap(a, b, { ...o, seed: 1 }));
    expect(pairedBootstrap(a, b, { ...o, seed: 'x' })).toEqual(pairedBootstrap(a, b, { ...o, seed: 'x' }));
    expect(pairedBootstrap(a, b, { ...o, seed: 1 }).pBootstrap).not.toBe(pairedBootstrap(a, b, { ...o, seed: 2 }).pBootstrap);
  });
  it('is antisymmetric: swapping the systems negates δ and the interval, keeps p', () => {
    const { a, b } = paired(14, 6, 100);
    const ab = pairedBootstrap(a, b, { resamples: 4000, seed: 5 });
    const ba = pairedBootstrap(b, a, { resamples: 4000, seed: 5 });
    expect(ba.delta).toBeCloseTo(-ab.delta, 12);
    expect(ba.ciLow).toBeCloseTo(-ab.ciHigh, 12);
    expect(ba.p).toBe(ab.p);
  });
  it('handles graded scores (means of judge runs)', () => {
    const a = [1, 2 / 3, 1 / 3, 1, 0, 2 / 3, 1, 1];
    const b = [2 / 3, 2 / 3, 0, 1, 0, 1 / 3, 1, 0];
    const r = pairedBootstrap(a, b, { resamples: 4000, seed: 0 });
    expect(r.delta).toBeCloseTo((a.reduce((s, x) => s + x) - b.reduce((s, x) => s + x)) / 8, 12);
    expect(r.ciLow).toBeLessThanOrEqual(r.delta);
    expect(r.ciHigh).toBeGreaterThanOrEqual(r.delta);
  });
  it('rejects unpaired input', () => {
    expect(() => pairedBootstrap([1, 0], [1], { resamples: 10, seed: 0 })).toThrow(/paired/);
  });
});

describe('stratified designs (macro averages)', () => {
  const design = { strata: [Int32Array.from([0, 1, 2]), Int32Array.from([3, 4, 5, 6, 7, 8, 9])], weights: [0.5, 0.5] };
  it('statistic is the weighted mean of stratum means', () => {
    const x = [1, 1, 0, 0, 0, 0, 0, 0, 0, 1];
    expect(designStatistic(x, design)).toBeCloseTo(0.5 * (2 / 3) + 0.5 * (1 / 7), 15);
  });
  it('resamples within strata: a variable constant per stratum never varies', () => {
    const x = [1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
    const reps = replicates(x, design, 500, 0);
    expect(new Set(reps)).toEqual(new Set([0.5]));
    // The plain bootstrap of the same data does vary.
    expect(new Set(replicates(x, { strata: [Int32Array.from({ length: 10 }, (_, i) => i)], weights: [1] }, 500, 0)).size).toBeGreaterThan(
      1,
    );
  });
  it('paired stratified bootstrap reports the macro difference', () => {
    const a = [1, 1, 0, 1, 1, 1, 1, 0, 1, 1];
    const b = [1, 0, 0, 0, 1, 0, 1, 0, 0, 1];
    const r = pairedBootstrapDesign(a, b, design, { resamples: 2000, seed: 0 });
    expect(r.delta).toBeCloseTo(0.5 * (1 / 3) + 0.5 * (3 / 7), 12);
  });
});

describe('bootstrapMean', () => {
  it('centres on the mean and degenerates at 0% and 100%', () => {
    const r = bootstrapMean([1, 0, 1, 1, 0, 1, 1, 1, 0, 1], { resamples: 5000, seed: 0 });
    expect(r.mean).toBeCloseTo(0.7, 12);
    expect(r.ciLow).toBeLessThan(0.7);
    expect(r.ciHigh).toBeGreaterThan(0.7);
    expect(bootstrapMean([1, 1, 1], { resamples: 100, seed: 0 })).toEqual({ mean: 1, ciLow: 1, ciHigh: 1 });
  });
});

describe('Xoshiro128', () => {
  it('is seeded, deterministic and roughly uniform', () => {
    const g1 = new Xoshiro128(42);
    const g2 = new Xoshiro128(42);
    const seq1 = Array.from({ length: 5 }, () => g1.nextU32());
    expect(Array.from({ length: 5 }, () => g2.nextU32())).toEqual(seq1);
    expect(new Xoshiro128(43).nextU32()).not.toBe(seq1[0]);
    const g = new Xoshiro128(1);
    const counts = new Array(10).fill(0);
    for (let i = 0; i < 100_000; i++) counts[g.below(10)]++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
  });
});

describe('draws reused across a family', () => {
  // Scores as the judge writes them (thirds), two systems over 600 items in three strata.
  let state = 7;
  const rand = () => (state = (state * 16807) % 2147483647) / 2147483647;
  const thirds = (p: number) => Array.from({ length: 600 }, () => [0, 1, 2].reduce((s) => s + (rand() < p ? 1 : 0), 0) / 3);
  const strata = [0, 1, 2].map((k) => Int32Array.from({ length: 200 }, (_, i) => 3 * i + k));
  const design = { strata, weights: [0.5, 0.25, 0.25] };

  it('a pair whose columns were already drawn alike gives what drawing the differences gives', () => {
    const a = thirds(0.6);
    const b = thirds(0.5);
    const seed = 'reuse-test';
    // Fresh: nothing of a or b drawn yet, the differences are drawn.
    const fresh = pairedBootstrapDesign(a, b, design, { resamples: 4000, seed });
    // Each system's interval first (as the leaderboard draws them), then the pair from their sums.
    replicates(a, design, 4000, seed);
    replicates(b, design, 4000, seed);
    const reused = pairedBootstrapDesign(a, b, design, { resamples: 4000, seed });
    expect(reused.delta).toBe(fresh.delta);
    expect(reused.ciLow).toBeCloseTo(fresh.ciLow, 12);
    expect(reused.ciHigh).toBeCloseTo(fresh.ciHigh, 12);
    expect(reused.p).toBe(fresh.p);
  });

  it('the same column, design and seed give the same sums; another seed or column does not reuse them', () => {
    const a = thirds(0.55);
    const s1 = resampleSums([Float64Array.from(a)], design, 2000, 1);
    expect(resampleSums([Float64Array.from(a)], design, 2000, 1)).toBe(s1);
    expect(resampleSums([Float64Array.from(a)], design, 2000, 2)).not.toEqual(s1);
    const changed = a.slice();
    changed[5] = changed[5] === 1 ? 0 : 1;
    expect(resampleSums([Float64Array.from(changed)], design, 2000, 1)).not.toEqual(s1);
  });
});
