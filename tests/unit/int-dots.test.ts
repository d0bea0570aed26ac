/**
 * The soft matcher's integer pre-filter (src/retrieval/local/int-dots.ts): the WebAssembly SIMD
 * kernel and the plain loop give every row's exact integer dot product with the query.
 */
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { IntegerRows, dotModuleBytes } from '../../src/retrieval/local/int-dots.js';

function naive(rows: Int8Array[], q: Int8Array): number[] {
  return rows.map((r) => r.reduce((s, x, d) => s + x * q[d]!, 0));
}

describe('IntegerRows', () => {
  it('is a valid WebAssembly module on this engine (else runs would take the plain loop)', () => {
    expect(WebAssembly.validate(dotModuleBytes(13))).toBe(true);
  });

  // 100 dims: GloVe (13 v128 with padding); 7 and 8: below and at one v128; 1 row and 0 rows.
  for (const [dims, count] of [
    [100, 501],
    [7, 40],
    [8, 9],
    [1, 1],
    [16, 0],
  ] as const) {
    it(`gives the exact dot product of every row, SIMD and plain alike (${dims} dims, ${count} rows)`, () => {
      const rng = seedrandom(`int-dots-${dims}-${count}`);
      const int8 = () => Int8Array.from({ length: dims }, () => Math.round((rng() * 2 - 1) * 127));
      const rows = Array.from({ length: count }, int8);
      // Extremes: every product at +-127 * 127.
      if (count > 2) {
        rows[0] = new Int8Array(dims).fill(127);
        rows[1] = new Int8Array(dims).fill(-127);
      }
      const simd = new IntegerRows(dims, count);
      const plain = new IntegerRows(dims, count, { plain: true });
      rows.forEach((r, i) => {
        simd.set(i, r);
        plain.set(i, Float64Array.from(r));
      });
      for (const q of [int8(), new Int8Array(dims).fill(127), int8()]) {
        const want = naive(rows, q);
        expect([...simd.dotAll(q)]).toEqual(want);
        expect([...plain.dotAll(Float64Array.from(q))]).toEqual(want);
      }
    });
  }
});
