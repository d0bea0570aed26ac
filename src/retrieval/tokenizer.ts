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
  private readonly bytes = new TextEncoder();

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
    if (text.length <= LONG_PRETOKEN || !this.ranks) return this.tiktoken.encode(text, [], []);
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
      pushAll(out, this.mergeLong(this.bytes.encode(m[0])));
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
   * adjacent pairs keyed (rank, position); stale heap entries are skipped by a version check.
   */
  private mergeLong(piece: Uint8Array): number[] {
    const ranks = this.ranks!;
    const direct = ranks.get(piece.join(','));
    if (direct !== undefined) return [direct];
    const n = piece.length;
    const end = new Int32Array(n);
    const next = new Int32Array(n);
    const prev = new Int32Array(n);
    const version = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      end[i] = i + 1;
      next[i] = i + 1 < n ? i + 1 : -1;
      prev[i] = i - 1;
    }
    const heap = new PairHeap();
    const rankOf = (a: number, b: number): number | undefined => ranks.get(piece.subarray(a, end[b]!).join(','));
    const pushPair = (left: number): void => {
      const right = next[left]!;
      if (right < 0) return;
      const r = rankOf(left, right);
      if (r !== undefined) heap.push(r, left, version[left]!, right, version[right]!);
    };
    for (let i = 0; i + 1 < n; i++) pushPair(i);
    for (;;) {
      const top = heap.pop();
      if (!top) break;
      const [, left, lv, right, rv] = top;
      if (version[left] !== lv || version[right] !== rv || next[left] !== right) continue;
      // Merge right into left.
      end[left] = end[right]!;
      next[left] = next[right]!;
      if (next[right]! >= 0) prev[next[right]!] = left;
      version[left]!++;
      version[right] = -1;
      if (prev[left]! >= 0) pushPair(prev[left]!);
      pushPair(left);
    }
    const ids: number[] = [];
    for (let i = 0; i >= 0; i = next[i]!) {
      const id = ranks.get(piece.subarray(i, end[i]!).join(','));
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }
}

function pushAll(out: number[], ids: number[]): void {
  for (let i = 0; i < ids.length; i++) out.push(ids[i]!);
}

/** A binary min-heap of [rank, left, leftVersion, right, rightVersion], ordered by rank then position. */
class PairHeap {
  private readonly items: Array<[number, number, number, number, number]> = [];

  push(rank: number, left: number, lv: number, right: number, rv: number): void {
    const a = this.items;
    a.push([rank, left, lv, right, rv]);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): [number, number, number, number, number] | undefined {
    const a = this.items;
    if (a.length === 0) return undefined;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l]!, a[m]!)) m = l;
        if (r < a.length && less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

function less(x: readonly number[], y: readonly number[]): boolean {
  return x[0]! < y[0]! || (x[0] === y[0] && x[1]! < y[1]!);
}
