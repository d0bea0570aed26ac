/**
 * Dense embeddings over an OpenAI-compatible /v1/embeddings endpoint (OpenAI
 * text-embedding-3-small; vLLM / TEI / Ollama for Qwen3-Embedding-4B). Every distinct text is
 * embedded once: vectors are cached per text, concurrent requests for a text share one call, and
 * texts asked for in the same tick travel together in as few requests as the API's limits allow
 * (<= 2,048 inputs and <= 300k tokens a request, <= 8,191 tokens an input).
 * `encoding_format: "float"` always: the SDK otherwise asks for base64, which float-only servers
 * ignore, and decodes their floats into garbage without an error.
 */
import type OpenAI from 'openai';
import { openaiClient } from '../../providers/chat.js';
import type { Embedder } from '../../core/retriever.js';
import { getTokenizer } from '../tokenizer.js';
import { cacheKey, vectorCodec } from '../../providers/cache.js';
import { BadReplyError, namingHost } from '../../providers/errors.js';
import type { ModelEntry } from '../../providers/models.js';
import type { Endpoint, ProviderSession } from '../../providers/session.js';
import { DeferredRequestError, type DeferSink } from '../../providers/batch/defer.js';
import { endpointId, provenanceOf } from '../../providers/provenance.js';
import { costOf } from '../../providers/usage.js';
import { readVectors } from '../../providers/embedding-reply.js';
import { ConfigurationError } from '../../util/errors.js';

export { readVectors };

interface Pending {
  input: string;
  key: string;
  tokens: number;
  resolve(v: Float32Array): void;
  reject(e: unknown): void;
}

export class RemoteEmbedder implements Embedder {
  readonly name: string;
  private client: Promise<OpenAI> | null = null;
  /** Vectors of this run by cache key: each distinct text is embedded once even with --no-cache. */
  private readonly memo = new Map<string, Float32Array>();
  private readonly wireModel: string;
  private queue: Pending[] = [];
  private scheduled = false;
  /** The vector length every reply must have: the registry's `dimensions`, else the first one seen. */
  private dimension: number | undefined;

  constructor(
    private readonly session: ProviderSession,
    readonly entry: ModelEntry,
    private readonly endpoint: Endpoint,
  ) {
    this.wireModel = entry.apiModel ?? entry.name;
    this.name = `${entry.provider}:${entry.name}`;
    this.dimension = entry.dimensions;
  }

