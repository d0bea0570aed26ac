/**
 * What extraction would cost for a whole benchmark, before anything is spent (`--dry-run`):
 * one request per batch of every (episode, visibility horizon) the questions open, identical
 * requests counted once (the response cache answers the repeats: MEME's horizons share their
 * earlier sessions, LongMemEval's haystacks share sessions). Prompt tokens are cl100k counts of
 * the real requests; reply lengths are an assumption (stated in the notes).
 */
import type { RunConfig } from '../../config/schema.js';
import type { Episode, Question } from '../../core/schema.js';
import { ProviderSession } from '../../providers/session.js';
import { costOf } from '../../providers/usage.js';
import { countTokens } from '../../retrieval/tokenizer.js';
import { sha256Hex } from '../../util/fsx.js';
import { extractorModel, memoryConfig } from './config.js';
import { EST_EXTRACT_OUTPUT_PER_TURN, extractionLimits, extractionMessages } from './extract.js';
import { MESSAGE_OVERHEAD, batchesOf, limitsNote } from '../../ingest/batches.js';

export { EST_EXTRACT_OUTPUT_PER_TURN };

export interface ExtractionEstimate {
  model: string | null;
  /** Distinct extraction requests (= batches extracted). */
  calls: number;
  /** Batches over all opened histories, repeats included (what the cache saves = batches - calls). */
  batches: number;
  input_tokens: number;
  output_tokens: number;
  /** null when the model's price is unknown. */
  cost_usd: number | null;
  /** Distinct requests cut from a longer session (or run of N turns) to fit the extractor's context and reply budget. */
  cut: number;
  /** Sessions (or runs) that were cut, and the largest request's prompt tokens. */
  sessions_cut: number;
  max_prompt_tokens: number;
  limits: { max_turns: number; max_segment_tokens: number; context_window: number; reply_budget: number };
  notes: string[];
}

export function estimateExtraction(
  data: { episodes: readonly Episode[]; questions: readonly Question[] },
  cfg: RunConfig,
  session: ProviderSession = new ProviderSession({ noCache: true }),
): ExtractionEstimate {
  const mcfg = memoryConfig(cfg);
  const model = extractorModel(cfg);
  const notes: string[] = [];
  const entry = model === null ? null : session.model(model, 'reader');
  const limits = extractionLimits(entry, mcfg);
  const episodes = new Map(data.episodes.map((e) => [e.id, e]));
  const horizons = new Map<string, { episode: Episode; visible: number }>();
  for (const q of data.questions) {
    const episode = episodes.get(q.episode);
    if (!episode) continue;
    const visible = q.visibleTurns ?? episode.turns.length;
    horizons.set(`${episode.id}\u0000${visible}`, { episode, visible });
  }
  const seen = new Set<string>();
  let batches = 0;
  let input = 0;
  let output = 0;
  let cut = 0;
  let maxPrompt = 0;
  let oversized = 0;
  const cutSessions = new Set<string>();
  for (const { episode, visible } of horizons.values()) {
    for (const b of batchesOf(episode.turns, visible, mcfg.batch, limits)) {
      batches++;
      const messages = extractionMessages(episode.turns, b);
      const key = sha256Hex(messages.map((m) => m.content).join('\u0000'));
      if (seen.has(key)) continue;
      seen.add(key);
      const prompt = messages.reduce((s, m) => s + countTokens(m.content) + MESSAGE_OVERHEAD, 0);
      input += prompt;
      maxPrompt = Math.max(maxPrompt, prompt);
      output += Math.min(mcfg.maxTokens, EST_EXTRACT_OUTPUT_PER_TURN * (b.last - b.first + 1));
      if (b.cut) {
        cut++;
        cutSessions.add(`${episode.id}\u0000${episode.turns[b.first]!.session}`);
      }
      if (b.oversized) oversized++;
    }
  }
  notes.push(...limitsNote('extraction', model, limits, { cut, sessionsCut: cutSessions.size, maxPrompt, oversized }));
  notes.push(
    `extraction replies assumed ${EST_EXTRACT_OUTPUT_PER_TURN} tokens per turn read (capped at ${mcfg.maxTokens} per batch); the items' embeddings are not counted`,
  );
  let cost: number | null = null;
  if (model === null || entry === null) notes.push('no extraction model: give --extractor MODEL (or --reader MODEL)');
  else {
    cost = costOf({ prompt_tokens: input, completion_tokens: output, search_units: 0 }, entry.prices);
    if (cost === null) notes.push(`no price for '${model}' in the model registry: extraction cost unknown`);
    const a = session.availability(entry, 'reader');
    if (!a.ok) notes.push(`${a.reason.replace('reader model', 'extractor model')}: a real run would stop before writing anything`);
  }
  return {
    model,
    calls: seen.size,
    batches,
    input_tokens: input,
    output_tokens: output,
    cost_usd: cost,
    cut,
    sessions_cut: cutSessions.size,
    max_prompt_tokens: maxPrompt,
    limits: {
      max_turns: limits.maxTurns,
      max_segment_tokens: limits.maxSegmentTokens,
      context_window: limits.contextWindow,
      reply_budget: mcfg.maxTokens,
    },
    notes,
  };
}

/** Dry-run lines: the extraction row beside the other roles' estimates. */
export function renderExtractionEstimate(e: ExtractionEstimate): string {
  const cost = e.cost_usd === null ? 'unknown' : `$${e.cost_usd.toFixed(2)}`;
  const cut = e.cut > 0 ? `, ${e.cut} cut from ${e.sessions_cut} longer sessions to fit` : '';
  const lines = [
    `agentic memory ingest (extraction, ${e.model ?? 'no model'}): ${e.calls} calls (${e.batches} batches${cut}, ${e.batches - e.calls} answered by the cache), ` +
      `${e.input_tokens.toLocaleString('en-US')} prompt + ~${e.output_tokens.toLocaleString('en-US')} completion tokens, ${cost}`,
  ];
  for (const n of e.notes) lines.push(`note: ${n}`);
  return lines.join('\n');
}
