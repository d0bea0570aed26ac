import { describe, expect, it } from 'vitest';
import { ascending, quantileSorted } from '../../../src/util/quantile.js';
import { quantiles } from '../../../src/systems/memory-service/search.js';

describe('quantileSorted: one helper, three rules', () => {
  const s = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];

  it('linear is numpy type 7 (interpolates)', () => {
    expect(quantileSorted(s, 0.5, 'linear')).toBeCloseTo(55, 12);
    expect(quantileSorted(s, 0.95, 'linear')).toBeCloseTo(95.5, 12);
    expect(quantileSorted(s, 0, 'linear')).toBe(10);
    expect(quantileSorted(s, 1, 'linear')).toBe(100);
  });

  it('nearest-rank picks a value: the smallest with at least q of the values at or below it', () => {
    expect(quantileSorted(s, 0.5, 'nearest-rank')).toBe(50);
    expect(quantileSorted(s, 0.95, 'nearest-rank')).toBe(100);
    expect(quantileSorted(s, 0.9, 'nearest-rank')).toBe(90);
    expect(quantileSorted(s, 0, 'nearest-rank')).toBe(10);
  });

  it('lower is the value at floor(q·n), clamped', () => {
    expect(quantileSorted(s, 0.5, 'lower')).toBe(60);
    expect(quantileSorted(s, 0.025, 'lower')).toBe(10);
    expect(quantileSorted(s, 0.975, 'lower')).toBe(100);
    expect(quantileSorted(s, 1, 'lower')).toBe(100);
  });

  it('no values: NaN; ascending copies', () => {
    expect(quantileSorted([], 0.5, 'linear')).toBeNaN();
    expect(quantileSorted([], 0.5, 'nearest-rank')).toBeNaN();
    const xs = [3, 1, 2];
    expect(ascending(xs)).toEqual([1, 2, 3]);
    expect(xs).toEqual([3, 1, 2]);
  });

  it("a memory service's latency summary uses nearest rank, rounded", () => {
    expect(quantiles([100.4, 5, 20, 7.6])).toEqual({ n: 4, total: 133, p50: 8, p95: 100 });
    expect(quantiles([])).toBeNull();
  });
});
