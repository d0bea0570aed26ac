/**
 * Bootstrap resampling (percentile intervals, null-shifted two-sided p-values), exact to the spec:
 * the same seed gives the same numbers, and paired comparisons draw the same indices for both
 * systems. Statistics are weighted means of stratum means, which covers plain accuracy (one
 * stratum) and the benchmarks' macro averages (one stratum per type or source, resampled within
 * the stratum so every replicate keeps every stratum).
 */
import { Xoshiro128 } from './rng.js';
import { quantileSorted } from '../util/quantile.js';

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
  /** The p-value to report: exact sign-flip when few differences are non-zero, else the bootstrap's. */
  p: number;
  pMethod: 'sign-flip' | 'bootstrap';
  /** The null-shifted bootstrap p (always computed). */
  pBootstrap: number;
  /** True when `p` is the bootstrap floor 1/(B+1) (no replicate as extreme): the p-value is below it. */
  pBound: boolean;
}

export interface MeanInterval {
  mean: number;
  ciLow: number;
  ciHigh: number;
}

/** Above this many distinct rows the multi-column path sums columns per draw instead of counting rows. */
const MAX_DISTINCT_ROWS = 256;

/**
 * The default number of bootstrap resamples of `rawrag stats` and `rawrag ablate` (one default, so
 * both print the same intervals and p-values for the same runs and seed).
 */
export const DEFAULT_RESAMPLES = 50_000;

/**
 * Up to this many non-zero paired differences, the p-value is the exact sign-flip (randomisation)
 * test over all 2^m sign patterns: with few discordant items every bootstrap replicate can equal Δ,
 * and the bootstrap would report p = 1/(B+1) where no test over the sign patterns could reach it.
 */
export const EXACT_SIGN_FLIP_MAX = 20;

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
  if (columns.length === 1) {
    const key = stratified(columns[0]!, design);
    const known = drawn.find(key, resamples, seed);
    if (known) return known;
    const sums = drawSums(columns, design, resamples, seed);
    drawn.keep(key, resamples, seed, sums);
    return sums;
  }
  return drawSums(columns, design, resamples, seed);
}

/**
 * One column as a design orders it (each stratum's values in member order) with the strata sizes:
 * what a draw's sums depend on besides the seed — draws depend only on the seed and the sizes.
 */
interface StratifiedColumn {
  sizes: Int32Array;
  values: Float64Array;
}

function stratified(x: ArrayLike<number>, design: Design): StratifiedColumn {
  const sizes = Int32Array.from(design.strata, (m) => m.length);
  const values = new Float64Array(sizes.reduce((a, b) => a + b, 0));
  let at = 0;
  for (const members of design.strata) for (let t = 0; t < members.length; t++) values[at++] = x[members[t]!]!;
  return { sizes, values };
}

const sameArray = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/**
 * One-column sums already drawn in this process (a few, most recent first). `rawrag stats` draws
 * each system's column for its leaderboard interval; a paired comparison over the same questions
 * then needs no draws of its own: the sums of a − b are the sums of a minus those of b.
 */
const drawn = {
  entries: [] as Array<StratifiedColumn & { resamples: number; seed: string; sums: Float64Array }>,
  find(key: StratifiedColumn, resamples: number, seed: number | string): Float64Array | null {
    const s = `${typeof seed}:${String(seed)}`;
    const e = this.entries.find(
      (x) => x.resamples === resamples && x.seed === s && sameArray(x.sizes, key.sizes) && sameArray(x.values, key.values),
    );
    return e ? e.sums : null;
  },
  keep(key: StratifiedColumn, resamples: number, seed: number | string, sums: Float64Array): void {
    this.entries.unshift({ ...key, resamples, seed: `${typeof seed}:${String(seed)}`, sums });
    if (this.entries.length > 16) this.entries.pop();
  },
};

