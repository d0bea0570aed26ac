/**
 * Chat completions over any OpenAI-compatible endpoint (OpenAI, Gemini, DeepSeek, OpenRouter,
 * Together, vLLM, Ollama, llama.cpp server) through the `openai` SDK, and over Anthropic's Messages
 * API (anthropic.ts), with the SDKs' own retries off: ours are the only layer.
 */
import type OpenAI from 'openai';
import type Anthropic from '@anthropic-ai/sdk';
import { anthropicBody, anthropicClient, storedAnthropicReply } from './anthropic.js';
import type { ChatMessage } from '../core/protocol.js';
import type { Role } from './usage.js';
import { cacheKey, jsonCodec } from './cache.js';
import { BadReplyError, ProviderError, namingHost, notJsonReply } from './errors.js';
import { pricesFor, type ModelEntry } from './models.js';
import { DeferredRequestError, type DeferSink, type DeferredRequest } from './batch/defer.js';
import type { Endpoint, ProviderSession } from './session.js';
import { endpointId, provenanceOf, type Origin, type Provenance } from './provenance.js';
import { REPLY_TOKENS_ASSUMED, promptTokensAtMost, type RequestCost } from './budget.js';
import { costOf } from './usage.js';

export interface ChatRequest {
  messages: ChatMessage[];
  /** null = leave it to the server (reasoning models reject temperature 0). */
  temperature: number | null;
  maxTokens: number | null;
  jsonMode: boolean;
  /**
   * Structured outputs: the reply must match this JSON Schema (`response_format` json_schema, strict).
   * Only for models whose registry entry says `structuredOutputs: true`; others get a plain-JSON prompt.
   */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
}

export interface ChatReply {
  text: string;
  prompt_tokens: number;
  completion_tokens: number;
  cached: boolean;
  /** The reply came from a batch job (billed at batch prices). */
  batch?: boolean;
  /** Endpoint, served model, fingerprint; for a cached reply, the endpoint it was cached from. */
  provenance: Provenance;
}

/** A chat reply as the response cache holds it (interactive and batch replies alike). */
export interface StoredReply {
  text: string;
  prompt_tokens: number;
  completion_tokens: number;
  /** Set on replies collected from a batch job. */
  batch?: true;
  /** Absent in entries cached before provenance was recorded. */
  origin?: Origin;
}

export const chatReplyCodec = jsonCodec<StoredReply>();

export class ChatModel {
  private client: Promise<OpenAI> | null = null;
  private anthropic: Promise<Anthropic> | null = null;
  readonly wireModel: string;
  /** The longest reply seen (completion tokens): what --max-cost assumes of a request without max_tokens, at least. */
  private longestReply = 0;
  /** Under --max-cost: the first request without max_tokens, which the others wait for (its reply length prices them). */
  private firstReply: Promise<StoredReply> | null = null;

  constructor(
    private readonly session: ProviderSession,
    readonly role: Extract<Role, 'reader' | 'judge' | 'extract'>,
    readonly entry: ModelEntry,
    private readonly endpoint: Endpoint,
  ) {
    this.wireModel = entry.apiModel ?? entry.name;
  }

  private sdk(): Promise<OpenAI> {
    return (this.client ??= openaiClient(this.endpoint, this.session.transport.timeoutMs));
  }

  /** The response cache key `complete` uses for a request (recorded by callers that log their requests). */
  keyOf(req: ChatRequest, replicate = 0): string {
    return cacheKey({ ...this.semantic(req), ...this.session.cacheScopeKey(this.endpoint) }, replicate);
  }

  /** The semantic request: what goes into the cache key (never the API key; the endpoint per --cache-scope). */
  private semantic(req: ChatRequest): Record<string, unknown> {
    return {
      kind: 'chat',
      provider: this.entry.provider,
      model: this.wireModel,
      messages: req.messages,
      temperature: req.temperature,
      max_tokens: req.maxTokens,
      response_format: req.jsonSchema
        ? { type: 'json_schema', name: req.jsonSchema.name, strict: true, schema: req.jsonSchema.schema }
        : req.jsonMode
          ? 'json_object'
          : null,
    };
  }

