/**
 * A block of word vectors held for the soft matcher's scan (cosine-scan.ts), with its two dot
 * products of one query against many rows:
 *   intDots    the exact integer dot product of every row's int8 components (the GloVe cache's)
 *              with the query's: the pre-filter;
 *   floatDots  the float dot product of listed float32 rows, summed exactly as cosine-scan's
 *              `dot` sums (four float64 accumulators over dims i mod 4, the dims left over added
 *              to the first, then a + b + c + d): the same bits, so the same ranking.
 *
 * Both run as WebAssembly SIMD over the rows in a WebAssembly memory: `i32x4.dot_i16x8_s` does
 * eight int16 products per instruction, `f64x2` two float products; the plain-JS loops they
 * replace (two rows packed per float64 for the integers) took ~20x and ~5x as long, and were most
 * of a LoCoMo run's reranking. The module (under 1 KB) is written out below, instruction by
 * instruction, one per dimension count. An engine without WebAssembly SIMD takes plain loops over
 * the same memory layout and gets the same numbers.
 */
/** int16 lanes per v128. */
const LANES = 8;

type IntDots = (rows: number, count: number, query: number, out: number) => void;
type FloatDots = (rows: number, list: number, count: number, query: number, out: number) => void;

export class DotRows {
  /** int16 values per integer row: dims rounded up to whole v128 (the padding is zero). */
  private readonly stride: number;
  private readonly ints: Int16Array;
  private readonly intQuery: Int16Array;
  private readonly sums: Int32Array;
  private readonly floats: Float32Array;
  private readonly floatQuery: Float64Array;
  /** Row numbers for floatDots (written by the caller) and their dot products. */
  readonly list: Int32Array;
  private readonly dots: Float64Array;
  private readonly kernels: { intDots: IntDots; floatDots: FloatDots } | null;

  /** `plain`: the plain loops even where WebAssembly SIMD exists (tests compare the two). */
  constructor(
    readonly dims: number,
    readonly rows: number,
    { plain = false }: { plain?: boolean } = {},
  ) {
    this.stride = Math.ceil(dims / LANES) * LANES;
    // Memory layout, each part 16-byte aligned: integer rows | integer query | sums |
    // float32 rows | float64 query | list | dots.
    let bytes = 0;
    const part = (size: number): number => {
      const at = bytes;
      bytes += Math.ceil(size / 16) * 16;
      return at;
    };
    const at = {
      ints: part(rows * this.stride * 2),
      intQuery: part(this.stride * 2),
      sums: part(rows * 4),
      floats: part(rows * dims * 4),
      floatQuery: part(dims * 8),
      list: part(rows * 4),
      dots: part(rows * 8),
    };
    const module = dims > 0 && !plain ? dotModule(dims) : null;
    let buffer: ArrayBuffer;
    if (module) {
      const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) });
      const { exports } = new WebAssembly.Instance(module, { env: { memory } });
      this.kernels = { intDots: exports.intDots as IntDots, floatDots: exports.floatDots as FloatDots };
      buffer = memory.buffer;
    } else {
      this.kernels = null;
      buffer = new ArrayBuffer(bytes);
    }
    this.ints = new Int16Array(buffer, at.ints, rows * this.stride);
    this.intQuery = new Int16Array(buffer, at.intQuery, this.stride);
    this.sums = new Int32Array(buffer, at.sums, rows);
    this.floats = new Float32Array(buffer, at.floats, rows * dims);
    this.floatQuery = new Float64Array(buffer, at.floatQuery, dims);
    this.list = new Int32Array(buffer, at.list, rows);
    this.dots = new Float64Array(buffer, at.dots, rows);
  }

  /** Sets row `r`: `dims` float32 values and `dims` integers (|x| <= 2^15), each from its array's start. */
  set(r: number, floats: Float32Array, ints: ArrayLike<number>): void {
    this.floats.set(floats.subarray(0, this.dims), r * this.dims);
    const at = r * this.stride;
    for (let d = 0; d < this.dims; d++) this.ints[at + d] = ints[d]!;
  }

  /** The integer dot product of every row with `query` (`dims` integers). The view is reused by the next call. */
  intDots(query: ArrayLike<number>): Int32Array {
    for (let d = 0; d < this.dims; d++) this.intQuery[d] = query[d]!;
    if (this.kernels) this.kernels.intDots(this.ints.byteOffset, this.rows, this.intQuery.byteOffset, this.sums.byteOffset);
    else
      for (let r = 0; r < this.rows; r++) {
        let sum = 0;
        for (let d = 0, at = r * this.stride; d < this.dims; d++) sum += this.ints[at + d]! * this.intQuery[d]!;
        this.sums[r] = sum;
      }
    return this.sums;
  }

  /**
   * The float dot product with `query` of the rows `list[0..count)`, in list order, summed as
   * `dot` sums. The view is reused by the next call.
   */
  floatDots(count: number, query: Float32Array): Float64Array {
    if (this.kernels) {
      this.floatQuery.set(query.subarray(0, this.dims));
      const { floats, list, floatQuery, dots } = this;
      this.kernels.floatDots(floats.byteOffset, list.byteOffset, count, floatQuery.byteOffset, dots.byteOffset);
    } else for (let k = 0; k < count; k++) this.dots[k] = dot(this.floats, this.list[k]! * this.dims, query, this.dims);
    return this.dots;
  }
}