function drawSums(columns: Float64Array[], design: Design, resamples: number, seed: number | string): Float64Array {
  // The generator step is inlined on locals: ~10^8 draws per comparison, and a method call with
  // field stores per draw costs several times more.
  let [s0, s1, s2, s3] = seedState(seed);
  const K = columns.length;
  const S = design.strata.length;
  const out = new Float64Array(resamples * S * K);
  // Items laid out stratum after stratum, so that a draw j in stratum s reads position offset_s + j
  // (no lookup through the member list); several columns are interleaved, one row per item.
  const offsets = new Int32Array(S + 1);
  design.strata.forEach((members, s) => (offsets[s + 1] = offsets[s]! + members.length));
  const order = new Int32Array(offsets[S]!);
  design.strata.forEach((members, s) => order.set(members, offsets[s]!));
  const flat = new Float64Array(order.length * (K <= 2 ? K : 0));
  if (K <= 2) for (let i = 0; i < order.length; i++) for (let k = 0; k < K; k++) flat[i * K + k] = columns[k]![order[i]!]!;
  // More columns: few distinct rows (0/1 flags, thirds) are counted per draw, then summed per column.
  const { codes, distinct } = K > 2 ? rowCodes(columns, order) : { codes: null, distinct: [] };
  const hist = new Int32Array(distinct.length);
  const wide = new Float64Array(K > 2 && !codes ? order.length * K : 0);
  if (wide.length) for (let i = 0; i < order.length; i++) for (let k = 0; k < K; k++) wide[i * K + k] = columns[k]![order[i]!]!;
  const acc = new Float64Array(K);
  for (let r = 0; r < resamples; r++) {
    for (let s = 0; s < S; s++) {
      const m = offsets[s + 1]! - offsets[s]!;
      const off = offsets[s]!;
      const base = (r * S + s) * K;
      if (K === 1) {
        let a0 = 0;
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
          a0 += flat[off + (((u * m) / 4294967296) | 0)]!;
        }
        out[base] = a0;
      } else if (K === 2) {
        let a0 = 0;
        let a1 = 0;
        for (let t = 0; t < m; t++) {
          const u = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
          const sh = s1 << 9;
          s2 ^= s0;
          s3 ^= s1;
          s1 ^= s2;
          s0 ^= s3;
          s2 ^= sh;
          s3 = rotl(s3, 11);
          const at = (off + (((u * m) / 4294967296) | 0)) << 1;
          a0 += flat[at]!;
          a1 += flat[at + 1]!;
        }
        out[base] = a0;
        out[base + 1] = a1;
      } else if (codes) {
        hist.fill(0);
        for (let t = 0; t < m; t++) {
          const u = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
          const sh = s1 << 9;
          s2 ^= s0;
          s3 ^= s1;
          s1 ^= s2;
          s0 ^= s3;
          s2 ^= sh;
          s3 = rotl(s3, 11);
          hist[codes[off + (((u * m) / 4294967296) | 0)]!]!++;
        }
        for (let k = 0; k < K; k++) {
          let v = 0;
          for (let c = 0; c < distinct.length; c++) if (hist[c]) v += hist[c]! * distinct[c]![k]!;
          out[base + k] = v;
        }
      } else {
        acc.fill(0);
        for (let t = 0; t < m; t++) {
          const u = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
          const sh = s1 << 9;
          s2 ^= s0;
          s3 ^= s1;
          s1 ^= s2;
          s0 ^= s3;
          s2 ^= sh;
          s3 = rotl(s3, 11);
          const at = (off + (((u * m) / 4294967296) | 0)) * K;
          for (let k = 0; k < K; k++) acc[k] = acc[k]! + wide[at + k]!;
        }
        for (let k = 0; k < K; k++) out[base + k] = acc[k]!;
      }
    }
  }
  return out;
}

