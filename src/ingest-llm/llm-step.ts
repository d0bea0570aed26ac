/**
 * One LLM call at ingest, the way every system that extracts something makes it: the model
 * checked before anything is written, the request through the provider session (response cache,
 * retries, `--batch` deferral), structured outputs (`response_format` json_schema, strict) for a
 * model whose registry entry has `structuredOutputs: true` and a plain-JSON reply otherwise, the
 * reply parsed strictly (an unparsable reply is an error for that batch and is never cached).
 */
import { z } from 'zod';
import type { ChatMessage } from '../core/protocol.js';
import type { Turn } from '../core/schema.js';
import { promptFile } from '../scoring/prompts.js';
import { ChatModel, type ChatRequest } from '../providers/chat.js';
import type { ModelEntry } from '../providers/models.js';
import type { ProviderSession } from '../providers/session.js';
import { costOf } from '../providers/usage.js';
import { InputError } from '../util/errors.js';
import { SEGMENT_HEADER, segmentLine, type Batch } from './batches.js';

/** What one kind of ingest call returns: a zod schema (the parser) and its name for the JSON Schema. */
export interface JsonStep<T> {
  /** Names the schema on the wire (`response_format.json_schema.name`). */
  name: string;
  /** The prompt file (configs/prompts/<prompt>.txt). */
  prompt: string;
  schema: z.ZodType<T>;
}

export class IngestReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IngestReplyError';
  }
}

/** The strict JSON Schema of a step (OpenAI's strict mode wants every property required and no others). */
export function strictJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { target: 'draft-7' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

/** Parses a reply: JSON (one surrounding ``` fence tolerated) that matches the step's schema exactly. */
export function parseStepReply<T>(step: JsonStep<T>, reply: string): T {
  let text = reply.trim();
  const fence = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  if (fence) text = fence[1]!.trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new IngestReplyError(`${step.name} reply is not JSON (${(e as Error).message}): ${clip(reply)}`);
  }
  const parsed = step.schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new IngestReplyError(
      `${step.name} reply does not match its schema at ${issue.path.join('.') || '(top level)'}: ${issue.message}`,
    );
  }
  return parsed.data;
}

/** The request of one batch: the step's instructions, then the segment with each turn's id. */
export function segmentMessages(prompt: string, turns: readonly Turn[], batch: Batch): ChatMessage[] {
  const lines = turns.slice(batch.first, batch.last + 1).map(segmentLine);
  return [
    { role: 'system', content: promptFile(prompt).replace(/\n$/, '') },
    { role: 'user', content: `${SEGMENT_HEADER}${lines.join('\n')}` },
  ];
}

/** What one call cost and where its reply came from (recorded per batch in the run's ingest store). */
export interface CallFigures {
  request_key: string;
  cached: boolean;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
  ms: number;
}

/** What this process sent (cache hits cost nothing). */
export interface ProcessFigures {
  requests: number;
  cache_hits: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
}

export function noFigures(): ProcessFigures {
  return { requests: 0, cache_hits: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
}

/** Counts one reply into `into`: a cache hit costs nothing; a sent request adds its tokens and dollars (null once unknown). */
export function countReply(
  into: ProcessFigures,
  r: { cached: boolean; prompt_tokens: number; completion_tokens: number },
  cost: number | null,
): void {
  if (r.cached) {
    into.cache_hits++;
    return;
  }
  into.requests++;
  into.prompt_tokens += r.prompt_tokens;
  into.completion_tokens += r.completion_tokens;
  into.cost_usd = into.cost_usd === null || cost === null ? null : into.cost_usd + cost;
}

/** The LLM a system calls at ingest, checked up front (an InputError names the flag when it cannot run). */
export class IngestLlm {
  readonly entry: ModelEntry;
  readonly structured: boolean;
  readonly stats: ProcessFigures = noFigures();
  private readonly chat: ChatModel;

  constructor(session: ProviderSession, model: string | null, what: { system: string; flag: string }) {
    if (!model)
      throw new InputError(`${what.system} calls an LLM at ingest: give ${what.flag} MODEL (or --reader MODEL, which it then uses)`, {
        place: what.flag,
      });
    this.entry = session.model(model, 'reader');
    const a = session.availability(this.entry, 'reader');
    if (!a.ok)
      throw new InputError(`${what.system} cannot call its ingest model: ${a.reason.replace('reader model', 'ingest model')}`, {
        place: what.flag,
      });
    this.chat = new ChatModel(session, 'reader', this.entry, a.endpoint);
    this.structured = this.entry.structuredOutputs === true;
  }

  /** The request of a step: strict json_schema when the model supports it, a plain reply otherwise. */
  request<T>(step: JsonStep<T>, messages: ChatMessage[], maxTokens: number): ChatRequest {
    return {
      messages,
      temperature: 0,
      maxTokens,
      jsonMode: false,
      ...(this.structured ? { jsonSchema: { name: step.name, schema: strictJsonSchema(step.schema) } } : {}),
    };
  }

  /** One call; a deferral (--batch) is rethrown as is, a bad reply throws IngestReplyError (not cached). */
  async call<T>(step: JsonStep<T>, messages: ChatMessage[], maxTokens: number): Promise<{ value: T; figures: CallFigures }> {
    const t0 = performance.now();
    const req = this.request(step, messages, maxTokens);
    const keep = (text: string) => {
      try {
        parseStepReply(step, text);
        return true;
      } catch {
        return false;
      }
    };
    const r = await this.chat.complete(req, 0, keep);
    const cost = costOf({ prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens, search_units: 0 }, this.chat.pricesOf(r));
    countReply(this.stats, r, cost);
    const figures: CallFigures = {
      request_key: this.chat.keyOf(req, 0),
      cached: r.cached,
      prompt_tokens: r.prompt_tokens,
      completion_tokens: r.completion_tokens,
      cost_usd: cost,
      ms: Math.round(performance.now() - t0),
    };
    return { value: parseStepReply(step, r.text), figures };
  }
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 200 ? `${one.slice(0, 200)}...` : one;
}