/** Dot product of row `off` of `m` with `q` (four accumulators): the float cosine of two unit rows. */
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

const modules = new Map<number, WebAssembly.Module | null>();

/** The compiled kernels for rows of `dims` values; null when the engine lacks WebAssembly SIMD. */
function dotModule(dims: number): WebAssembly.Module | null {
  if (!modules.has(dims)) {
    const bytes = dotModuleBytes(dims);
    modules.set(dims, WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null);
  }
  return modules.get(dims)!;
}

/**
 * A module importing `env.memory` and exporting, for rows of `dims` values:
 *   intDots(rows, count, query, out): for each of `count` int16 rows of ceil(dims / 8) v128 from
 *     byte `rows`, the int32 dot product with the int16 vector at byte `query`, stored from byte
 *     `out` on. The query is held in locals; per row the v128 dot products are added up and the
 *     four int32 lanes summed.
 *   floatDots(rows, list, count, query, out): for each of the `count` int32 row numbers from byte
 *     `list`, the dot product of that float32 row (`dims` values from byte `rows`) with the float64
 *     vector at byte `query`, as float64 from byte `out` on. Accumulators (a, b) and (c, d) are two
 *     f64x2; dims 4g..4g+3 of a row are one v128 of float32, its low half promoted to (a, b)'s
 *     operands, its high half (shuffled down) to (c, d)'s.
 */
