/**
 * Byte-pair encoding over a tiktoken rank table (js-tiktoken's `ranks/*` files), giving the same
 * ids as js-tiktoken's `Tiktoken` with both special-token lists empty, at a fraction of its cost.
 *
 * js-tiktoken keys its ranks by the decimal byte values joined with commas ("104,105"), so building
 * the table (base64-decode and join 100K tokens) took ~0.5 s per process and every pre-token is
 * UTF-8 encoded and joined again before its lookup. Here the table is flat arrays (rank-table.ts)
 * looked up by byte range: each pre-token's bytes go into one reused buffer (an ASCII pre-token,
 * most of English text, is copied as it is), and every merge step looks up a range of it.
 *
 * The merge is js-tiktoken's: repeatedly join the adjacent pair of parts with the lowest rank,
 * leftmost on ties. Pre-tokens longer than LONG_PRETOKEN bytes take a heap-based O(n log n) merge in
 * the same order (js-tiktoken's quadratic one takes minutes at 20k characters).
 */
import { RankTable } from './rank-table.js';

/** What js-tiktoken's `ranks/<encoding>` modules export. */
export interface RankFile {
  pat_str: string;
  special_tokens: Record<string, number>;
  /** Lines `<label> <first rank> <base64 token> <base64 token> ...`, ranks consecutive. */
  bpe_ranks: string;
}

/** Pre-tokens longer than this (in bytes) take the heap-based merge; real prose never gets near. */
export const LONG_PRETOKEN = 512;

export class BytePairEncoder {
  private readonly table: RankTable;
  /** Special tokens' ids -> their UTF-8 bytes, decoded like js-tiktoken (encode never produces them). */
  private readonly special = new Map<number, Uint8Array>();
  private readonly pattern: RegExp;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder('utf-8');
  /** The current pre-token's bytes: `scratch`, or a buffer of its own for a longer one. */
  private readonly scratch = new Uint8Array(4096);
  private piece = this.scratch;

  constructor(file: RankFile) {
    this.table = new RankTable(file.bpe_ranks);
    for (const [text, id] of Object.entries(file.special_tokens)) this.special.set(id, this.encoder.encode(text));
    this.pattern = new RegExp(file.pat_str, 'uy');
  }

  /**
   * Token ids of `text`; special-token text is split and merged as the ordinary text it is.
   * The pre-tokens tile the text (any character starts one: a letter, a digit, a space, or one
   * of the others), so each is read where the last ended, by a sticky `test` that builds no match
   * array (~280K of them for LoCoMo). `out`: appended to (a history's ids, turn after turn), and returned.
   */
  encode(text: string, out: number[] = []): number[] {
    const re = this.pattern;
    re.lastIndex = 0;
    for (let at = 0; at < text.length; at = re.lastIndex) {
      if (!re.test(text)) throw new Error(`no pre-token at offset ${at}`); // cannot happen: see above
      const n = this.bytesOf(text, at, re.lastIndex);
      const buf = this.piece;
      const rank = this.table.rank(buf, 0, n);
      if (rank >= 0) out.push(rank);
      else if (n > LONG_PRETOKEN) this.mergeLong(buf, n, out);
      else this.merge(buf, n, out);
    }
    return out;
  }

  /** UTF-8 bytes of token `id` (what `decode` concatenates). */
  byteLength(id: number): number {
    return this.table.length(id) || (this.special.get(id)?.length ?? 0);
  }

  decode(ids: number[]): string {
    let length = 0;
    for (const id of ids) length += this.byteLength(id);
    const bytes = new Uint8Array(length);
    let at = 0;
    for (const id of ids) {
      const special = this.table.length(id) === 0 ? this.special.get(id) : undefined;
      if (special) {
        bytes.set(special, at);
        at += special.length;
      } else at = this.table.copy(id, bytes, at);
    }
    return this.decoder.decode(bytes);
  }

