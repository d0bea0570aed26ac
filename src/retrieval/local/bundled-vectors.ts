/**
 * Sentence vectors shipped with a bundled data set (`datasets/<name>/sentence-vectors.bin`), so
 * that its first run does not spend minutes embedding: e.g. the bundled LoCoMo's windows at the
 * default chunking and all its questions, computed by `scripts/build-sentence-vectors.mjs` with the
 * same model, one text per pass (so they equal a fresh computation bit for bit; tested). They are
 * looked up by the same key as the vector store; texts they do not hold are embedded as usual.
 *
 * Layout (little endian): magic `RRSV` | u32 version | u32 dims | u32 count | 32-byte sha256 of
 * everything after the header | count x 32-byte keys (sha256 digests, the store's keys as bytes) |
 * count x dims float32 vectors.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../util/paths.js';

export const BUNDLED_VECTOR_FILE = 'sentence-vectors.bin';
const MAGIC = 0x56535252; // 'RRSV'
const VERSION = 1;
const HEADER_BYTES = 16 + 32;

export interface BundledVectors {
  /** The vector stored under `key` (hex), or undefined. */
  get(key: string): Float32Array | undefined;
  readonly size: number;
}

export function encodeBundledVectors(entries: Array<{ key: string; vector: Float32Array }>, dims: number): Buffer {
  const keys = Buffer.concat(entries.map((e) => Buffer.from(e.key, 'hex')));
  const vectors = Buffer.alloc(entries.length * dims * 4);
  entries.forEach((e, i) => {
    if (e.vector.length !== dims) throw new Error(`vector ${i} has ${e.vector.length} dims, not ${dims}`);
    Buffer.from(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength).copy(vectors, i * dims * 4);
  });
  const payload = Buffer.concat([keys, vectors]);
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(VERSION, 4);
  header.writeUInt32LE(dims, 8);
  header.writeUInt32LE(entries.length, 12);
  createHash('sha256').update(payload).digest().copy(header, 16);
  return Buffer.concat([header, payload]);
}

/** Throws with the reason when `buf` is not a whole, intact file of `dims`-d vectors. */
export function decodeBundledVectors(buf: Buffer, dims: number): BundledVectors {
  if (buf.length < HEADER_BYTES || buf.readUInt32LE(0) !== MAGIC) throw new Error('not a rawrag sentence-vector file');
  if (buf.readUInt32LE(4) !== VERSION) throw new Error(`version ${buf.readUInt32LE(4)}, expected ${VERSION}`);
  if (buf.readUInt32LE(8) !== dims) throw new Error(`${buf.readUInt32LE(8)}-d vectors, expected ${dims}-d`);
  const count = buf.readUInt32LE(12);
  const payload = buf.subarray(HEADER_BYTES);
  if (payload.length !== count * (32 + dims * 4)) throw new Error(`truncated: ${payload.length} bytes for ${count} vectors`);
  if (!createHash('sha256').update(payload).digest().equals(buf.subarray(16, HEADER_BYTES))) throw new Error('checksum mismatch');
  const index = new Map<string, number>();
  for (let i = 0; i < count; i++) index.set(payload.toString('hex', i * 32, i * 32 + 32), i);
  const vectorStart = HEADER_BYTES + count * 32;
  return {
    size: count,
    get(key) {
      const i = index.get(key);
      if (i === undefined) return undefined;
      const out = new Float32Array(dims);
      Buffer.from(out.buffer).set(buf.subarray(vectorStart + i * dims * 4, vectorStart + (i + 1) * dims * 4));
      return out;
    },
  };
}

/** `datasets/<name>/sentence-vectors.bin` of every bundled data set. */
export function bundledVectorFiles(datasetsDir: string = fromRoot('datasets')): string[] {
  if (!existsSync(datasetsDir)) return [];
  return readdirSync(datasetsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(datasetsDir, d.name, BUNDLED_VECTOR_FILE))
    .filter((f) => existsSync(f))
    .sort();
}

/**
 * All bundled files as one lookup. A file that fails its checks is skipped and `onSkip` says why:
 * its texts are then embedded like any others (slower, same vectors).
 */
export function loadBundledVectors(files: string[], dims: number, onSkip: (file: string, why: string) => void): BundledVectors {
  const sets: BundledVectors[] = [];
  for (const f of files) {
    try {
      sets.push(decodeBundledVectors(readFileSync(f), dims));
    } catch (e) {
      onSkip(f, (e as Error).message);
    }
  }
  return {
    size: sets.reduce((s, x) => s + x.size, 0),
    get: (key) => {
      for (const s of sets) {
        const v = s.get(key);
        if (v) return v;
      }
      return undefined;
    },
  };
}
