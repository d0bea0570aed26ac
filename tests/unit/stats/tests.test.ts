// Vectors: /work/shared/specs/stats-and-providers.md §A.1–A.3 (statsmodels, mlxtend, R multtest, NIST).
import { describe, expect, it } from 'vitest';
import { chiSquareSf, cochranQ, holm, lnGamma, mcnemarExact } from '../../../src/stats/index.js';

const rel = (actual: number, expected: number) => Math.abs(actual - expected) / Math.abs(expected);

describe('mcnemarExact', () => {
  const vectors: Array<[number, number, number]> = [
    [0, 0, 1],
    [3, 3, 1],
    [10, 10, 1],
    [0, 5, 0.0625],
    [1, 5, 0.21875],
    [2, 8, 0.109375],
    [5, 15, 0.04138946533203125],
    [20, 40, 0.01348929373119186],
    [10, 30, 0.0022214337732293643],
    [30, 60, 0.002060265680963076],
    [70, 59, 0.378687662693119],
    [80, 59, 0.0894523149944692],
    [121, 59, 4.434449263755176e-6],
    [480, 520, 0.21744829320414094],
    [600, 700, 0.0060157938610449525],
    [1000, 1100, 0.030720707864242296],
  ];
  it.each(vectors)('b=%i c=%i -> %f (rel 1e-9)', (b, c, p) => {
    expect(rel(mcnemarExact(b, c), p)).toBeLessThan(1e-9);
  });
  it('matches documented values (statsmodels 6 decimals, mlxtend)', () => {
    expect(mcnemarExact(10, 30)).toBeCloseTo(0.002221, 6);
    expect(mcnemarExact(70, 59)).toBeCloseTo(0.378688, 6);
    expect(rel(mcnemarExact(121, 59), 4.4344492637555101e-6)).toBeLessThan(1e-9);
  });
  it('is symmetric in b and c', () => {
    expect(mcnemarExact(59, 121)).toBe(mcnemarExact(121, 59));
  });
  it('does not underflow to NaN for thousands of discordant pairs', () => {
    expect(mcnemarExact(0, 1074)).toBeGreaterThan(0);
    expect(mcnemarExact(0, 1074)).toBeLessThan(2e-323);
    expect(mcnemarExact(0, 1100)).toBe(0);
    const p = mcnemarExact(4000, 4100);
    expect(Number.isFinite(p) && p > 0 && p < 1).toBe(true);
    // Normal approximation of the same test, for scale: z = (4100-4000-1)/sqrt(8100) ≈ 1.1 → p ≈ 0.27.
    expect(p).toBeGreaterThan(0.2);
    expect(p).toBeLessThan(0.35);
  });
  it('rejects non-integer counts', () => {
    expect(() => mcnemarExact(1.5, 2)).toThrow(RangeError);
  });
});

describe('holm', () => {
  const vectors: Array<[number[], number[]]> = [
    [
      [0.01, 0.04, 0.03, 0.005, 0.2],
      [0.04, 0.09, 0.09, 0.025, 0.2],
    ],
    [
      [0.3, 0.6, 0.02, 0.5],
      [0.9, 1.0, 0.08, 1.0],
    ],
    [
      [0.01, 0.01, 0.04],
      [0.03, 0.03, 0.04],
    ],
    [
      [0.002, 0.004, 0.006, 0.008, 0.01, 0.012],
      [0.012, 0.02, 0.024, 0.024, 0.024, 0.024],
    ],
    [
      [
        0.838541367553, 0.642193923795, 0.680845947633, 0.967833824309, 0.71626938238, 0.177096952723, 5.23656777208e-5, 0.0202732688798,
        0.00028140506198, 0.0149877310796,
      ],
      [1, 1, 1, 1, 1, 1, 0.000523656777208, 0.1419128821586, 0.00253264555782, 0.1199018486368],
    ],
  ];
  it.each(vectors)('%j', (input, expected) => {
    const got = holm(input);
    expect(got).toHaveLength(expected.length);
    got.forEach((g, i) => expect(Math.abs(g - expected[i]!)).toBeLessThan(1e-12));
  });
  it('is monotone in the raw p-values, never below them, and capped at 1 (random inputs)', () => {
    let s = 7;
    const rnd = () => (s = (s * 16807) % 2147483647) / 2147483647;
    for (let trial = 0; trial < 200; trial++) {
      const m = 1 + Math.floor(rnd() * 12);
      const p = Array.from({ length: m }, () => (rnd() < 0.2 ? rnd() * 1e-4 : rnd()));
      const adj = holm(p);
      for (let i = 0; i < m; i++) {
        expect(adj[i]).toBeGreaterThanOrEqual(p[i]!);
        expect(adj[i]).toBeLessThanOrEqual(1);
        for (let j = 0; j < m; j++) if (p[i]! <= p[j]!) expect(adj[i]).toBeLessThanOrEqual(adj[j]!);
      }
    }
  });
  it('returns [] for no tests', () => expect(holm([])).toEqual([]));
});

