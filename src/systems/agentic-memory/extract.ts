/**
 * The write path's first step: the history cut into extraction batches (per session, or per N
 * turns, cut again to fit the extractor's context and reply budget), each batch rendered as one
 * extractor request (structured outputs where the model honours them), and the reply checked into
 * items. An unparsable reply is an ExtractionReplyError (an error for that batch), never an empty list.
 */
import { z } from 'zod';
import type { Turn } from '../../core/schema.js';
import { promptFile } from '../../scoring/prompts.js';
import type { ChatMessage } from '../../core/protocol.js';
import { serialiseTurn } from '../../retrieval/serialise.js';
import { countTokens } from '../../retrieval/tokenizer.js';
import type { MemoryConfig } from './config.js';

export const EXTRACT_PROMPT = 'agentic-memory-extract';

export interface Batch {
  /** 0-based position in the episode's batch list. */
  index: number;
  /** Turn indices first..last inclusive. */
  first: number;
  last: number;
  /** Stable key within an episode: `t<first>-<last>`. */
  key: string;
  /** Cut from a longer session (or run of N turns) to fit the extractor's context window and reply budget. */
  cut?: true;
  /** One turn longer than the segment budget on its own: sent as it is (the provider may refuse it). */
  oversized?: true;
}

/** Assumed reply tokens per turn read (about one 45-token JSON item every two turns); the dry run's figure too. */
export const EST_EXTRACT_OUTPUT_PER_TURN = 25;
/** Context window assumed for a chat model whose registry entry gives none (models.yaml `contextWindow`). */
export const DEFAULT_CONTEXT_WINDOW = 16_384;
/** Chat format overhead per message (role, separators). */
export const MESSAGE_OVERHEAD = 4;

/** How much one extraction request may hold: turns (so the reply fits its budget) and segment tokens (so the prompt fits the context). */
export interface BatchLimits {
  maxTurns: number;
  maxSegmentTokens: number;
  /** The context window the limits were computed for, and whether the registry gave it. */
  contextWindow: number;
  contextKnown: boolean;
  replyBudget: number;
}

/**
 * The limits for an extractor: a batch's expected reply (EST_EXTRACT_OUTPUT_PER_TURN per turn)
 * must fit `memory.maxTokens`, and its prompt (instructions + segment) plus that reply budget
 * must fit the model's context window.
 */
export function batchLimits(model: { contextWindow?: number } | null, cfg: Pick<MemoryConfig, 'maxTokens'>): BatchLimits {
  const contextWindow = model?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const instructions = countTokens(promptFile(EXTRACT_PROMPT)) + countTokens('Conversation segment:\n') + 2 * MESSAGE_OVERHEAD;
  return {
    maxTurns: Math.max(1, Math.floor(cfg.maxTokens / EST_EXTRACT_OUTPUT_PER_TURN)),
    maxSegmentTokens: Math.max(1, contextWindow - cfg.maxTokens - instructions),
    contextWindow,
    contextKnown: model?.contextWindow !== undefined,
    replyBudget: cfg.maxTokens,
  };
}

/** A turn as the extractor reads it: its id, then the serialised turn. */
export function segmentLine(t: Turn): string {
  return `(${t.id}) ${serialiseTurn(t, 'message')}`;
}

/**
 * Batches over the first `visible` turns: consecutive turns of one session, or fixed runs of N
 * turns; each cut further (at turn boundaries) so no request exceeds `limits` — a 262k-token
 * MemoryAgentBench source is one "session", which no extractor could read or answer in one call.
 */
export function batchesOf(turns: readonly Turn[], visible: number, rule: MemoryConfig['batch'], limits?: BatchLimits): Batch[] {
  const out: Batch[] = [];
  const push = (first: number, last: number, cut: boolean, oversized = false) =>
    out.push({
      index: out.length,
      first,
      last,
      key: `t${first}-${last}`,
      ...(cut ? { cut: true } : {}),
      ...(oversized ? { oversized: true } : {}),
    });
  const emit = (first: number, last: number) => {
    if (!limits) return push(first, last, false);
    const lines = turns.slice(first, last + 1).map(segmentLine);
    // A cl100k token is at least one character: a run whose characters fit needs no counting.
    const chars = lines.reduce((s, l) => s + l.length + 1, 0);
    if (last - first + 1 <= limits.maxTurns && chars <= limits.maxSegmentTokens) return push(first, last, false);
    let start = first;
    let tokens = 0;
    for (let i = first; i <= last; i++) {
      const n = countTokens(lines[i - first]! + '\n');
      if (i > start && (i - start >= limits.maxTurns || tokens + n > limits.maxSegmentTokens)) {
        push(start, i - 1, true);
        start = i;
        tokens = 0;
      }
      tokens += n;
      if (i === start && n > limits.maxSegmentTokens) {
        push(i, i, true, true);
        start = i + 1;
        tokens = 0;
      }
    }
    if (start <= last) push(start, last, start !== first);
  };
  if (rule === 'session') {
    let start = 0;
    for (let i = 1; i <= visible; i++) {
      if (i === visible || turns[i]!.session !== turns[start]!.session) {
        emit(start, i - 1);
        start = i;
      }
    }
  } else {
    for (let s = 0; s < visible; s += rule) emit(s, Math.min(s + rule, visible) - 1);
  }
  return out;
}

