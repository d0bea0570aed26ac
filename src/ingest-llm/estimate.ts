/**
 * What an LLM-at-ingest step would send for a whole benchmark, before anything is spent: one
 * request per batch of every history the questions open, identical requests counted once (the
 * response cache answers the repeats: MEME's horizons share their earlier sessions). Prompt tokens
 * are cl100k counts of the real requests; replies are assumed `outputPerTurn` tokens per turn read,
 * capped at the reply budget (the callers' notes say so).
 */
import type { ChatMessage } from '../core/protocol.js';
import type { ProviderSession } from '../providers/session.js';
import { costOf } from '../providers/usage.js';
import type { Turn } from '../core/schema.js';
import { countTokens } from '../retrieval/tokenizer.js';
import { sha256Hex } from '../util/fsx.js';
import { MESSAGE_OVERHEAD, batchesOf, type Batch, type BatchLimits, type BatchRule } from './batches.js';

export interface BatchEstimate {
  /** Batches over all histories, repeats included (what the cache saves = batches - calls). */
  batches: number;
  /** Distinct requests. */
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Turns read by the distinct requests. */
  turnsRead: number;
  /** The largest request's prompt tokens. */
  maxPrompt: number;
  /** Distinct requests cut from a longer session (or run of N turns), the sessions cut, and single turns over the budget. */
  cut: number;
  sessionsCut: number;
  oversized: number;
}

export function estimateBatches(
  histories: Iterable<{ episodeId: string; turns: readonly Turn[]; visible: number }>,
  rule: BatchRule,
  limits: BatchLimits,
  messagesOf: (turns: readonly Turn[], batch: Batch) => ChatMessage[],
): BatchEstimate {
  const seen = new Set<string>();
  const cutSessions = new Set<string>();
  const e: BatchEstimate = {
    batches: 0,
    calls: 0,
    promptTokens: 0,
    completionTokens: 0,
    turnsRead: 0,
    maxPrompt: 0,
    cut: 0,
    sessionsCut: 0,
    oversized: 0,
  };
  for (const { episodeId, turns, visible } of histories) {
    for (const b of batchesOf(turns, visible, rule, limits)) {
      e.batches++;
      const messages = messagesOf(turns, b);
      const key = sha256Hex(messages.map((m) => m.content).join('\u0000'));
      if (seen.has(key)) continue;
      seen.add(key);
      const prompt = messages.reduce((s, m) => s + countTokens(m.content) + MESSAGE_OVERHEAD, 0);
      const read = b.last - b.first + 1;
      e.promptTokens += prompt;
      e.maxPrompt = Math.max(e.maxPrompt, prompt);
      e.completionTokens += Math.min(limits.replyBudget, limits.outputPerTurn * read);
      e.turnsRead += read;
      if (b.cut) {
        e.cut++;
        cutSessions.add(`${episodeId}\u0000${turns[b.first]!.session}`);
      }
      if (b.oversized) e.oversized++;
    }
  }
  e.calls = seen.size;
  e.sessionsCut = cutSessions.size;
  return e;
}

/**
 * The estimate's dollars at the ingest model's prices, and what a real run would stop on: no model,
 * no price, no key or endpoint. `what` names the step and its model in the notes (`extraction`, `extractor model`).
 */
export function ingestCost(
  e: BatchEstimate,
  model: string | null,
  session: ProviderSession,
  what: { step: string; modelWord: string; missingModel: string },
): { cost: number | null; notes: string[] } {
  if (model === null) return { cost: null, notes: [what.missingModel] };
  const notes: string[] = [];
  const entry = session.model(model, 'reader');
  const cost = costOf({ prompt_tokens: e.promptTokens, completion_tokens: e.completionTokens, search_units: 0 }, entry.prices);
  if (cost === null) notes.push(`no price for '${model}' in the model registry: ${what.step} cost unknown`);
  const a = session.availability(entry, 'reader');
  if (!a.ok) notes.push(`${a.reason.replace('reader model', what.modelWord)}: a real run would stop before writing anything`);
  return { cost, notes };
}

/** The dry run's sentence on how batches were cut to fit, and the largest request. */
export function limitsNote(
  what: string,
  model: string | null,
  limits: BatchLimits,
  figures: Pick<BatchEstimate, 'cut' | 'sessionsCut' | 'maxPrompt' | 'oversized'>,
): string[] {
  const contextNote = limits.contextKnown
    ? `${model}'s ${limits.contextWindow.toLocaleString('en-US')}-token context`
    : `an assumed ${limits.contextWindow.toLocaleString('en-US')}-token context (no contextWindow for '${model ?? 'no model'}' in the model registry)`;
  const out = [
    `${what} batches cut by tokens to fit ${contextNote} and the ${limits.replyBudget}-token reply budget: at most ${limits.maxTurns} turns ` +
      `(${limits.outputPerTurn} reply tokens per turn) and ${limits.maxSegmentTokens.toLocaleString('en-US')} segment tokens per request` +
      (figures.cut > 0 ? `; ${figures.sessionsCut} sessions cut into ${figures.cut} requests` : '; no session needed cutting') +
      `; largest request ${figures.maxPrompt.toLocaleString('en-US')} prompt tokens`,
  ];
  if (figures.oversized > 0)
    out.push(
      `${figures.oversized} single turns are longer than the segment budget on their own: sent whole, the provider may refuse them (their batches fail)`,
    );
  return out;
}
