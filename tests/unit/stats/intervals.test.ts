// Wilson vectors: stats-and-providers.md §A.5 (R binom.confint / statsmodels). Fleiss: Fleiss (1971) worked example.
import { describe, expect, it } from 'vitest';
import { fleissKappa, fleissKappaFromVotes, wilson } from '../../../src/stats/index.js';

describe('wilson', () => {
  const vectors: Array<[number, number, number, number]> = [
    [18, 20, 0.6989663547715128, 0.9721335187862319],
    [4, 20, 0.08065766257979806, 0.4160174322518935],
    [4, 200, 0.007804426416349472, 0.05028708690582643],
    [19, 38, 0.3484992836439511, 0.6515007163560489],
    [100, 200, 0.43136085960389187, 0.5686391403961081],
    [0, 10, 0, 0.27753279986288915],
    [10, 10, 0.7224672001371109, 1.0],
    [45, 50, 0.7863976856252035, 0.9565242350681096],
    [730, 1000, 0.7016420587131036, 0.756597632383541],
  ];
  it.each(vectors)('%i/%i', (x, n, lo, hi) => {
    const w = wilson(x, n);
    expect(Math.abs(w.low - lo)).toBeLessThan(1e-12);
    expect(Math.abs(w.high - hi)).toBeLessThan(1e-12);
  });
  it('is exactly 0 / 1 at the ends', () => {
    expect(wilson(0, 10).low).toBe(0);
    expect(wilson(10, 10).high).toBe(1);
  });
  it('takes another z (wider at 99%)', () => {
    const w99 = wilson(18, 20, 2.5758293035489004);
    expect(w99.low).toBeLessThan(0.6989663547715128);
    expect(w99.high).toBeGreaterThan(0.9721335187862319);
  });
});

describe('fleissKappa', () => {
  it('reproduces the classic example (10 items, 14 raters, 5 categories): kappa 0.210', () => {
    const table = [
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ];
    const k = fleissKappa(table);
    expect(k.observed).toBeCloseTo(0.378, 3);
    expect(k.expected).toBeCloseTo(0.213, 3);
    expect(k.kappa).toBeCloseTo(0.21, 2);
    expect(k.raters).toBe(14);
  });
  it('perfect agreement gives 1; one category only is undefined (null)', () => {
    expect(
      fleissKappaFromVotes([
        [1, 1, 1],
        [0, 0, 0],
        [1, 1, 1],
      ]).kappa,
    ).toBe(1);
    expect(
      fleissKappaFromVotes([
        [1, 1, 1],
        [1, 1, 1],
      ]).kappa,
    ).toBeNull();
  });
  it('from votes equals from counts', () => {
    const votes = [
      [1, 0, 1],
      [0, 0, 0],
      [1, 1, 1],
      [0, 1, 0],
      [1, 1, 0],
    ];
    const counts = votes.map((v) => [v.filter((x) => x === 0).length, v.filter((x) => x === 1).length]);
    expect(fleissKappaFromVotes(votes).kappa).toBeCloseTo(fleissKappa(counts).kappa!, 15);
  });
  it('rejects rows with a different number of ratings', () => {
    expect(() =>
      fleissKappa([
        [1, 2],
        [2, 2],
      ]),
    ).toThrow(/ratings/);
  });
});
