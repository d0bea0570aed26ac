/**
 * The soft matcher's hot loop: which rows of a block of unit vectors lie above a cosine floor for
 * each of several query vectors. A question's new words are scanned together, two per pass over
 * the block: each row is read once for both, which on a LoCoMo run halves the loop's time.
 *
 * Every query's cosine is summed exactly as `dot` sums it alone (four accumulators over
 * dimensions i, i+1, i+2, i+3, then a + b + c + d), so scanning in pairs yields bit-identical
 * values and the ranking cannot move.
 */

/** Rows above the floor for one query, ascending, with their cosines. */
export interface RowsAbove {
  rows: number[];
  cos: number[];
}

/** Rows of `matrix` (row-major, `dims` per row) whose dot product with each query exceeds `floor`. */
export function rowsAbove(matrix: Float32Array, dims: number, queries: Float32Array[], floor: number): RowsAbove[] {
  const out = queries.map((): RowsAbove => ({ rows: [], cos: [] }));
  const rows = dims > 0 ? matrix.length / dims : 0;
  let k = 0;
  for (; k + 1 < queries.length; k += 2) scanPair(matrix, dims, rows, queries[k]!, queries[k + 1]!, floor, out[k]!, out[k + 1]!);
  if (k < queries.length) {
    const q = queries[k]!;
    const hits = out[k]!;
    for (let r = 0, off = 0; r < rows; r++, off += dims) {
      const cos = dot(matrix, off, q, dims);
      if (cos > floor) {
        hits.rows.push(r);
        hits.cos.push(cos);
      }
    }
  }
  return out;
}

function scanPair(
  m: Float32Array,
  dims: number,
  rows: number,
  q: Float32Array,
  p: Float32Array,
  floor: number,
  hq: RowsAbove,
  hp: RowsAbove,
): void {
  for (let r = 0, off = 0; r < rows; r++, off += dims) {
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    let e = 0;
    let f = 0;
    let g = 0;
    let h = 0;
    let i = 0;
    for (; i + 3 < dims; i += 4) {
      const x0 = m[off + i]!;
      const x1 = m[off + i + 1]!;
      const x2 = m[off + i + 2]!;
      const x3 = m[off + i + 3]!;
      a += x0 * q[i]!;
      b += x1 * q[i + 1]!;
      c += x2 * q[i + 2]!;
      d += x3 * q[i + 3]!;
      e += x0 * p[i]!;
      f += x1 * p[i + 1]!;
      g += x2 * p[i + 2]!;
      h += x3 * p[i + 3]!;
    }
    for (; i < dims; i++) {
      a += m[off + i]! * q[i]!;
      e += m[off + i]! * p[i]!;
    }
    const cq = a + b + c + d;
    const cp = e + f + g + h;
    if (cq > floor) {
      hq.rows.push(r);
      hq.cos.push(cq);
    }
    if (cp > floor) {
      hp.rows.push(r);
      hp.cos.push(cp);
    }
  }
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
