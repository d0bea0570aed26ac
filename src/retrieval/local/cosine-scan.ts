/**
 * The soft matcher's hot loop: which rows of a block of unit word vectors lie above a cosine
 * floor for a query word. Nearly all of a LoCoMo run's reranking time was this scan, one float
 * dot product per (query word, episode word); most rows (~85 %) end below the floor.
 *
 * The rows are kept twice. The float32 rows give every cosine the reranker uses, summed exactly
 * as before (`dot`). Their int8 components (the GloVe cache stores them so) give one exact
 * integer dot product per row (int-dots.ts, WebAssembly SIMD), which decides which rows can be
 * above the floor at all; only those get the float dot product. The integer cosine is within
 * 1.2e-7 of the float one (each float32 component is the int8 value times the row's scale,
 * rounded: a relative error of at most 2^-24 per factor, on a sum of absolute products of at
 * most 1), so a row whose integer cosine is more than `MARGIN` below the floor is below it in
 * floats too: the same rows, the same cosines, the same ranking.
 */
import type { WordVectors } from './word-vectors.js';
import { IntegerRows } from './int-dots.js';

/** Safety margin of the integer pre-filter, far above its worst-case error (1.2e-7). */
const MARGIN = 1e-6;

/** Unit vectors of some GloVe rows, in both forms. */
export interface VectorBlock {
  readonly dims: number;
  readonly rows: number;
  /** Float32 rows (rows x dims), as WordVectors.copyRow writes them. */
  readonly exact: Float32Array;
  /** The same rows' int8 components. */
  readonly ints: IntegerRows;
  /** Per row: the factor that makes its int8 components unit length. */
  readonly scale: Float64Array;
}

/** No rows (no word vectors: exact matches only). */
export const EMPTY_BLOCK: VectorBlock = {
  dims: 0,
  rows: 0,
  exact: new Float32Array(0),
  ints: new IntegerRows(0, 0),
  scale: new Float64Array(0),
};

/** A query word's vector in both forms. */
export interface QueryVector {
  exact: Float32Array;
  int8: Float64Array;
  scale: number;
}

export function vectorBlock(vectors: WordVectors, rowIds: number[]): VectorBlock {
  const dims = vectors.dims;
  const rows = rowIds.length;
  const exact = new Float32Array(rows * dims);
  const ints = new IntegerRows(dims, rows);
  const scale = new Float64Array(rows);
  const int8 = new Float64Array(dims);
  rowIds.forEach((r, i) => {
    vectors.copyRow(r, exact, i * dims);
    scale[i] = vectors.copyInt8Row(r, int8, 0);
    ints.set(i, int8);
  });
  return { dims, rows, exact, ints, scale };
}

export function queryVector(vectors: WordVectors, row: number): QueryVector {
  const exact = new Float32Array(vectors.dims);
  vectors.copyRow(row, exact, 0);
  const int8 = new Float64Array(vectors.dims);
  const scale = vectors.copyInt8Row(row, int8, 0);
  return { exact, int8, scale };
}

/** Rows above the floor for one query, ascending, with their cosines. */
export interface RowsAbove {
  rows: number[];
  cos: number[];
}

/** Rows of `block` whose cosine with `query` (dot of the float32 rows) exceeds `floor`. */
export function rowsAbove(block: VectorBlock, query: QueryVector, floor: number): RowsAbove {
  const { dims, rows, exact, scale } = block;
  const out: RowsAbove = { rows: [], cos: [] };
  if (rows === 0) return out;
  const sums = block.ints.dotAll(query.int8);
  for (let r = 0; r < rows; r++) {
    if (sums[r]! * scale[r]! * query.scale <= floor - MARGIN) continue;
    const cos = dot(exact, r * dims, query.exact, dims);
    if (cos > floor) {
      out.rows.push(r);
      out.cos.push(cos);
    }
  }
  return out;
}

/** Dot product of row `off` of `m` with `q` (four accumulators). */
export function dot(m: Float32Array, off: number, q: Float32Array, n: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    a += m[off + i]! * q[i]!;
    b += m[off + i + 1]! * q[i + 1]!;
    c += m[off + i + 2]! * q[i + 2]!;
    d += m[off + i + 3]! * q[i + 3]!;
  }
  for (; i < n; i++) a += m[off + i]! * q[i]!;
  return a + b + c + d;
}
