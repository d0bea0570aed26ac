/**
 * The soft matcher's kernels (src/retrieval/local/dot-rows.ts): the WebAssembly SIMD module and
 * the plain loops give every row's exact integer dot product with the query, and float dot
 * products with the very bits of `dot`.
 */
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { DotRows, dot, dotModuleBytes } from '../../src/retrieval/local/dot-rows.js';

function naive(rows: Int8Array[], q: Int8Array): number[] {
  return rows.map((r) => r.reduce((s, x, d) => s + x * q[d]!, 0));
}

describe('DotRows', () => {
  it('is a valid WebAssembly module on this engine (else runs would take the plain loops)', () => {
    for (const dims of [100, 7, 1]) expect(WebAssembly.validate(dotModuleBytes(dims))).toBe(true);
  });

  // 100 dims: GloVe (13 v128 with padding, 25 float groups); 7, 8 and 1: below, at and far below
  // one v128, with 3, 0 and 1 float dims past the last group of four; 0 rows.
  for (const [dims, count] of [
    [100, 501],
    [7, 40],
    [8, 9],
    [1, 3],
    [16, 0],
  ] as const) {
    it(`gives exact integer and bit-identical float dot products, SIMD and plain alike (${dims} dims, ${count} rows)`, () => {
      const rng = seedrandom(`dot-rows-${dims}-${count}`);
      const int8 = () => Int8Array.from({ length: dims }, () => Math.round((rng() * 2 - 1) * 127));
      const ints = Array.from({ length: count }, int8);
      // Extremes: every product at +-127 * 127.
      if (count > 2) {
        ints[0] = new Int8Array(dims).fill(127);
        ints[1] = new Int8Array(dims).fill(-127);
      }
      const floats = ints.map((r) => Float32Array.from(r, (x) => x / 127 + (rng() - 0.5) * 1e-3));
      const simd = new DotRows(dims, count);
      const plain = new DotRows(dims, count, { plain: true });
      ints.forEach((r, i) => {
        simd.set(i, floats[i]!, r);
        plain.set(i, floats[i]!, Float64Array.from(r));
      });
      for (const q of [int8(), new Int8Array(dims).fill(127), int8()]) {
        const want = naive(ints, q);
        expect([...simd.intDots(q)]).toEqual(want);
        expect([...plain.intDots(Float64Array.from(q))]).toEqual(want);
        // Every other row, in descending order: the list decides which rows and in what order.
        const rows = ints.map((_, i) => count - 1 - i).filter((i) => i % 2 === 0);
        const qf = Float32Array.from(q, (x) => x / 127 + (rng() - 0.5) * 1e-3);
        const wantFloat = rows.map((r) => dot(floats[r]!, 0, qf, dims));
        for (const k of [simd, plain]) {
          k.list.set(rows);
          // toEqual on numbers is Object.is: bit-identical, not merely close.
          expect([...k.floatDots(rows.length, qf).subarray(0, rows.length)]).toEqual(wantFloat);
        }
      }
    });
  }
});