  /** Writes the UTF-8 bytes of text[from, to) into `piece` (lone surrogates as U+FFFD, as TextEncoder writes them); returns their count. */
  private bytesOf(text: string, from: number, to: number): number {
    const buf = (this.piece = (to - from) * 3 <= this.scratch.length ? this.scratch : new Uint8Array((to - from) * 3));
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) return this.encoder.encodeInto(text.slice(from, to), buf).written;
      buf[i - from] = c;
    }
    return to - from;
  }

  /** js-tiktoken's merge: parts are buf[bounds[i], bounds[i + 1]). */
  private merge(buf: Uint8Array, n: number, out: number[]): void {
    const bounds: number[] = [];
    for (let i = 0; i <= n; i++) bounds.push(i);
    while (bounds.length > 2) {
      let best = Infinity;
      let at = -1;
      for (let i = 0; i + 2 < bounds.length; i++) {
        const rank = this.table.rank(buf, bounds[i]!, bounds[i + 2]!);
        if (rank >= 0 && rank < best) {
          best = rank;
          at = i;
        }
      }
      if (at < 0) break;
      bounds.splice(at + 1, 1);
    }
    this.pushParts(buf, bounds, out);
  }

  /**
   * The same merge in O(n log n): a linked list of parts and a min-heap of adjacent pairs keyed
   * rank * 2^32 + position (lowest rank first, leftmost on ties). A popped entry is current when
   * its part is alive and the pair starting there still has that rank; otherwise it is skipped.
   */
  private mergeLong(buf: Uint8Array, n: number, out: number[]): void {
    const end = new Int32Array(n);
    const next = new Int32Array(n);
    const prev = new Int32Array(n);
    const alive = new Uint8Array(n).fill(1);
    for (let i = 0; i < n; i++) {
      end[i] = i + 1;
      next[i] = i + 1 < n ? i + 1 : -1;
      prev[i] = i - 1;
    }
    const heap = new KeyHeap(n);
    const rankAt = (left: number): number => {
      const right = next[left]!;
      return right < 0 ? -1 : this.table.rank(buf, left, end[right]!);
    };
    const pushPair = (left: number): void => {
      const r = rankAt(left);
      if (r >= 0) heap.push(r * 2 ** 32 + left);
    };
    for (let i = 0; i + 1 < n; i++) pushPair(i);
    while (heap.size > 0) {
      const key = heap.pop();
      const left = key % 2 ** 32;
      if (!alive[left] || rankAt(left) !== (key - left) / 2 ** 32) continue;
      const right = next[left]!;
      end[left] = end[right]!;
      next[left] = next[right]!;
      if (next[right]! >= 0) prev[next[right]!] = left;
      alive[right] = 0;
      if (prev[left]! >= 0) pushPair(prev[left]!);
      pushPair(left);
    }
    const bounds: number[] = [];
    for (let i = 0; i >= 0; i = next[i]!) bounds.push(i);
    bounds.push(n);
    this.pushParts(buf, bounds, out);
  }

  /** Ids of the parts; a part without a rank is left out, as js-tiktoken does. */
  private pushParts(buf: Uint8Array, bounds: number[], out: number[]): void {
    for (let i = 0; i + 1 < bounds.length; i++) {
      const rank = this.table.rank(buf, bounds[i]!, bounds[i + 1]!);
      if (rank >= 0) out.push(rank);
    }
  }
}

/** A binary min-heap of numeric keys in a growable Float64Array. */
class KeyHeap {
  private keys: Float64Array;
  size = 0;

  constructor(capacity: number) {
    this.keys = new Float64Array(Math.max(16, capacity));
  }

  push(key: number): void {
    if (this.size === this.keys.length) {
      const grown = new Float64Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    const a = this.keys;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= key) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = key;
  }

  pop(): number {
    const a = this.keys;
    const top = a[0]!;
    const last = a[--this.size]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const m = l + 1 < this.size && a[l + 1]! < a[l]! ? l + 1 : l;
      if (a[m]! >= last) break;
      a[i] = a[m]!;
      i = m;
    }
    a[i] = last;
    return top;
  }
}
