/**
 * Bootstrap resampling (percentile intervals, null-shifted two-sided p-values), exact to the spec:
 * the same seed gives the same numbers, and paired comparisons draw the same indices for both
 * systems. Statistics are weighted means of stratum means, which covers plain accuracy (one
 * stratum) and the benchmarks' macro averages (one stratum per type or source, resampled within
 * the stratum so every replicate keeps every stratum).
 */
import { Xoshiro128 } from './rng.js';

export interface BootstrapOptions {
  resamples: number;
  seed: number | string;
  /** Confidence level of the percentile interval (default 0.95). */
  confidence?: number;
}

/** Statistic = Σ_s weight_s · mean(x over stratum s). */
export interface Design {
  strata: Int32Array[];
  weights: number[];
}

export interface PairedBootstrap {
  delta: number;
  ciLow: number;
  ciHigh: number;
  p: number;
}

export interface MeanInterval {
  mean: number;
  ciLow: number;
  ciHigh: number;
}

/** Two replicates closer than this count as equal (they are sums of few-digit fractions). */
const TIE_EPS = 1e-12;

/** The single-stratum design: the plain mean over n items. */
export function plainDesign(n: number): Design {
  const all = new Int32Array(n);
  for (let i = 0; i < n; i++) all[i] = i;
  return { strata: [all], weights: [1] };
}

/** Value of the design's statistic on the full sample of one column. */
export function designStatistic(x: ArrayLike<number>, design: Design): number {
  let value = 0;
  design.strata.forEach((members, s) => {
    let sum = 0;
    for (let t = 0; t < members.length; t++) sum += x[members[t]!]!;
    value += (design.weights[s]! * sum) / members.length;
  });
  return value;
}

/**
 * Bootstrap replicates of the design statistic for each column, all columns resampled with the
 * same indices. Returns sums per (replicate, stratum, column), flattened, for ratio statistics;
 * see `replicates` for the common one-column case.
 */
export function resampleSums(columns: Float64Array[], design: Design, resamples: number, seed: number | string): Float64Array {
  checkResamples(resamples);
  const rng = new Xoshiro128(seed);
  // The generator step is inlined on locals: ~10^8 draws per comparison, and a method call with
  // field stores per draw costs several times more.
  let s0 = rng.s0;
  let s1 = rng.s1;
  let s2 = rng.s2;
  let s3 = rng.s3;
  const K = columns.length;
  const S = design.strata.length;
  const out = new Float64Array(resamples * S * K);
  // Several columns: one row per item, so a draw reads adjacent values.
  const n = columns[0]?.length ?? 0;
  const interleaved = new Float64Array(K > 1 ? n * K : 0);
  if (K > 1) for (let i = 0; i < n; i++) for (let k = 0; k < K; k++) interleaved[i * K + k] = columns[k]![i]!;
  for (let r = 0; r < resamples; r++) {
    for (let s = 0; s < S; s++) {
      const members = design.strata[s]!;
      const m = members.length;
      const base = (r * S + s) * K;
      if (K === 1) {
        const col = columns[0]!;
        let acc = 0;
        for (let t = 0; t < m; t++) {
          const u = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
          const sh = s1 << 9;
          s2 ^= s0;
          s3 ^= s1;
          s1 ^= s2;
          s0 ^= s3;
          s2 ^= sh;
          s3 = rotl(s3, 11);
          // Multiply-shift to [0, m) (< 2^31, so `| 0` floors): bias below m / 2^32, far under the Monte Carlo error.
          acc += col[members[((u * m) / 4294967296) | 0]!]!;
        }
        out[base] = acc;
      } else {
        for (let t = 0; t < m; t++) {
          const u = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
          const sh = s1 << 9;
          s2 ^= s0;
          s3 ^= s1;
          s1 ^= s2;
          s0 ^= s3;
          s2 ^= sh;
          s3 = rotl(s3, 11);
          const at = members[((u * m) / 4294967296) | 0]! * K;
          for (let k = 0; k < K; k++) out[base + k] += interleaved[at + k]!;
        }
      }
    }
  }
  return out;
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Bootstrap replicates of the design statistic of one column. */
export function replicates(x: ArrayLike<number>, design: Design, resamples: number, seed: number | string): Float64Array {
  const sums = resampleSums([Float64Array.from(x)], design, resamples, seed);
  const S = design.strata.length;
  const out = new Float64Array(resamples);
  const scale = design.strata.map((m, s) => design.weights[s]! / m.length);
  for (let r = 0; r < resamples; r++) {
    let v = 0;
    for (let s = 0; s < S; s++) v += scale[s]! * sums[r * S + s]!;
    out[r] = v;
  }
  return out;
}

/** numpy's default ("linear", type 7) percentile of ascending-sorted values, q in [0, 1]. */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** Percentile interval of replicates (sorted in place). */
export function percentileInterval(reps: Float64Array, confidence = 0.95): { low: number; high: number } {
  reps.sort();
  const alpha = (1 - confidence) / 2;
  return { low: percentileSorted(reps, alpha), high: percentileSorted(reps, 1 - alpha) };
}

/** Two-sided null-shifted p-value: (1 + #{|δ* − δ| ≥ |δ|}) / (B + 1); 1 when δ = 0. */
export function nullShiftedP(reps: ArrayLike<number>, observed: number): number {
  const threshold = Math.abs(observed) - TIE_EPS;
  let count = 0;
  for (let r = 0; r < reps.length; r++) if (Math.abs(reps[r]! - observed) >= threshold) count++;
  return (1 + count) / (reps.length + 1);
}

/**
 * Paired bootstrap of mean(a) − mean(b) (a, b paired per question): the difference, its percentile
 * interval, and the two-sided null-shifted p-value.
 */
export function pairedBootstrap(a: number[], b: number[], opts: BootstrapOptions): PairedBootstrap {
  if (a.length !== b.length) throw new RangeError(`pairedBootstrap: ${a.length} vs ${b.length} items (must be paired)`);
  return pairedBootstrapDesign(a, b, plainDesign(a.length), opts);
}

/** Paired bootstrap of a weighted mean of stratum means (macro averages), resampled within strata. */
export function pairedBootstrapDesign(a: ArrayLike<number>, b: ArrayLike<number>, design: Design, opts: BootstrapOptions): PairedBootstrap {
  if (a.length === 0) throw new RangeError('pairedBootstrap: no paired items');
  const d = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) d[i] = a[i]! - b[i]!;
  const delta = designStatistic(d, design);
  const reps = replicates(d, design, opts.resamples, opts.seed);
  const p = nullShiftedP(reps, delta);
  const ci = percentileInterval(reps, opts.confidence);
  return { delta, ciLow: ci.low, ciHigh: ci.high, p };
}

/** Bootstrap percentile interval for a mean (or a design statistic). */
export function bootstrapMean(x: ArrayLike<number>, opts: BootstrapOptions, design: Design = plainDesign(x.length)): MeanInterval {
  if (x.length === 0) throw new RangeError('bootstrapMean: no items');
  const mean = designStatistic(x, design);
  const ci = percentileInterval(replicates(x, design, opts.resamples, opts.seed), opts.confidence);
  return { mean, ciLow: ci.low, ciHigh: ci.high };
}

function checkResamples(resamples: number): void {
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer (got ${resamples})`);
}