describe('chi-square tail and log-gamma', () => {
  it('matches the closed form for even df to 1e-10 relative, deep in the tail too', () => {
    const closed = (x: number, df: number) => {
      let term = 1;
      let sum = 1;
      for (let i = 1; i < df / 2; i++) sum += term *= x / 2 / i;
      return Math.exp(-x / 2) * sum;
    };
    for (const df of [2, 4, 6, 10, 20]) {
      for (const x of [0.01, 0.5, 1, 2.8, 5, 13, 30, 100, 400, 1200]) {
        expect(rel(chiSquareSf(x, df), closed(x, df))).toBeLessThan(1e-10);
      }
    }
  });
  it('df = 1 is erfc(sqrt(x/2)): chi2.sf(2, 1) = erfc(1)', () => {
    expect(rel(chiSquareSf(2, 1), 0.15729920705028513)).toBeLessThan(1e-10);
  });
  it('odd df against a direct numerical integral of the density', () => {
    // ∫_x^∞ of the chi-square density by Simpson on a change of variable (independent of gammaQ).
    const sf = (x: number, df: number) => {
      const k = df / 2;
      const logNorm = -k * Math.LN2 - lnGammaRef(k);
      const f = (t: number) => Math.exp(logNorm + (k - 1) * Math.log(t) - t / 2);
      const upper = x + 400;
      const n = 200_000;
      const h = (upper - x) / n;
      let s = f(x) + f(upper);
      for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * f(x + i * h);
      return (s * h) / 3;
    };
    for (const [x, df] of [
      [3, 3],
      [13.285714285714286, 3],
      [7, 5],
      [40, 7],
    ] as const) {
      expect(rel(chiSquareSf(x, df), sf(x, df))).toBeLessThan(1e-9);
    }
  });
  it('Lanczos log-gamma agrees with exact factorial sums', () => {
    // lnGamma switches to Lanczos off the half-integers; compare just beside them by continuity.
    for (const n of [1.5, 3, 7.5, 20, 101]) {
      const exact = lnGamma(n);
      const near = lnGamma(n + 1e-9) - 1e-9 * digamma(n);
      expect(Math.abs(near - exact)).toBeLessThan(1e-12 * Math.max(1, Math.abs(exact)));
    }
    expect(lnGamma(0.3)).toBeCloseTo(Math.log(2.991568987687591), 12);
  });
});

function lnGammaRef(k: number): number {
  // Half-integers only (the test's df): exact products.
  let acc = Number.isInteger(k) ? 0 : 0.5 * Math.log(Math.PI);
  for (let j = Number.isInteger(k) ? 1 : 0.5; j < k; j++) acc += Math.log(j);
  return acc;
}

function digamma(x: number): number {
  // ψ(x) by recurrence to large x, then the asymptotic series.
  let r = 0;
  while (x < 20) r -= 1 / x++;
  const x2 = 1 / (x * x);
  return r + Math.log(x) - 0.5 / x - x2 * (1 / 12 - x2 * (1 / 120 - x2 / 252));
}

