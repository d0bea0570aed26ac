/**
 * Deferral: with a DeferSink in the transport, a chat request that misses the response cache is
 * not sent. It is recorded (cache key, role, model, the exact request body) and the call throws
 * DeferredRequestError, which the pipeline reads as "not done yet": the item is not written and
 * stays pending. The recorded requests then go out as batch jobs whose replies fill the same
 * cache under the same keys, so the next pass finds them all.
 */
import type OpenAI from 'openai';
import type { AnthropicBody } from '../anthropic.js';

export interface DeferredRequest {
  /** The response-cache key of the request; also its `custom_id` in the batch. */
  key: string;
  role: 'reader' | 'judge' | 'embed' | 'extract';
  /** Registry name of the model (prices, limits, key). */
  model: string;
  /** Endpoint the interactive call would have used (no key). */
  baseUrl: string;
  /** The endpoint path the body is for (its protocol's: `/v1/messages` goes to Anthropic's Message Batches API). */
  url: '/v1/chat/completions' | '/v1/embeddings' | '/v1/messages';
  /** The request body exactly as the interactive call would send it (embeddings: one input per request). */
  body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming | OpenAI.EmbeddingCreateParams | AnthropicBody;
  replicate: number;
}

export interface DeferSink {
  /** Embeddings are deferred too (--batch-embeddings); otherwise only chat requests are. */
  readonly embeddings?: boolean;
  /** Records a request that missed the cache. */
  add(request: DeferredRequest): void;
  /**
   * A recorded batch failure for this key, if any: the call then fails (an item error, redone by
   * --retry-errors) instead of being deferred again forever.
   */
  failure?(key: string): string | undefined;
}

/** Thrown by a deferred call: the reply will come from a batch; the item is not done yet. */
export class DeferredRequestError extends Error {
  constructor(readonly key: string) {
    super(`request ${key.slice(0, 12)} deferred to a batch job`);
    this.name = 'DeferredRequestError';
  }
}

export function isDeferred(e: unknown): e is DeferredRequestError {
  return e instanceof DeferredRequestError || (e as Error | null)?.name === 'DeferredRequestError';
}

/** Collects the deferred requests of one pass, each key once, in a stable (key) order. */
export class DeferCollector implements DeferSink {
  private readonly byKey = new Map<string, DeferredRequest>();

  constructor(
    private readonly failures: ReadonlyMap<string, string> = new Map(),
    readonly embeddings = false,
  ) {}

  add(request: DeferredRequest): void {
    if (!this.byKey.has(request.key)) this.byKey.set(request.key, request);
  }

  failure(key: string): string | undefined {
    return this.failures.get(key);
  }

  get size(): number {
    return this.byKey.size;
  }

  requests(): DeferredRequest[] {
    return [...this.byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}