/** One extractor request: the instructions, then the segment with each turn's id. */
export function extractionMessages(turns: readonly Turn[], batch: Batch): ChatMessage[] {
  const lines = turns.slice(batch.first, batch.last + 1).map(segmentLine);
  return [
    { role: 'system', content: promptFile(EXTRACT_PROMPT).replace(/\n$/, '') },
    { role: 'user', content: `Conversation segment:\n${lines.join('\n')}` },
  ];
}

/**
 * One item as the validation layer reads it. Checked, not brittle: keys the extractor adds are
 * ignored, and the handbook's defaults fill what it leaves out (attribute null, updates false,
 * entities none, importance 0.5, confidence 0.9); content, type and cited turns are required.
 */
export const ExtractedItemSchema = z
  .object({
    memory_type: z.enum(['episodic', 'semantic']),
    content: z.string().trim().min(1),
    entities: z.array(z.string()).default([]),
    attribute: z.string().nullable().default(null),
    updates: z.boolean().default(false),
    importance: z.number().min(0).max(1).default(0.5),
    confidence: z.number().min(0).max(1).default(0.9),
    source_turns: z.array(z.string()).min(1),
  })
  .strip();
export type ExtractedItem = z.infer<typeof ExtractedItemSchema>;

/**
 * The reply's JSON Schema for structured outputs (`response_format` json_schema, strict), sent to
 * models whose registry entry has `structuredOutputs: true`. Strict mode wants an object at the
 * top, every property required and no other: the items travel as `{"items": [...]}`.
 */
export const EXTRACTION_JSON_SCHEMA: { name: string; schema: Record<string, unknown> } = {
  name: 'memory_items',
  schema: {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            memory_type: { type: 'string', enum: ['episodic', 'semantic'] },
            content: { type: 'string' },
            entities: { type: 'array', items: { type: 'string' } },
            attribute: { type: ['string', 'null'] },
            updates: { type: 'boolean' },
            importance: { type: 'number' },
            confidence: { type: 'number' },
            source_turns: { type: 'array', items: { type: 'string' } },
          },
          required: ['memory_type', 'content', 'entities', 'attribute', 'updates', 'importance', 'confidence', 'source_turns'],
          additionalProperties: false,
        },
      },
    },
    required: ['items'],
    additionalProperties: false,
  },
};

export class ExtractionReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtractionReplyError';
  }
}

export interface ReadExtraction {
  items: ExtractedItem[];
  /** Elements that failed the item check (dropped and counted), and the first one's reason. */
  invalid: number;
  firstIssue: string | null;
}

/**
 * The reply as items: a JSON array, or `{"items": [...]}` (structured outputs); a single
 * surrounding ``` fence is tolerated. Each element is checked on its own: one that fails is
 * dropped and counted, the rest are kept. Throws ExtractionReplyError when the reply is not
 * such JSON, or when it has items and none passes (a reply in another format altogether).
 */
export function readExtraction(reply: string): ReadExtraction {
  let text = reply.trim();
  const fence = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  if (fence) text = fence[1]!.trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ExtractionReplyError(`extractor reply is not JSON (${(e as Error).message}): ${clip(reply)}`);
  }
  const list = Array.isArray(value)
    ? value
    : value !== null && typeof value === 'object' && Array.isArray((value as { items?: unknown }).items)
      ? (value as { items: unknown[] }).items
      : null;
  if (list === null) throw new ExtractionReplyError(`extractor reply is neither a JSON array nor {"items": [...]}: ${clip(reply)}`);
  const items: ExtractedItem[] = [];
  let firstIssue: string | null = null;
  list.forEach((el, i) => {
    const parsed = ExtractedItemSchema.safeParse(el);
    if (parsed.success) items.push(parsed.data);
    else {
      const issue = parsed.error.issues[0]!;
      firstIssue ??= `item ${i}${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}`;
    }
  });
  if (list.length > 0 && items.length === 0)
    throw new ExtractionReplyError(`no item of the extractor reply matches the item schema (first: ${firstIssue})`);
  return { items, invalid: list.length - items.length, firstIssue };
}

/** The items of a reply (readExtraction without the counts). */
export function parseExtraction(reply: string): ExtractedItem[] {
  return readExtraction(reply).items;
}

/** True when the reply parses (only such replies are kept in the response cache). */
export function isParsableExtraction(reply: string): boolean {
  try {
    readExtraction(reply);
    return true;
  } catch {
    return false;
  }
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 200 ? `${one.slice(0, 200)}...` : one;
}
