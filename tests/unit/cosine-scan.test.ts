/**
 * The soft matcher's scan: the integer pre-filter must let through every row the float dot
 * product puts above the floor, with the bit-identical cosine, or the local ranking would move.
 * Rows are built right at the floor too, where a filter with too small a margin would drop them.
 */
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { queryVector, rowsAbove, vectorBlock } from '../../src/retrieval/local/cosine-scan.js';
import { dot } from '../../src/retrieval/local/dot-rows.js';
import type { WordVectors } from '../../src/retrieval/local/word-vectors.js';

/** Int8 rows behind the WordVectors interface, as the GloVe cache decodes them. */
function int8Vectors(rows: Int8Array[], dims: number): WordVectors {
  const factor = (r: number) => {
    const n = rows[r]!.reduce((s, x) => s + x * x, 0);
    return n > 0 ? 1 / Math.sqrt(n) : 0;
  };
  return {
    dims,
    size: rows.length,
    row: () => -1,
    copyRow(r, out, offset) {
      const f = factor(r);
      rows[r]!.forEach((x, d) => (out[offset + d] = x * f));
    },
    copyInt8Row(r, out, offset) {
      rows[r]!.forEach((x, d) => (out[offset + d] = x));
      return factor(r);
    },
  };
}

function plainScan(v: WordVectors, block: number[], query: number, floor: number) {
  const q = new Float32Array(v.dims);
  v.copyRow(query, q, 0);
  const m = new Float32Array(v.dims);
  const rows: number[] = [];
  const cos: number[] = [];
  block.forEach((r, i) => {
    v.copyRow(r, m, 0);
    const c = dot(m, 0, q, v.dims);
    if (c > floor) {
      rows.push(i);
      cos.push(c);
    }
  });
  return { rows: Int32Array.from(rows), cos: Float64Array.from(cos) };
}

describe('rowsAbove', () => {
  // 7 dims: the loop's tail (dims not a multiple of 4) is taken too; odd row counts leave a lone last row.
  for (const [dims, count] of [
    [100, 401],
    [7, 300],
  ] as const) {
    it(`finds exactly the rows a float dot product per row finds, with identical cosines (${dims} dims, ${count} rows)`, () => {
      const rng = seedrandom(`scan-${dims}`);
      const rows = Array.from({ length: count }, () => Int8Array.from({ length: dims }, () => Math.round((rng() * 2 - 1) * 127)));
      // Near-copies of the query, some negated components: cosines spread up to 1; a zero row too.
      const query = rows[0]!;
      for (let r = 1; r < count; r += 3) rows[r] = query.map((x) => (rng() < 0.5 ? x : -x));
      rows[2] = new Int8Array(dims);
      const v = int8Vectors(rows, dims);
      const ids = rows.map((_, i) => i);
      const block = vectorBlock(v, ids);
      for (const floor of [0.1, 0.4, 0.9]) {
        const want = plainScan(v, ids, 0, floor);
        expect(want.rows.length).toBeGreaterThan(0);
        expect(want.rows.length).toBeLessThan(count);
        // toEqual on numbers is Object.is: bit-identical, not merely close.
        expect(rowsAbove(block, queryVector(v, 0), floor)).toEqual(want);
      }
      // A floor exactly at a row's cosine: that row is not above it, the next one down is kept.
      const { cos } = plainScan(v, ids, 0, 0.2);
      const at = [...cos].sort((a, b) => a - b)[Math.floor(cos.length / 2)]!;
      expect(rowsAbove(block, queryVector(v, 0), at)).toEqual(plainScan(v, ids, 0, at));
      expect(rowsAbove(block, queryVector(v, 0), at - 1e-12)).toEqual(plainScan(v, ids, 0, at - 1e-12));
    });
  }

  it('an empty block has no rows above any floor', () => {
    const v = int8Vectors([Int8Array.of(1, 2, 3, 4)], 4);
    expect(rowsAbove(vectorBlock(v, []), queryVector(v, 0), -1)).toEqual({ rows: new Int32Array(0), cos: new Float64Array(0) });
  });
});
