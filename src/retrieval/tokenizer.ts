/**
 * The GPT-4 tokenizer (cl100k_base), offline: js-tiktoken ships the ranks in the package.
 * Loaded once per process; only the encoding we use is imported.
 *
 * Two things differ from calling js-tiktoken's `encode` directly, both because data is data:
 * - special-token text (`<|endoftext|>` in a real LongMemEval-S haystack) is encoded as the
 *   ordinary text it is, never refused (js-tiktoken throws by default) nor turned into a control token;
 * - a very long pre-token (1 MB of one character, a base64 blob) goes through an exact heap-based
 *   byte-pair merge instead of js-tiktoken's quadratic one, which takes minutes at 20k characters.
 *   The merge order is the same (lowest rank first, leftmost on ties), so token ids are identical.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { InputError } from '../util/errors.js';

export interface TextTokenizer {
  /** Token ids of `text`, special-token strings included as plain text. */
  encode(text: string): number[];
  decode(ids: number[]): string;
}

/** Pre-tokens longer than this (in UTF-16 units) take the heap-based merge; real prose never gets near. */
export const LONG_PRETOKEN = 512;

const LONG_RUN = new RegExp(`\\S{${LONG_PRETOKEN},}|\\s{${LONG_PRETOKEN},}`);

const cache = new Map<string, TextTokenizer>();

export function getTokenizer(name: string): TextTokenizer {
  if (name !== 'cl100k_base') {
    throw new InputError(`unsupported tokenizer '${name}' (supported: cl100k_base)`, { place: 'chunking.tokenizer' });
  }
  let enc = cache.get(name);
  if (!enc) {
    enc = new SafeTokenizer(new Tiktoken(cl100k), cl100k.pat_str);
    cache.set(name, enc);
  }
  return enc;
}

export function countTokens(text: string, name = 'cl100k_base'): number {
  return getTokenizer(name).encode(text).length;
}

class SafeTokenizer implements TextTokenizer {
  private readonly ranks: Map<string, number> | null;
  /** The same ranks keyed by the bytes as a latin1 string: substrings are cheap keys. Built on first need. */
  private binaryRanks: Map<string, number> | null = null;

  constructor(
    private readonly tiktoken: Tiktoken,
    private readonly pattern: string,
  ) {
    // js-tiktoken keeps its byte-sequence ranks in `rankMap` ("b1,b2,..." -> rank). If a future
    // version renames it, long pre-tokens fall back to the library's own (slow but exact) merge.
    const map = (tiktoken as unknown as { rankMap?: unknown }).rankMap;
    this.ranks = map instanceof Map ? (map as Map<string, number>) : null;
  }

  encode(text: string): number[] {
    // `[]` allowed and `[]` disallowed special tokens: their text is split and merged like any other.
    // A pre-token is at most one leading character plus a run of one class, so without a long
    // run of non-space (or space) characters there is none to worry about: the library's path.
    if (text.length <= LONG_PRETOKEN || !this.ranks || !LONG_RUN.test(text)) return this.tiktoken.encode(text, [], []);
    const out: number[] = [];
    let from = 0;
    const flush = (to: number): void => {
      if (to > from) pushAll(out, this.tiktoken.encode(text.slice(from, to), [], []));
    };
    // Same pre-tokenisation as the library; the text between long pre-tokens is encoded by the
    // library itself (it starts and ends on pre-token boundaries, so it splits the same way).
    for (const m of text.matchAll(new RegExp(this.pattern, 'gu'))) {
      if (m[0].length <= LONG_PRETOKEN) continue;
      flush(m.index);
      pushAll(out, this.mergeLong(Buffer.from(m[0], 'utf8').toString('latin1')));
      from = m.index + m[0].length;
    }
    flush(text.length);
    return out;
  }

  decode(ids: number[]): string {
    return this.tiktoken.decode(ids);
  }

  /**
   * Byte-pair merge of one pre-token in O(n log n): a linked list of parts and a min-heap of
   * adjacent pairs keyed rank * 2^32 + position (lowest rank first, leftmost on ties, as the
   * library does). A popped entry is current when its part is alive and the pair starting there
   * still has that rank; otherwise it is stale and skipped.
   */
  private mergeLong(piece: string): number[] {
    const ranks = (this.binaryRanks ??= binaryKeyed(this.ranks!));
    const direct = ranks.get(piece);
    if (direct !== undefined) return [direct];
    const n = piece.length;
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
      return right < 0 ? -1 : (ranks.get(piece.slice(left, end[right]!)) ?? -1);
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
    const ids: number[] = [];
    for (let i = 0; i >= 0; i = next[i]!) {
      const id = ranks.get(piece.slice(i, end[i]!));
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }
}

/** "104,105" -> "hi": one byte per UTF-16 unit, so a byte range of a piece is a substring. */
function binaryKeyed(ranks: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [bytes, rank] of ranks) out.set(String.fromCharCode(...bytes.split(',').map(Number)), rank);
  return out;
}

function pushAll(out: number[], ids: number[]): void {
  for (let i = 0; i < ids.length; i++) out.push(ids[i]!);
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
