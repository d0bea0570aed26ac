/**
 * Chat over Anthropic's Messages API (`POST {baseUrl}/v1/messages`) through the official
 * `@anthropic-ai/sdk`, with its own retries off (ours are the only layer). What differs from the
 * OpenAI protocol: system messages travel in `system`, `max_tokens` is required, and there is no
 * `response_format` (a JSON reply is asked for by the prompt alone, as for any model without
 * structured outputs).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ChatMessage } from '../core/protocol.js';
import { BadReplyError } from './errors.js';
import type { Origin } from './provenance.js';
import type { Endpoint } from './session.js';

/**
 * `max_tokens` for a request that sets none (the protocol leaves the reply length to the server,
 * which Anthropic's API does not allow): long enough for any reader or judge reply.
 */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

export interface AnthropicRequest {
  messages: ChatMessage[];
  temperature: number | null;
  maxTokens: number | null;
}

/**
 * The body on the wire. `temperature` is a field of the Messages API that this SDK's types no
 * longer list; the SDK sends the body as given, so it still travels (0 for the reader and judge).
 */
export type AnthropicBody = Anthropic.MessageCreateParamsNonStreaming & { temperature?: number };

/** The request body sent on the wire. */
export function anthropicBody(wireModel: string, req: AnthropicRequest): AnthropicBody {
  const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content);
  const body: AnthropicBody = {
    model: wireModel,
    max_tokens: req.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages: req.messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role === 'assistant' ? ('assistant' as const) : ('user' as const), content: m.content })),
  };
  if (system.length > 0) body.system = system.join('\n\n');
  if (req.temperature !== null) body.temperature = req.temperature;
  return body;
}

/** What the cache keeps of a Messages API reply; an empty reply is a failed call. */
export function storedAnthropicReply(
  res: Pick<Anthropic.Message, 'content' | 'usage'> & Partial<Pick<Anthropic.Message, 'model'>>,
  endpoint: string,
): { text: string; prompt_tokens: number; completion_tokens: number; origin: Origin } {
  const text = (Array.isArray(res?.content) ? res.content : [])
    .flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []))
    .join('');
  if (text.trim() === '') throw new BadReplyError('empty reply (no text content)', true);
  const origin: Origin = { endpoint, served_model: res.model ?? null, system_fingerprint: null };
  return { text, prompt_tokens: res.usage?.input_tokens ?? 0, completion_tokens: res.usage?.output_tokens ?? 0, origin };
}

/** The SDK, loaded on first use. Its base URL has no `/v1` (the SDK adds it). */
export async function anthropicClient(endpoint: Endpoint, timeoutMs: number): Promise<Anthropic> {
  const { default: AnthropicSdk } = await import('@anthropic-ai/sdk');
  return new AnthropicSdk({ apiKey: endpoint.apiKey, baseURL: endpoint.baseUrl, maxRetries: 0, timeout: timeoutMs });
}
