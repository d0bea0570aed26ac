/**
 * Cutting a history into LLM-at-ingest batches: one per session, or fixed runs of N turns, each
 * cut again at turn boundaries so no request exceeds the ingest model's context window or reply
 * budget. Shared by every system that calls an LLM while ingesting (the agentic memory extractor,
 * RAW-RAG's fact, summary and graph variants), so "per session" means the same turns everywhere —
 * and a 262k-token MemoryAgentBench source, one "session", is never one request.
 */
import type { Turn } from '../core/schema.js';
import { serialiseTurn } from '../retrieval/serialise.js';
import { countTokens } from '../retrieval/tokenizer.js';

/** `session`: consecutive turns of one session; a number: runs of that many turns. */
export type BatchRule = 'session' | number;

export interface Batch {
  /** 0-based position in the episode's batch list. */
  index: number;
  /** Turn indices first..last inclusive. */
  first: number;
  last: number;
  /** Stable key within an episode: `t<first>-<last>`. */
  key: string;
  /** Cut from a longer session (or run of N turns) to fit the model's context window and reply budget. */
  cut?: true;
  /** One turn longer than the segment budget on its own: sent as it is (the provider may refuse it). */
  oversized?: true;
}

/** Context window assumed for a chat model whose registry entry gives none (models.yaml `contextWindow`). */
export const DEFAULT_CONTEXT_WINDOW = 16_384;
/** Chat format overhead per message (role, separators). */
export const MESSAGE_OVERHEAD = 4;

/** How much one ingest request may hold: turns (so the reply fits its budget) and segment tokens (so the prompt fits the context). */
export interface BatchLimits {
  maxTurns: number;
  maxSegmentTokens: number;
  /** The context window the limits were computed for, and whether the registry gave it. */
  contextWindow: number;
  contextKnown: boolean;
  replyBudget: number;
  /** Reply tokens assumed per turn read. */
  outputPerTurn: number;
}

/**
 * The limits for one ingest step: a batch's expected reply (`outputPerTurn` per turn) must fit
 * the reply budget, and its prompt (the instructions, `instructionTokens`, plus the segment) and
 * that reply budget must fit the model's context window.
 */
export function batchLimits(
  model: { contextWindow?: number } | null,
  step: { replyBudget: number; outputPerTurn: number; instructionTokens: number },
): BatchLimits {
  const contextWindow = model?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  return {
    maxTurns: Math.max(1, Math.floor(step.replyBudget / step.outputPerTurn)),
    maxSegmentTokens: Math.max(1, contextWindow - step.replyBudget - step.instructionTokens),
    contextWindow,
    contextKnown: model?.contextWindow !== undefined,
    replyBudget: step.replyBudget,
    outputPerTurn: step.outputPerTurn,
  };
}

/** A turn as an ingest model reads it: its id, then the serialised turn. */
export function segmentLine(t: Turn): string {
  return `(${t.id}) ${serialiseTurn(t, 'message')}`;
}

/** The user message's lead-in before the segment's lines. */
export const SEGMENT_HEADER = 'Conversation segment:\n';

/** Tokens of a step's instructions as sent: the system prompt, the segment header, and both messages' overhead. */
export function instructionTokens(systemPrompt: string): number {
  return countTokens(systemPrompt) + countTokens(SEGMENT_HEADER) + 2 * MESSAGE_OVERHEAD;
}

/**
 * Batches over the first `visible` turns: consecutive turns of one session, or fixed runs of N
 * turns; with `limits`, each cut further (at turn boundaries) so no request exceeds them.
 */
export function batchesOf(turns: readonly Turn[], visible: number, rule: BatchRule, limits?: BatchLimits): Batch[] {
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
