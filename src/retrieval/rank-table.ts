/**
 * A tiktoken rank table (js-tiktoken's `ranks/*` files: lines `<label> <first rank> <base64
 * token> ...`) as flat arrays: every token's bytes in one Uint8Array, found by an open-addressing
 * hash table of their FNV-1a hashes. Nothing per token is a JS object, so building it is one pass
 * over the table's text (no 100K strings or Map entries to allocate, then copy through the young
 * generation), and a lookup reads a byte range of any buffer without making a string of it.
 */
export class RankTable {
  /** Token i's bytes are bytes[tokenStart[i], tokenStart[i + 1]). */
  private readonly bytes: Uint8Array;
  private readonly tokenStart: Int32Array;
  private readonly rankOfToken: Int32Array;
  /** Token of each rank (-1: none). */
  private readonly tokenOfRank: Int32Array;
  /** Token index + 1 per slot (0: empty). */
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(bpeRanks: string) {
    // Upper bounds: base64 holds 3 bytes per 4 characters; a token takes at least 5 characters with its separator.
    const bytes = new Uint8Array(Math.ceil((bpeRanks.length * 3) / 4));
    const tokenStart = new Int32Array(Math.ceil(bpeRanks.length / 5) + 2);
    const rankOfToken = new Int32Array(tokenStart.length);
    let tokens = 0;
    let used = 0;
    let maxRank = -1;
    let p = 0;
    const n = bpeRanks.length;
    while (p < n) {
      // `<label> <first rank>`, then base64 tokens up to the line's end.
      while (p < n && bpeRanks.charCodeAt(p) !== 0x20 && bpeRanks.charCodeAt(p) !== 0x0a) p++;
      if (p >= n || bpeRanks.charCodeAt(p) === 0x0a) {
        p++; // an empty or label-only line
        continue;
      }
      p++;
      let rank = 0;
      for (let c = bpeRanks.charCodeAt(p); c >= 0x30 && c <= 0x39; c = bpeRanks.charCodeAt(++p)) rank = rank * 10 + c - 0x30;
      while (p < n && bpeRanks.charCodeAt(p) !== 0x0a) {
        if (bpeRanks.charCodeAt(p) === 0x20) {
          p++;
          continue;
        }
        tokenStart[tokens] = used;
        rankOfToken[tokens++] = rank;
        if (rank > maxRank) maxRank = rank;
        rank++;
        // One base64 token: 6 bits per character, a byte out per 8 bits gathered; `=` pads.
        let acc = 0;
        let bits = 0;
        for (let c = bpeRanks.charCodeAt(p); p < n && c !== 0x20 && c !== 0x0a; c = bpeRanks.charCodeAt(++p)) {
          const v = BASE64[c]!;
          if (v < 0) continue;
          acc = ((acc << 6) | v) & 0xffffff;
          bits += 6;
          if (bits >= 8) {
            bits -= 8;
            bytes[used++] = (acc >> bits) & 0xff;
          }
        }
      }
      p++;
    }
    tokenStart[tokens] = used;
    this.bytes = bytes.subarray(0, used);
    this.tokenStart = tokenStart.subarray(0, tokens + 1);
    this.rankOfToken = rankOfToken.subarray(0, tokens);
    this.tokenOfRank = new Int32Array(maxRank + 1).fill(-1);
    for (let t = 0; t < tokens; t++) this.tokenOfRank[this.rankOfToken[t]!] = t;
    let size = 1;
    while (size < tokens * 2) size <<= 1;
    this.mask = size - 1;
    this.slots = new Int32Array(size);
    for (let t = 0; t < tokens; t++) {
      let s = fnv1a(this.bytes, this.tokenStart[t]!, this.tokenStart[t + 1]!) & this.mask;
      while (this.slots[s] !== 0) s = (s + 1) & this.mask;
      this.slots[s] = t + 1;
    }
  }

  /** Rank of the bytes buf[from, to), or -1 when they are not a token. */
  rank(buf: Uint8Array, from: number, to: number): number {
    const { bytes, tokenStart, slots, mask } = this;
    for (let s = fnv1a(buf, from, to) & mask; ; s = (s + 1) & mask) {
      const t = slots[s]! - 1;
      if (t < 0) return -1;
      const a = tokenStart[t]!;
      if (tokenStart[t + 1]! - a !== to - from) continue;
      let i = 0;
      while (i < to - from && bytes[a + i] === buf[from + i]) i++;
      if (i === to - from) return this.rankOfToken[t]!;
    }
  }

  /** Length in bytes of token `rank` (0 when there is none). */
  length(rank: number): number {
    const t = rank >= 0 && rank < this.tokenOfRank.length ? this.tokenOfRank[rank]! : -1;
    return t < 0 ? 0 : this.tokenStart[t + 1]! - this.tokenStart[t]!;
  }

  /** Copies token `rank`'s bytes into `out` at `at`; returns the position after them. */
  copy(rank: number, out: Uint8Array, at: number): number {
    const t = rank >= 0 && rank < this.tokenOfRank.length ? this.tokenOfRank[rank]! : -1;
    if (t < 0) return at;
    for (let i = this.tokenStart[t]!, end = this.tokenStart[t + 1]!; i < end; i++) out[at++] = this.bytes[i]!;
    return at;
  }
}

/** Base64 digit values by character code (-1: not a digit, as `=`). */
const BASE64 = (() => {
  const table = new Int8Array(128).fill(-1);
  const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < digits.length; i++) table[digits.charCodeAt(i)] = i;
  return table;
})();

/** FNV-1a over bytes [from, to), as a non-negative int32. */
function fnv1a(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h & 0x7fffffff;
}