export function dotModuleBytes(dims: number): Uint8Array {
  const vectors = Math.ceil(dims / LANES);
  const groups = dims >> 2;
  const [I32, F64, V128] = [0x7f, 0x7c, 0x7b];
  const get = (i: number) => [0x20, ...uleb(i)];
  const set = (i: number) => [0x21, ...uleb(i)];
  const tee = (i: number) => [0x22, ...uleb(i)];
  const simd = (op: number) => [0xfd, ...uleb(op)];
  const v128Load = (offset: number) => [...simd(0x00), 4, ...uleb(offset)]; // align 16
  const v128Zero = [...simd(0x0c), ...new Array<number>(16).fill(0)];
  const i32Const = (n: number) => [0x41, ...sleb(n)];
  const [I32_ADD, I32_SUB, I32_MUL, I32_EQZ, I32_LOAD, I32_STORE] = [0x6a, 0x6b, 0x6c, 0x45, 0x28, 0x36];
  const [F32_LOAD, F64_LOAD, F64_STORE, F64_ADD, F64_MUL, F64_PROMOTE_F32] = [0x2a, 0x2b, 0x39, 0xa0, 0xa2, 0xbb];
  const [I32X4_DOT_I16X8_S, I32X4_ADD, I32X4_EXTRACT_LANE] = [simd(186), simd(174), simd(27)];
  const [F64X2_PROMOTE_LOW_F32X4, F64X2_ADD, F64X2_MUL, F64X2_EXTRACT_LANE] = [simd(95), simd(240), simd(242), simd(33)];
  const HIGH_HALF_DOWN = [...simd(0x0d), 8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15]; // i8x16.shuffle
  const [BLOCK, LOOP, BR_IF, END, VOID] = [0x02, 0x03, 0x0d, 0x0b, 0x40];
  /** Runs `body` `count` times (count in local `counter`, counted down; nothing when it is 0). */
  const repeat = (counter: number, body: number[]) => [
    ...[BLOCK, VOID, ...get(counter), I32_EQZ, BR_IF, 0, LOOP, VOID],
    ...body,
    ...[...get(counter), ...i32Const(1), I32_SUB, ...tee(counter), BR_IF, 0, END, END],
  ];
  const advance = (local: number, bytes: number) => [...get(local), ...i32Const(bytes), I32_ADD, ...set(local)];

  // intDots: parameters 0 rows, 1 count, 2 query, 3 out; locals 4 acc (v128), 5.. the query's v128s.
  const [ROWS, COUNT, QUERY, OUT, ACC, Q0] = [0, 1, 2, 3, 4, 5];
  const intBody: number[] = [];
  for (let j = 0; j < vectors; j++) intBody.push(...get(QUERY), ...v128Load(16 * j), ...set(Q0 + j));
  const intRow = [...get(ROWS), ...v128Load(0), ...get(Q0), ...I32X4_DOT_I16X8_S];
  for (let j = 1; j < vectors; j++) intRow.push(...get(ROWS), ...v128Load(16 * j), ...get(Q0 + j), ...I32X4_DOT_I16X8_S, ...I32X4_ADD);
  intRow.push(...set(ACC), ...get(OUT));
  const lane = (i: number) => [...get(ACC), ...I32X4_EXTRACT_LANE, i];
  intRow.push(...lane(0), ...lane(1), I32_ADD, ...lane(2), I32_ADD, ...lane(3), I32_ADD, I32_STORE, 2, 0);
  intRow.push(...advance(ROWS, 16 * vectors), ...advance(OUT, 4));
  intBody.push(...repeat(COUNT, intRow), END);
  const intCode = [...vec([[...uleb(1 + vectors), V128]]), ...intBody];

  // floatDots: parameters 0 rows, 1 list, 2 count, 3 query, 4 out; locals 5 row (i32), 6 ab, 7 cd, 8 v (v128), 9 a (f64).
  const [F_ROWS, F_LIST, F_COUNT, F_QUERY, F_OUT, ROW, AB, CD, V, A] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const floatRow = [...get(F_ROWS), ...get(F_LIST), I32_LOAD, 2, 0, ...i32Const(4 * dims), I32_MUL, I32_ADD, ...set(ROW)];
  floatRow.push(...v128Zero, ...set(AB), ...v128Zero, ...set(CD));
  const accumulate = (acc: number, half: number[], queryOffset: number) => [
    ...[...get(acc), ...get(V), ...half, ...F64X2_PROMOTE_LOW_F32X4],
    ...[...get(F_QUERY), ...v128Load(queryOffset), ...F64X2_MUL, ...F64X2_ADD, ...set(acc)],
  ];
  for (let g = 0; g < groups; g++) {
    floatRow.push(...get(ROW), ...v128Load(16 * g), ...set(V));
    floatRow.push(...accumulate(AB, [], 32 * g), ...accumulate(CD, [...get(V), ...HIGH_HALF_DOWN], 32 * g + 16));
  }
  floatRow.push(...get(AB), ...F64X2_EXTRACT_LANE, 0, ...set(A));
  for (let i = 4 * groups; i < dims; i++) {
    floatRow.push(...get(A), ...get(ROW), F32_LOAD, 2, ...uleb(4 * i), F64_PROMOTE_F32);
    floatRow.push(...get(F_QUERY), F64_LOAD, 3, ...uleb(8 * i), F64_MUL, F64_ADD, ...set(A));
  }
  floatRow.push(...get(F_OUT), ...get(A), ...get(AB), ...F64X2_EXTRACT_LANE, 1, F64_ADD);
  floatRow.push(...get(CD), ...F64X2_EXTRACT_LANE, 0, F64_ADD, ...get(CD), ...F64X2_EXTRACT_LANE, 1, F64_ADD, F64_STORE, 3, 0);
  floatRow.push(...advance(F_LIST, 4), ...advance(F_OUT, 8));
  const floatCode = [
    ...vec([
      [1, I32],
      [3, V128],
      [1, F64],
    ]),
    ...repeat(F_COUNT, floatRow),
    END,
  ];

  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
    ...section(
      1,
      vec([
        [0x60, ...vec([[I32], [I32], [I32], [I32]]), 0],
        [0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0],
      ]),
    ), // types
    ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]])), // import memory, min 1 page
    ...section(3, vec([[0], [1]])), // function 0: type 0, function 1: type 1
    ...section(
      7,
      vec([
        [...name('intDots'), 0x00, 0],
        [...name('floatDots'), 0x00, 1],
      ]),
    ), // exports
    ...section(10, vec([code(intCode), code(floatCode)])),
  ]);
}

const code = (body: number[]): number[] => [...uleb(body.length), ...body];

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(byte & 0x40)) || (n === -1 && byte & 0x40)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (s: string): number[] => vec([...Buffer.from(s, 'utf8')].map((b) => [b]));
const section = (id: number, bytes: number[]): number[] => [id, ...uleb(bytes.length), ...bytes];