  /**
   * One completion. `replicate` separates repeated identical requests (judge runs 1..3).
   * `keep` decides whether a reply is worth caching (an unreadable judge reply is not).
   */
  async complete(req: ChatRequest, replicate: number, keep: (text: string) => boolean = () => true): Promise<ChatReply> {
    const key = this.keyOf(req, replicate);
    const defer = this.session.transport.defer;
    const { value, cached } = await this.session.cache.through(
      this.role,
      key,
      chatReplyCodec,
      () => (defer ? this.deferTo(defer, key, req, replicate) : this.send(req)),
      // A batch reply is checked by its caller after reading (and dropped if unusable, below).
      (r) => r.text.trim() !== '' && (r.batch === true || keep(r.text)),
    );
    // Only batch replies reach the cache unchecked: one the caller cannot use is dropped, so the
    // caller's error (an item error) is redone by a new request on --retry-errors.
    if (cached && value.batch && !keep(value.text)) this.session.cache.delete(key);
    const batch = value.batch === true;
    this.session.usage.record(
      this.role,
      this.entry.name,
      { prompt_tokens: value.prompt_tokens, completion_tokens: value.completion_tokens, search_units: 0 },
      cached,
      pricesFor(this.entry, batch),
    );
    const provenance = provenanceOf(value.origin, endpointId(this.endpoint.baseUrl), cached);
    this.session.provenance.record(this.role, provenance);
    return {
      text: value.text,
      prompt_tokens: value.prompt_tokens,
      completion_tokens: value.completion_tokens,
      cached,
      provenance,
      ...(batch ? { batch } : {}),
    };
  }

  /** The prices a reply is billed at (batch replies at the model's batch prices). */
  pricesOf(reply: Pick<ChatReply, 'batch'>): ModelEntry['prices'] | undefined {
    return pricesFor(this.entry, reply.batch === true);
  }

  /** Batch mode: record the request for a batch job instead of sending it. */
  private async deferTo(sink: DeferSink, key: string, req: ChatRequest, replicate: number): Promise<StoredReply> {
    const failed = sink.failure?.(key);
    if (failed !== undefined)
      throw new ProviderError(this.session.secrets.scrub(`${this.role} request to ${this.entry.name} failed in a batch job: ${failed}`), {
        role: this.role,
        model: this.entry.name,
        attempts: 1,
        retryable: false,
      });
    const wire = BATCH_WIRE[this.entry.protocol];
    if (!wire) throw new Error(`${this.entry.name}: no batch request form for protocol '${this.entry.protocol}'`);
    sink.add({
      key,
      role: this.role,
      model: this.entry.name,
      baseUrl: this.endpoint.baseUrl,
      ...wire(this.wireModel, req),
      replicate,
    });
    throw new DeferredRequestError(key);
  }

  /** What a request may cost (for --max-cost): its prompt and reply budget at the model's prices, then its real usage. */
  private costOf(req: ChatRequest): RequestCost<StoredReply> {
    const prices = pricesFor(this.entry, false);
    const reply = req.maxTokens ?? Math.max(REPLY_TOKENS_ASSUMED, 2 * this.longestReply);
    const prompt = promptTokensAtMost(req.messages.map((m) => m.content));
    return {
      estimate: costOf({ prompt_tokens: prompt, completion_tokens: reply, search_units: 0 }, prices),
      actual: (r) => {
        this.longestReply = Math.max(this.longestReply, r.completion_tokens);
        return costOf({ prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens, search_units: 0 }, prices);
      },
    };
  }

