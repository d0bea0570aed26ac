import { describe, expect, it } from 'vitest';
import { PyRandom } from '../../../src/benchmarks/personamem/pyrandom.js';

// Expected values printed by CPython 3.11.7's `random` module (random.seed(n); ...).
describe("Python's Mersenne Twister, seeding and shuffle", () => {
  it('matches random.random() and getrandbits()', () => {
    const r = new PyRandom(42);
    expect([r.random(), r.random(), r.random()]).toEqual([0.6394267984578837, 0.025010755222666936, 0.27502931836911926]);
    const z = new PyRandom(0);
    expect(z.random()).toBe(0.8444218515250481);
    expect(z.getrandbits(32)).toBe(3255389356);
  });

  it('seeds from big and negative ints as random.seed does (|n| in 32-bit words)', () => {
    expect(new PyRandom(2n ** 40n + 5n).random()).toBe(0.5043802970418443);
    const big = new PyRandom(2n ** 64n + 3n);
    expect(Array.from({ length: 5 }, () => big.getrandbits(7))).toEqual([116, 63, 118, 12, 106]);
    expect(new PyRandom(-7).randbelow(1000)).toBe(331);
  });

  it('shuffles like random.shuffle', () => {
    expect(new PyRandom(42).shuffle([0, 1, 2, 3])).toEqual([2, 1, 3, 0]);
    expect(new PyRandom(123).shuffle([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])).toEqual([8, 7, 5, 9, 2, 3, 6, 1, 4, 0]);
  });

  it('gives the PersonaMem-v2 option orders: random.seed(42 + idx); random.shuffle(["a","b","c","d"])', () => {
    const expected: Record<number, string> = {
      0: 'cbda',
      1: 'cdba',
      2: 'bacd',
      3: 'adbc',
      4: 'cdba',
      5: 'dbac',
      6: 'dbac',
      7: 'dcba',
      99: 'dbca',
      4999: 'adbc',
    };
    for (const [idx, order] of Object.entries(expected)) {
      expect(new PyRandom(42 + Number(idx)).shuffle(['a', 'b', 'c', 'd']).join(''), `idx ${idx}`).toBe(order);
    }
  });
});