describe('cochranQ', () => {
  const X1 = [
    [1, 1, 1],
    [1, 1, 1],
    [0, 1, 0],
    [1, 1, 0],
    [0, 0, 0],
    [1, 1, 1],
    [1, 1, 1],
    [1, 1, 0],
    [0, 0, 1],
    [0, 1, 0],
    [1, 1, 1],
    [1, 1, 1],
  ];
  const X2 = [
    [0, 0, 0, 1],
    [0, 0, 0, 1],
    [0, 0, 0, 1],
    [1, 1, 1, 1],
    [1, 0, 0, 1],
    [0, 1, 0, 1],
    [1, 0, 0, 1],
    [0, 0, 0, 1],
    [0, 1, 0, 0],
    [0, 0, 0, 0],
    [1, 0, 0, 1],
    [0, 0, 1, 1],
  ];
  const X3 = (() => {
    const rows = [
      [0, 0, 0],
      [1, 0, 0],
      [0, 0, 1],
      [1, 0, 1],
      [0, 1, 0],
      [1, 1, 0],
      [0, 1, 1],
      [1, 1, 1],
    ];
    const reps = [6, 2, 16, 4, 2, 6, 4, 6];
    return rows.flatMap((r, i) => Array.from({ length: reps[i]! }, () => r));
  })();

  it('X1 (NIST / Conover): Q = 2.8, df 2, p = e^-1.4', () => {
    const r = cochranQ(X1);
    expect(Math.abs(r.q - 2.8)).toBeLessThan(1e-12);
    expect(r.df).toBe(2);
    expect(rel(r.p, 0.24659696394160668)).toBeLessThan(1e-10);
  });
  it('X2: Q = 13.2857, df 3, p = 0.00405776', () => {
    const r = cochranQ(X2);
    expect(rel(r.q, 13.285714285714286)).toBeLessThan(1e-12);
    expect(r.df).toBe(3);
    expect(rel(r.p, 0.004057759938163717)).toBeLessThan(1e-10);
  });
  it('X3 (SAS): Q = 8.4706, p = 0.0145', () => {
    const r = cochranQ(X3);
    expect(rel(r.q, 8.470588235294118)).toBeLessThan(1e-12);
    expect(rel(r.p, 0.014475552056282438)).toBeLessThan(1e-10);
  });
  it('all-agree rows change nothing', () => {
    const padded = [...X1, ...Array.from({ length: 5 }, () => [0, 0, 0]), ...Array.from({ length: 7 }, () => [1, 1, 1])];
    const a = cochranQ(X1);
    const b = cochranQ(padded);
    expect(b.q).toBeCloseTo(a.q, 12);
    expect(b.p).toBeCloseTo(a.p, 12);
  });
  it('with two systems equals the uncorrected McNemar chi-square (b-c)^2/(b+c)', () => {
    const twoCols = X1.map((r) => [r[0]!, r[1]!]);
    const r = cochranQ(twoCols);
    expect(r.q).toBeCloseTo(2, 12);
    expect(rel(r.p, 0.15729920705028513)).toBeLessThan(1e-10);
    let s = 3;
    const rnd = () => (s = (s * 16807) % 2147483647) / 2147483647;
    for (let trial = 0; trial < 50; trial++) {
      const m = Array.from({ length: 30 + Math.floor(rnd() * 50) }, () => [rnd() < 0.6 ? 1 : 0, rnd() < 0.5 ? 1 : 0]);
      const b = m.filter(([x, y]) => x === 1 && y === 0).length;
      const c = m.filter(([x, y]) => x === 0 && y === 1).length;
      if (b + c === 0) continue;
      expect(cochranQ(m).q).toBeCloseTo((b - c) ** 2 / (b + c), 10);
    }
  });
  it('every row constant: Q = 0, p = 1 (documented convention)', () => {
    expect(
      cochranQ([
        [1, 1],
        [0, 0],
        [1, 1],
      ]),
    ).toEqual({ q: 0, df: 1, p: 1 });
  });
  it('rejects non-binary entries and ragged rows', () => {
    expect(() => cochranQ([[1, 2]])).toThrow(/expected 0 or 1/);
    expect(() => cochranQ([[1, 0], [1]])).toThrow(/columns/);
  });
});
