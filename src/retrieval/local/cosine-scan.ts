/**
 * The soft matcher's hot loop: which rows of a block of unit word vectors lie above a cosine
 * floor for a query word. Nearly all of a LoCoMo run's reranking time was this scan, one float
 * dot product per (query word, episode word); most rows (~85 %) end below the floor.
 *
 * The rows are kept twice (dot-rows.ts, in WebAssembly memory). The float32 rows give every cosine
 * the reranker uses, summed exactly as `dot` sums. Their int8 components (the GloVe cache stores
 * them so) give one exact integer dot product per row, which decides which rows can be above the
 * floor at all; only those get the float dot product. The integer cosine is within 1.2e-7 of the
 * float one (each float32 component is the int8 value times the row's scale, rounded: a relative
 * error of at most 2^-24 per factor, on a sum of absolute products of at most 1), so a row whose
 * integer cosine is more than `MARGIN` below the floor is below it in floats too: the same rows,
 * the same cosines, the same ranking.
 */
import type { WordVectors } from './word-vectors.js';
import { DotRows } from './dot-rows.js';

/** Safety margin of the integer pre-filter, far above its worst-case error (1.2e-7). */
const MARGIN = 1e-6;

/** Unit vectors of some GloVe rows, in both forms. */
export interface VectorBlock {
  readonly rows: number;
  /** The rows as float32 (as WordVectors.copyRow writes them) and as int8 components. */
  readonly data: DotRows;
  /** Per row: the factor that makes its int8 components unit length. */
  readonly scale: Float64Array;
}

/** No rows (no word vectors: exact matches only). */
export const EMPTY_BLOCK: VectorBlock = { rows: 0, data: new DotRows(0, 0), scale: new Float64Array(0) };

/** A query word's vector in both forms. */
export interface QueryVector {
  exact: Float32Array;
  int8: Float64Array;
  scale: number;
}

export function vectorBlock(vectors: WordVectors, rowIds: number[]): VectorBlock {
  const rows = rowIds.length;
  const data = new DotRows(vectors.dims, rows);
  const scale = new Float64Array(rows);
  const exact = new Float32Array(vectors.dims);
  const int8 = new Float64Array(vectors.dims);
  for (let i = 0; i < rows; i++) {
    vectors.copyRow(rowIds[i]!, exact, 0);
    scale[i] = vectors.copyInt8Row(rowIds[i]!, int8, 0);
    data.set(i, exact, int8);
  }
  return { rows, data, scale };
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
  rows: Int32Array;
  cos: Float64Array;
}

/** Rows of `block` whose cosine with `query` (dot of the float32 rows) exceeds `floor`. */
export function rowsAbove(block: VectorBlock, query: QueryVector, floor: number): RowsAbove {
  const { rows, data, scale } = block;
  if (rows === 0) return { rows: new Int32Array(0), cos: new Float64Array(0) };
  const sums = data.intDots(query.int8);
  const list = data.list;
  let n = 0;
  for (let r = 0; r < rows; r++) if (!(sums[r]! * scale[r]! * query.scale <= floor - MARGIN)) list[n++] = r;
  const cos = data.floatDots(n, query.exact);
  let above = 0;
  for (let k = 0; k < n; k++) if (cos[k]! > floor) above++;
  const out: RowsAbove = { rows: new Int32Array(above), cos: new Float64Array(above) };
  for (let k = 0, j = 0; k < n; k++) {
    if (cos[k]! > floor) {
      out.rows[j] = list[k]!;
      out.cos[j++] = cos[k]!;
    }
  }
  return out;
}
