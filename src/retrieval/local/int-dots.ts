/**
 * Exact integer dot products of one query with every row of a block of small-integer vectors
 * (the GloVe cache's int8 components): the soft matcher's pre-filter (cosine-scan.ts).
 *
 * The rows live as int16 in a WebAssembly memory and a SIMD loop (`i32x4.dot_i16x8_s`: eight
 * products summed into four 32-bit lanes per instruction) takes ~1/20 of the time of the best
 * plain-JS loop (two rows packed per float64), which was most of a LoCoMo run's reranking. The
 * module (~300 bytes) is written out below, instruction by instruction. The sums are exact
 * integers either way (|int8 x int8| x dims stays far below 2^31), so an engine without
 * WebAssembly SIMD takes a plain loop over the same int16 rows and gets the same numbers.
 */

/** int16 lanes per v128. */
const LANES = 8;

export class IntegerRows {
  /** int16 values per row: dims rounded up to whole v128 (the padding is zero). */
  private readonly stride: number;
  private readonly values: Int16Array;
  private readonly query: Int16Array;
  private readonly sums: Int32Array;
  private readonly kernel: ((rows: number, count: number, query: number, out: number) => void) | null;

  /** `plain`: the plain loop even where WebAssembly SIMD exists (tests compare the two). */
  constructor(
    readonly dims: number,
    readonly rows: number,
    { plain = false }: { plain?: boolean } = {},
  ) {
    this.stride = Math.ceil(dims / LANES) * LANES;
    // Memory layout: rows (rows x stride int16) | query (stride int16) | sums (rows int32).
    const rowBytes = rows * this.stride * 2;
    const queryBytes = this.stride * 2;
    const bytes = rowBytes + queryBytes + rows * 4;
    const module = dims > 0 && !plain ? dotModule(this.stride / LANES) : null;
    let buffer: ArrayBuffer;
    if (module) {
      const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) });
      const instance = new WebAssembly.Instance(module, { env: { memory } });
      this.kernel = instance.exports.dots as (rows: number, count: number, query: number, out: number) => void;
      buffer = memory.buffer;
    } else {
      this.kernel = null;
      buffer = new ArrayBuffer(bytes);
    }
    this.values = new Int16Array(buffer, 0, rows * this.stride);
    this.query = new Int16Array(buffer, rowBytes, this.stride);
    this.sums = new Int32Array(buffer, rowBytes + queryBytes, rows);
  }

  /** Sets row `r` to `dims` integers (|x| <= 2^15) from `from` at `offset`. */
  set(r: number, from: ArrayLike<number>, offset = 0): void {
    const at = r * this.stride;
    for (let d = 0; d < this.dims; d++) this.values[at + d] = from[offset + d]!;
  }

  /** Dot product of every row with `query` (`dims` integers). The view is reused by the next call. */
  dotAll(query: ArrayLike<number>): Int32Array {
    for (let d = 0; d < this.dims; d++) this.query[d] = query[d]!;
    if (this.kernel) this.kernel(this.values.byteOffset, this.rows, this.query.byteOffset, this.sums.byteOffset);
    else this.plainDots();
    return this.sums;
  }

  private plainDots(): void {
    const { values, query, stride, dims } = this;
    for (let r = 0; r < this.rows; r++) {
      let sum = 0;
      for (let d = 0, at = r * stride; d < dims; d++) sum += values[at + d]! * query[d]!;
      this.sums[r] = sum;
    }
  }
}

const modules = new Map<number, WebAssembly.Module | null>();

/** The compiled kernel for rows of `vectors` v128 each; null when the engine lacks WebAssembly SIMD. */
function dotModule(vectors: number): WebAssembly.Module | null {
  if (!modules.has(vectors)) {
    const bytes = dotModuleBytes(vectors);
    modules.set(vectors, WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null);
  }
  return modules.get(vectors)!;
}

/**
 * A module importing `env.memory` and exporting `dots(rows, count, query, out)`: for each of
 * `count` rows of `vectors` v128 (int16 lanes) from byte `rows`, the int32 dot product with the
 * vector at byte `query`, stored at byte `out` onwards. The query is held in locals; per row, the
 * `vectors` lane-wise dot products are added up and the four int32 lanes summed.
 */
export function dotModuleBytes(vectors: number): Uint8Array {
  const [I32, V128] = [0x7f, 0x7b];
  // Parameters 0 rows, 1 count, 2 query, 3 out; locals 4 acc (v128), 5.. the query's v128s.
  const [ROWS, COUNT, QUERY, OUT, ACC, Q0] = [0, 1, 2, 3, 4, 5];
  const get = (i: number) => [0x20, ...uleb(i)];
  const set = (i: number) => [0x21, ...uleb(i)];
  const tee = (i: number) => [0x22, ...uleb(i)];
  const simd = (op: number) => [0xfd, ...uleb(op)];
  const v128Load = (offset: number) => [...simd(0x00), 4, ...uleb(offset)]; // align 16
  const dot = simd(186); // i32x4.dot_i16x8_s
  const add = simd(174); // i32x4.add
  const lane = (i: number) => [...get(ACC), ...simd(27), i]; // i32x4.extract_lane i
  const i32Const = (n: number) => [0x41, ...sleb(n)];
  const [I32_ADD, I32_SUB, I32_EQZ, I32_STORE] = [0x6a, 0x6b, 0x45, 0x36];
  const [BLOCK, LOOP, BR_IF, END, VOID] = [0x02, 0x03, 0x0d, 0x0b, 0x40];

  const body: number[] = [];
  for (let j = 0; j < vectors; j++) body.push(...get(QUERY), ...v128Load(16 * j), ...set(Q0 + j));
  body.push(BLOCK, VOID, ...get(COUNT), I32_EQZ, BR_IF, 0); // no rows: done
  body.push(LOOP, VOID);
  body.push(...get(ROWS), ...v128Load(0), ...get(Q0), ...dot);
  for (let j = 1; j < vectors; j++) body.push(...get(ROWS), ...v128Load(16 * j), ...get(Q0 + j), ...dot, ...add);
  body.push(...set(ACC));
  body.push(...get(OUT), ...lane(0), ...lane(1), I32_ADD, ...lane(2), I32_ADD, ...lane(3), I32_ADD, I32_STORE, 2, 0);
  body.push(...get(ROWS), ...i32Const(16 * vectors), I32_ADD, ...set(ROWS));
  body.push(...get(OUT), ...i32Const(4), I32_ADD, ...set(OUT));
  body.push(...get(COUNT), ...i32Const(1), I32_SUB, ...tee(COUNT), BR_IF, 0); // next row while count > 0
  body.push(END, END, END); // loop, block, function
  const code = [...vec([[...uleb(1 + vectors), V128]]), ...body];

  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32]]), 0]])), // type: (i32 x 4) -> ()
    ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]])), // import memory, min 1 page
    ...section(3, vec([[0]])), // function 0 has type 0
    ...section(7, vec([[...name('dots'), 0x00, 0]])), // export function 0
    ...section(10, vec([[...uleb(code.length), ...code]])),
  ]);
}

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
