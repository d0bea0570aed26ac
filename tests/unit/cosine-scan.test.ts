/**
 * The soft matcher's scan: words scanned two per pass over the vocabulary block must get exactly
 * the rows and the bit-identical cosines each gets alone, or the local ranking would move.
 */
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { dot, rowsAbove } from '../../src/retrieval/local/cosine-scan.js';

function unitRows(rng: () => number, rows: number, dims: number): Float32Array {
  const m = new Float32Array(rows * dims);
  for (let r = 0; r < rows; r++) {
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += (m[r * dims + d] = rng() - 0.5) ** 2;
    for (let d = 0; d < dims; d++) m[r * dims + d]! /= Math.sqrt(norm);
  }
  return m;
}

describe('rowsAbove', () => {
  // 7 dims: the loop's tail (dims not a multiple of 4) is taken too.
  for (const dims of [8, 7]) {
    it(`finds the rows one dot product at a time would, with identical cosines (${dims} dims, 1 to 5 queries)`, () => {
      const rng = seedrandom(`scan-${dims}`);
      const matrix = unitRows(rng, 300, dims);
      const queries = Array.from({ length: 5 }, (_, i) => unitRows(rng, 1, dims).map((x) => (i === 4 ? -x : x)));
      const floor = 0.3;
      for (let n = 1; n <= queries.length; n++) {
        const got = rowsAbove(matrix, dims, queries.slice(0, n), floor);
        expect(got).toHaveLength(n);
        got.forEach((hits, k) => {
          const rows: number[] = [];
          const cos: number[] = [];
          for (let r = 0; r < 300; r++) {
            const c = dot(matrix, r * dims, queries[k]!, dims);
            if (c > floor) {
              rows.push(r);
              cos.push(c);
            }
          }
          expect(rows.length).toBeGreaterThan(0);
          expect(hits.rows).toEqual(rows);
          // toEqual on numbers is Object.is: bit-identical, not merely close.
          expect(hits.cos).toEqual(cos);
        });
      }
    });
  }

  it('returns no rows for an empty block and one empty list per query', () => {
    expect(rowsAbove(new Float32Array(0), 4, [new Float32Array(4), new Float32Array(4)], 0)).toEqual([
      { rows: [], cos: [] },
      { rows: [], cos: [] },
    ]);
    expect(rowsAbove(new Float32Array(8), 4, [], 0)).toEqual([]);
  });
});