  /** A usable vector: the expected length, every component finite. Also applied to cache hits. */
  private usable(v: Float32Array): boolean {
    if (v.length === 0 || (this.dimension !== undefined && v.length !== this.dimension)) return false;
    for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i]!)) return false;
    return true;
  }

  /**
   * A reply's vector length against the registry's `dimensions`, else the index's (the first reply's):
   * another length is the model or endpoint set wrong, the same for every item, so the run stops here.
   */
  private checkDimension(got: number): void {
    const declared = this.entry.dimensions !== undefined;
    this.dimension ??= got;
    if (got === this.dimension) return;
    const source = declared ? 'its registry entry declares' : "the index's vectors (its first reply) have";
    throw new ConfigurationError(
      `embedding model ${this.name} at ${endpointId(this.endpoint.baseUrl)} answered vectors of ${got} dimensions, ` +
        `but ${source} ${this.dimension}: expected ${this.dimension}, got ${got}. Check the model name, its "dimensions" ` +
        'and --embed-base-url (another model behind the endpoint?)',
    );
  }

  /** The text actually sent: queries get the model's instruction (Qwen3), inputs are capped in length. */
  prepare(text: string, kind: 'query' | 'document'): { input: string; tokens: number } {
    let input = kind === 'query' && this.entry.queryTemplate ? this.entry.queryTemplate.replace('{query}', text) : text;
    // The API rejects empty inputs.
    if (input.trim() === '') input = ' ';
    const enc = getTokenizer('cl100k_base');
    let ids = enc.encode(input);
    if (ids.length > this.entry.maxInputTokens) {
      ids = ids.slice(0, this.entry.maxInputTokens);
      input = enc.decode(ids);
    }
    return { input, tokens: ids.length };
  }

  async embed(texts: string[], kind: 'query' | 'document'): Promise<Float32Array[]> {
    return Promise.all(texts.map((t) => this.one(this.prepare(t, kind))));
  }

  private one({ input, tokens }: { input: string; tokens: number }): Promise<Float32Array> {
    const key = cacheKey({
      kind: 'embed',
      provider: this.entry.provider,
      model: this.wireModel,
      input,
      dimensions: this.entry.dimensions ?? null,
      encoding_format: 'float',
      ...this.session.cacheScopeKey(this.endpoint),
    });
    const cache = this.session.cache;
    const known = this.memo.get(key);
    if (known) return Promise.resolve(known);
    const shared = cache.inflightFor<Float32Array>(key);
    if (shared) {
      cache.counts.embed = cache.counts.embed ?? { hits: 0, misses: 0 };
      cache.counts.embed.hits++;
      return shared;
    }
    const hit = cache.lookup('embed', key, vectorCodec, (v) => this.usable(v));
    if (hit) {
      this.dimension ??= hit.length;
      this.memo.set(key, hit);
      this.session.usage.record(
        'embed',
        this.entry.name,
        { prompt_tokens: tokens, completion_tokens: 0, search_units: 0 },
        true,
        this.entry.prices,
      );
      // Vectors are stored bare: their origin is known only when the key holds the endpoint.
      const here = endpointId(this.endpoint.baseUrl);
      const origin = this.session.transport.cacheScope === 'endpoint' ? { endpoint: here } : undefined;
      this.session.provenance.record('embed', provenanceOf(origin, here, true));
      return Promise.resolve(hit);
    }
    const defer = this.session.transport.defer;
    if (defer?.embeddings) return this.deferTo(defer, key, input);
    const p = new Promise<Float32Array>((resolve, reject) => this.queue.push({ input, key, tokens, resolve, reject }));
    cache.shareInflight(key, p);
    if (!this.scheduled) {
      this.scheduled = true;
      // Everything asked for in this tick (an episode's chunks, concurrent questions) goes out together.
      setImmediate(() => this.flush());
    }
    return p;
  }

  /** --batch-embeddings: record the text for a batch job (one input per request, keyed like the cache). */
  private deferTo(sink: DeferSink, key: string, input: string): Promise<Float32Array> {
    const failed = sink.failure?.(key);
    if (failed !== undefined)
      return Promise.reject(new Error(`embedding of a text failed in a batch job: ${this.session.secrets.scrub(failed)}`));
    const body: OpenAI.EmbeddingCreateParams = { model: this.wireModel, input, encoding_format: 'float' };
    if (this.entry.dimensions) body.dimensions = this.entry.dimensions;
    sink.add({ key, role: 'embed', model: this.entry.name, baseUrl: this.endpoint.baseUrl, url: '/v1/embeddings', body, replicate: 0 });
    return Promise.reject(new DeferredRequestError(key));
  }

  private flush(): void {
    this.scheduled = false;
    const queue = this.queue;
    this.queue = [];
    for (const batch of batches(queue, this.entry.maxBatchInputs, this.entry.maxBatchTokens)) {
      this.sendBatch(batch).catch((e) => {
        for (const p of batch) p.reject(e);
      });
    }
  }

  private async sendBatch(batch: Pending[]): Promise<void> {
    // --max-cost: the texts' tokens (known before sending), then what the provider counted.
    const priced = (tokens: number) => costOf({ prompt_tokens: tokens, completion_tokens: 0, search_units: 0 }, this.entry.prices);
    const cost = {
      estimate: priced(batch.reduce((s, p) => s + p.tokens, 0)),
      actual: (r: { promptTokens: number }) => priced(r.promptTokens),
    };
    const session = this.session.to({ endpoint: this.endpoint.baseUrl, cost });
    const { vectors, promptTokens, servedModel } = await session.send('embed', this.entry.name, async (timeoutMs) => {
      const body: OpenAI.EmbeddingCreateParams = { model: this.wireModel, input: batch.map((p) => p.input), encoding_format: 'float' };
      if (this.entry.dimensions) body.dimensions = this.entry.dimensions;
      const client = await (this.client ??= openaiClient(this.endpoint, this.session.transport.timeoutMs));
      const res = await namingHost(this.endpoint.baseUrl, () => client.embeddings.create(body, { timeout: timeoutMs, maxRetries: 0 }));
      const vectors = readVectors(res, batch.length);
      // Checked before anything is stored: a wrong-sized or non-finite vector is an item error, and
      // a retry asks again instead of replaying it from the cache.
      this.checkDimension(vectors[0]!.length);
      vectors.forEach((v, i) => {
        if (!this.usable(v)) throw new BadReplyError(`embedding ${i} has a component that is not a finite number`, false);
      });
      return { vectors, promptTokens: res.usage?.prompt_tokens ?? batch.reduce((s, p) => s + p.tokens, 0), servedModel: res.model ?? null };
    });
    this.session.usage.record(
      'embed',
      this.entry.name,
      { prompt_tokens: promptTokens, completion_tokens: 0, search_units: 0 },
      false,
      this.entry.prices,
    );
    this.session.provenance.record('embed', provenanceOf({ served_model: servedModel }, endpointId(this.endpoint.baseUrl), false));
    batch.forEach((p, i) => {
      this.session.cache.keep('embed', p.key, vectors[i]!, vectorCodec);
      this.memo.set(p.key, vectors[i]!);
      p.resolve(vectors[i]!);
    });
  }
}

/** Splits texts into requests within the input-count and token limits, preserving order. */
export function batches<T extends { tokens: number }>(items: T[], maxInputs: number, maxTokens: number): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let tokens = 0;
  for (const it of items) {
    if (cur.length > 0 && (cur.length >= maxInputs || tokens + it.tokens > maxTokens)) {
      out.push(cur);
      cur = [];
      tokens = 0;
    }
    cur.push(it);
    tokens += it.tokens;
  }
  if (cur.length) out.push(cur);
  return out;
}
