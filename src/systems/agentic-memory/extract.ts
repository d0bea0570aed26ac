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
import { batchLimits, instructionTokens, type Batch, type BatchLimits } from '../../ingest-llm/batches.js';
import { segmentMessages } from '../../ingest-llm/llm-step.js';
import type { MemoryConfig } from './config.js';

export const EXTRACT_PROMPT = 'agentic-memory-extract';

/** Assumed reply tokens per turn read (about one 45-token JSON item every two turns); the dry run's figure too. */
export const EST_EXTRACT_OUTPUT_PER_TURN = 25;

/** The extractor's batch limits: its context window, `memory.maxTokens` of reply, the extraction instructions. */
export function extractionLimits(model: { contextWindow?: number } | null, cfg: Pick<MemoryConfig, 'maxTokens'>): BatchLimits {
  return batchLimits(model, {
    replyBudget: cfg.maxTokens,
    outputPerTurn: EST_EXTRACT_OUTPUT_PER_TURN,
    instructionTokens: instructionTokens(promptFile(EXTRACT_PROMPT)),
  });
}

/** One extractor request: the instructions, then the segment with each turn's id. */
export function extractionMessages(turns: readonly Turn[], batch: Batch): ChatMessage[] {
  return segmentMessages(EXTRACT_PROMPT, turns, batch);
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
