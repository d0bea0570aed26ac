/**
 * The write path's first step: the history cut into extraction batches (per session, or per N
 * turns), each batch rendered as one extractor request, and the reply parsed strictly into items.
 * An unparsable reply is an ExtractionReplyError (an error for that batch), never an empty list.
 */
import { z } from 'zod';
import type { Turn } from '../../core/schema.js';
import { promptFile } from '../../scoring/prompts.js';
import type { ChatMessage } from '../../core/protocol.js';
import { serialiseTurn } from '../../retrieval/serialise.js';
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
}

/** Batches over the first `visible` turns: consecutive turns of one session, or fixed runs of N turns. */
export function batchesOf(turns: readonly Turn[], visible: number, rule: MemoryConfig['batch']): Batch[] {
  const out: Batch[] = [];
  const push = (first: number, last: number) => out.push({ index: out.length, first, last, key: `t${first}-${last}` });
  if (rule === 'session') {
    let start = 0;
    for (let i = 1; i <= visible; i++) {
      if (i === visible || turns[i]!.session !== turns[start]!.session) {
        push(start, i - 1);
        start = i;
      }
    }
  } else {
    for (let s = 0; s < visible; s += rule) push(s, Math.min(s + rule, visible) - 1);
  }
  return out;
}

/** One extractor request: the instructions, then the segment with each turn's id. */
export function extractionMessages(turns: readonly Turn[], batch: Batch): ChatMessage[] {
  const lines = turns.slice(batch.first, batch.last + 1).map((t) => `(${t.id}) ${serialiseTurn(t, 'message')}`);
  return [
    { role: 'system', content: promptFile(EXTRACT_PROMPT).replace(/\n$/, '') },
    { role: 'user', content: `Conversation segment:\n${lines.join('\n')}` },
  ];
}

export const ExtractedItemSchema = z
  .object({
    memory_type: z.enum(['episodic', 'semantic']),
    content: z.string().trim().min(1),
    entities: z.array(z.string()),
    attribute: z.string().nullable(),
    updates: z.boolean(),
    importance: z.number().min(0).max(1),
    confidence: z.number().min(0).max(1),
    source_turns: z.array(z.string()).min(1),
  })
  .strict();
export type ExtractedItem = z.infer<typeof ExtractedItemSchema>;

export class ExtractionReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtractionReplyError';
  }
}

/**
 * The reply as items: a JSON array (a single surrounding ``` fence is tolerated) whose every
 * element matches the schema exactly. Throws ExtractionReplyError otherwise.
 */
export function parseExtraction(reply: string): ExtractedItem[] {
  let text = reply.trim();
  const fence = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  if (fence) text = fence[1]!.trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ExtractionReplyError(`extractor reply is not JSON (${(e as Error).message}): ${clip(reply)}`);
  }
  const parsed = z.array(ExtractedItemSchema).safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ExtractionReplyError(
      `extractor reply does not match the item schema at ${issue.path.join('.') || '(top level)'}: ${issue.message}`,
    );
  }
  return parsed.data;
}

/** True when the reply parses (only such replies are kept in the response cache). */
export function isParsableExtraction(reply: string): boolean {
  try {
    parseExtraction(reply);
    return true;
  } catch {
    return false;
  }
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 200 ? `${one.slice(0, 200)}...` : one;
}
