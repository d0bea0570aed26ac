/**
 * Chat completions over any OpenAI-compatible endpoint (OpenAI, DeepSeek, vLLM, Ollama,
 * llama.cpp server) through the `openai` SDK, with its own retries off: ours are the only layer.
 */
import type OpenAI from 'openai';
import type { ChatMessage } from '../eval/protocol.js';
import type { Role } from './usage.js';
import { cacheKey, jsonCodec } from './cache.js';
import { BadReplyError } from './errors.js';
import type { ModelEntry } from './models.js';
import type { Endpoint, ProviderSession } from './session.js';
import { endpointId, provenanceOf, type Origin, type Provenance } from './provenance.js';

export interface ChatRequest {
  messages: ChatMessage[];
  /** null = leave it to the server (reasoning models reject temperature 0). */
  temperature: number | null;
  maxTokens: number | null;
  jsonMode: boolean;
}

export interface ChatReply {
  text: string;
  prompt_tokens: number;
  completion_tokens: number;
  cached: boolean;
  /** Endpoint, served model, fingerprint; for a cached reply, the endpoint it was cached from. */
  provenance: Provenance;
}

interface StoredReply {
  text: string;
  prompt_tokens: number;
  completion_tokens: number;
  /** Absent in entries cached before provenance was recorded. */
  origin?: Origin;
}

export class ChatModel {
  private client: Promise<OpenAI> | null = null;
  readonly wireModel: string;

  constructor(
    private readonly session: ProviderSession,
    readonly role: Extract<Role, 'reader' | 'judge'>,
    readonly entry: ModelEntry,
    private readonly endpoint: Endpoint,
  ) {
    this.wireModel = entry.apiModel ?? entry.name;
  }

  private sdk(): Promise<OpenAI> {
    return (this.client ??= openaiClient(this.endpoint, this.session.transport.timeoutMs));
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
      response_format: req.jsonMode ? 'json_object' : null,
    };
  }

  /**
   * One completion. `replicate` separates repeated identical requests (judge runs 1..3).
   * `keep` decides whether a reply is worth caching (an unreadable judge reply is not).
   */
  async complete(req: ChatRequest, replicate: number, keep: (text: string) => boolean = () => true): Promise<ChatReply> {
    const key = cacheKey({ ...this.semantic(req), ...this.session.cacheScopeKey(this.endpoint) }, replicate);
    const { value, cached } = await this.session.cache.through(
      this.role,
      key,
      jsonCodec<StoredReply>(),
      () => this.send(req),
      (r) => r.text.trim() !== '' && keep(r.text),
    );
    this.session.usage.record(this.role, this.entry.name, { prompt_tokens: value.prompt_tokens, completion_tokens: value.completion_tokens, search_units: 0 }, cached, this.entry.prices);
    const provenance = provenanceOf(value.origin, endpointId(this.endpoint.baseUrl), cached);
    this.session.provenance.record(this.role, provenance);
    return { text: value.text, prompt_tokens: value.prompt_tokens, completion_tokens: value.completion_tokens, cached, provenance };
  }

  private send(req: ChatRequest): Promise<StoredReply> {
    return this.session.send(this.role, this.entry.name, async (timeoutMs) => {
      const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = { model: this.wireModel, messages: req.messages };
      if (req.temperature !== null) body.temperature = req.temperature;
      if (req.maxTokens !== null) body.max_tokens = req.maxTokens;
      if (req.jsonMode) body.response_format = { type: 'json_object' };
      const client = await this.sdk();
      const res = await client.chat.completions.create(body, { timeout: timeoutMs, maxRetries: 0 });
      const text = res.choices?.[0]?.message?.content;
      // An empty reply is a failed call (retried, then an item error), never an answer to judge.
      if (typeof text !== 'string' || text.trim() === '') throw new BadReplyError('empty reply (no message content)', true);
      const origin: Origin = { endpoint: endpointId(this.endpoint.baseUrl), served_model: res.model ?? null, system_fingerprint: res.system_fingerprint ?? null };
      return { text, prompt_tokens: res.usage?.prompt_tokens ?? 0, completion_tokens: res.usage?.completion_tokens ?? 0, origin };
    });
  }
}

/** The SDK is loaded on first use (it costs a second at start-up that local runs should not pay). */
export async function openaiClient(endpoint: Endpoint, timeoutMs: number): Promise<OpenAI> {
  const { default: OpenAISdk } = await import('openai');
  return new OpenAISdk({ apiKey: endpoint.apiKey, baseURL: endpoint.baseUrl, maxRetries: 0, timeout: timeoutMs });
}