/** The generator state for a seed (seedrandom's ARC4 set-up is memoised: analyses reuse one seed many times). */
const seedStates = new Map<string, [number, number, number, number]>();
function seedState(seed: number | string): [number, number, number, number] {
  const key = `${typeof seed}:${String(seed)}`;
  let state = seedStates.get(key);
  if (!state) {
    const rng = new Xoshiro128(seed);
    state = [rng.s0, rng.s1, rng.s2, rng.s3];
    seedStates.set(key, state);
  }
  return [...state] as [number, number, number, number];
}

/** Rows (in the given item order) as codes into their distinct values, when there are few (else null). */
function rowCodes(columns: Float64Array[], order: Int32Array): { codes: Int32Array | null; distinct: number[][] } {
  const index = new Map<string, number>();
  const distinct: number[][] = [];
  const codes = new Int32Array(order.length);
  for (let i = 0; i < order.length; i++) {
    const row = columns.map((c) => c[order[i]!]!);
    const key = row.join(',');
    let code = index.get(key);
    if (code === undefined) {
      if (distinct.length === MAX_DISTINCT_ROWS) return { codes: null, distinct: [] };
      code = distinct.length;
      index.set(key, code);
      distinct.push(row);
    }
    codes[i] = code;
  }
  return { codes, distinct };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** Bootstrap replicates of the design statistic of one column. */
export function replicates(x: ArrayLike<number>, design: Design, resamples: number, seed: number | string): Float64Array {
  return statisticOf(resampleSums([Float64Array.from(x)], design, resamples, seed), design, resamples);
}

/** The design statistic of each replicate from its per-stratum sums. */
function statisticOf(sums: Float64Array, design: Design, resamples: number): Float64Array {
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
  return quantileSorted(sorted, q, 'linear');
}

/**
 * Percentile interval of replicates (reordered in place): the two numpy-linear percentiles from
 * order statistics found by selection, O(B) instead of a sort.
 */
export function percentileInterval(reps: Float64Array, confidence = 0.95): { low: number; high: number } {
  const alpha = (1 - confidence) / 2;
  return { low: percentileSelect(reps, alpha), high: percentileSelect(reps, 1 - alpha) };
}

/** numpy-linear percentile of unsorted values (reordered in place). */
function percentileSelect(x: Float64Array, q: number): number {
  const n = x.length;
  if (n === 0) return NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const a = select(x, lo);
  if (lo + 1 >= n || h === lo) return a;
  // After selecting lo, everything right of it is ≥ x[lo]: the next order statistic is their minimum.
  let b = Infinity;
  for (let i = lo + 1; i < n; i++) if (x[i]! < b) b = x[i]!;
  return a + (h - lo) * (b - a);
}

/** Hoare quickselect (median-of-three pivot): puts the k-th smallest at x[k], smaller left, larger right. */
function select(x: Float64Array, k: number): number {
  let left = 0;
  let right = x.length - 1;
  while (right > left) {
    const mid = (left + right) >>> 1;
    const a = x[left]!;
    const b = x[mid]!;
    const c = x[right]!;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = left;
    let j = right;
    while (i <= j) {
      while (x[i]! < pivot) i++;
      while (x[j]! > pivot) j--;
      if (i <= j) {
        const t = x[i]!;
        x[i] = x[j]!;
        x[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return x[k]!;
  }
  return x[k]!;
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

/**
 * Paired bootstrap of a weighted mean of stratum means (macro averages), resampled within strata.
 * The p-value is the exact sign-flip test when at most EXACT_SIGN_FLIP_MAX differences are non-zero;
 * otherwise the bootstrap's, never below the smallest p any sign pattern could give (2 / 2^m).
 */
export function pairedBootstrapDesign(a: ArrayLike<number>, b: ArrayLike<number>, design: Design, opts: BootstrapOptions): PairedBootstrap {
  if (a.length === 0) throw new RangeError('pairedBootstrap: no paired items');
  const d = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) d[i] = a[i]! - b[i]!;
  const delta = designStatistic(d, design);
  // Both columns already drawn alike (each system's leaderboard interval): Σ(a − b) = Σa − Σb, no new draws.
  const sa = drawn.find(stratified(a, design), opts.resamples, opts.seed);
  const sb = sa && drawn.find(stratified(b, design), opts.resamples, opts.seed);
  const reps =
    sa && sb
      ? statisticOf(
          sa.map((v, i) => v - sb[i]!),
          design,
          opts.resamples,
        )
      : replicates(d, design, opts.resamples, opts.seed);
  const test = pairedP(d, design, reps, delta);
  const ci = percentileInterval(reps, opts.confidence);
  return { delta, ciLow: ci.low, ciHigh: ci.high, ...test };
}

/**
 * The p-value of a paired difference δ (differences d, statistic of `design`) given its bootstrap
 * replicates: exact sign-flip when at most EXACT_SIGN_FLIP_MAX differences are non-zero, else the
 * null-shifted bootstrap p, floored at 2 / 2^m (what the most extreme sign pattern gives).
 */
export function pairedP(
  d: ArrayLike<number>,
  design: Design,
  reps: ArrayLike<number>,
  delta: number,
): Pick<PairedBootstrap, 'p' | 'pMethod' | 'pBootstrap' | 'pBound'> {
  const count = extremeCount(reps, delta);
  const pBootstrap = delta === 0 ? 1 : (1 + count) / (reps.length + 1);
  const coefficients = signFlipCoefficients(d, design);
  if (coefficients.length <= EXACT_SIGN_FLIP_MAX) return { p: signFlipP(coefficients), pMethod: 'sign-flip', pBootstrap, pBound: false };
  const p = Math.max(pBootstrap, Math.pow(2, 1 - coefficients.length));
  return { p, pMethod: 'bootstrap', pBootstrap, pBound: delta !== 0 && count === 0 && p === pBootstrap };
}

/** Each non-zero difference's contribution to the design statistic (weight of its stratum / stratum size). */
export function signFlipCoefficients(d: ArrayLike<number>, design: Design): number[] {
  const out: number[] = [];
  design.strata.forEach((members, s) => {
    const scale = design.weights[s]! / members.length;
    for (let t = 0; t < members.length; t++) {
      const x = d[members[t]!]!;
      if (x !== 0) out.push(scale * x);
    }
  });
  return out;
}

/**
 * Exact two-sided sign-flip p-value: the share of the 2^m sign patterns ε whose |Σ ε_i c_i| reaches
 * the observed |Σ c_i|. Patterns are walked in Gray-code order (one flip per step), and ε and −ε
 * give the same |sum|, so 2^(m−1) steps suffice. 1 when there is no non-zero difference.
 */
export function signFlipP(coefficients: number[]): number {
  const m = coefficients.length;
  if (m === 0) return 1;
  if (m > 30) throw new RangeError(`signFlipP: ${m} non-zero differences are too many to enumerate`);
  let sum = 0;
  let scale = 0;
  for (const c of coefficients) {
    sum += c;
    scale += Math.abs(c);
  }
  // Ties within rounding (the running sum drifts by ~√steps ulps) count as reaching |Σ c|.
  const threshold = Math.abs(sum) - 1e-9 * scale;
  if (threshold <= 0) return 1;
  // Pattern g (Gray code of step k) flips coefficient j = index of the lowest set bit of k; the first coefficient stays +.
  const sign = new Int8Array(m).fill(1);
  let current = sum;
  let count = 1;
  const steps = 2 ** (m - 1);
  for (let k = 1; k < steps; k++) {
    const j = 31 - Math.clz32(k & -k) + 1;
    current -= 2 * sign[j]! * coefficients[j]!;
    sign[j] = -sign[j]! as 1 | -1;
    if (Math.abs(current) >= threshold) count++;
  }
  return count / steps;
}

function extremeCount(reps: ArrayLike<number>, observed: number): number {
  const threshold = Math.abs(observed) - TIE_EPS;
  let count = 0;
  for (let r = 0; r < reps.length; r++) if (Math.abs(reps[r]! - observed) >= threshold) count++;
  return count;
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