  private async send(req: ChatRequest): Promise<StoredReply> {
    // Under --max-cost, a request without max_tokens is priced by the replies seen: until the first
    // reply of this model is in, the others wait for it rather than go out priced on a guess.
    if (this.session.transport.costCap && req.maxTokens === null) {
      if (!this.firstReply) return (this.firstReply = this.sendPriced(req));
      await this.firstReply.catch(() => undefined);
    }
    return this.sendPriced(req);
  }

  private sendPriced(req: ChatRequest): Promise<StoredReply> {
    const session = this.session.to({ endpoint: this.endpoint.baseUrl, cost: this.costOf(req) });
    if (this.entry.protocol === 'anthropic')
      return session.send(this.role, this.entry.name, async (timeoutMs) => {
        const client = await (this.anthropic ??= anthropicClient(this.endpoint, this.session.transport.timeoutMs));
        const res = await namingHost(this.endpoint.baseUrl, () =>
          client.messages.create(anthropicBody(this.wireModel, req), { timeout: timeoutMs, maxRetries: 0 }),
        );
        if (typeof res === 'string') throw notJsonReply(res);
        return storedAnthropicReply(res, endpointId(this.endpoint.baseUrl));
      });
    return session.send(this.role, this.entry.name, async (timeoutMs) => {
      const client = await this.sdk();
      const res = await namingHost(this.endpoint.baseUrl, () =>
        client.chat.completions.create(chatBody(this.wireModel, req), { timeout: timeoutMs, maxRetries: 0 }),
      );
      // The SDK hands back a non-JSON 200 body (a login or proxy page) as a bare string.
      if (typeof res === 'string') throw notJsonReply(res);
      return storedReply(res, endpointId(this.endpoint.baseUrl));
    });
  }
}

/** A deferred request's endpoint path and body, by the model's protocol (the batch backend follows the path). */
const BATCH_WIRE: Partial<Record<ModelEntry['protocol'], (wireModel: string, req: ChatRequest) => Pick<DeferredRequest, 'url' | 'body'>>> =
  {
    openai: (m, req) => ({ url: '/v1/chat/completions', body: chatBody(m, req) }),
    anthropic: (m, req) => ({ url: '/v1/messages', body: anthropicBody(m, req) }),
  };

/** The request body sent on the wire (interactively, or as a batch line's body). */
export function chatBody(wireModel: string, req: ChatRequest): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = { model: wireModel, messages: req.messages };
  if (req.temperature !== null) body.temperature = req.temperature;
  if (req.maxTokens !== null) body.max_tokens = req.maxTokens;
  if (req.jsonSchema)
    body.response_format = { type: 'json_schema', json_schema: { name: req.jsonSchema.name, strict: true, schema: req.jsonSchema.schema } };
  else if (req.jsonMode) body.response_format = { type: 'json_object' };
  return body;
}

/** What the cache keeps of a chat completion; an empty reply is a failed call, never an answer to judge. */
export function storedReply(
  res: Pick<OpenAI.Chat.ChatCompletion, 'choices' | 'usage'> & Partial<Pick<OpenAI.Chat.ChatCompletion, 'model' | 'system_fingerprint'>>,
  endpoint: string,
): StoredReply {
  const text = res?.choices?.[0]?.message?.content;
  if (typeof text !== 'string' || text.trim() === '') throw new BadReplyError('empty reply (no message content)', true);
  // Where the reply came from travels with it into the cache (provenance of later cache hits).
  const origin: Origin = { endpoint, served_model: res.model ?? null, system_fingerprint: res.system_fingerprint ?? null };
  return { text, prompt_tokens: res.usage?.prompt_tokens ?? 0, completion_tokens: res.usage?.completion_tokens ?? 0, origin };
}

/** The SDK is loaded on first use (it costs a second at start-up that local runs should not pay). */
export async function openaiClient(endpoint: Endpoint, timeoutMs: number): Promise<OpenAI> {
  const { default: OpenAISdk } = await import('openai');
  return new OpenAISdk({ apiKey: endpoint.apiKey, baseURL: endpoint.baseUrl, maxRetries: 0, timeout: timeoutMs });
}
