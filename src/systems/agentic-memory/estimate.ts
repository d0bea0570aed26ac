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
import { extractorModel, memoryConfig } from './config.js';
import { EST_EXTRACT_OUTPUT_PER_TURN, extractionLimits, extractionMessages } from './extract.js';
import { estimateBatches, ingestCost, limitsNote } from '../../ingest-llm/estimate.js';

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
  const e = estimateBatches(
    [...horizons.values()].map(({ episode, visible }) => ({ episodeId: episode.id, turns: episode.turns, visible })),
    mcfg.batch,
    limits,
    extractionMessages,
  );
  notes.push(...limitsNote('extraction', model, limits, e));
  notes.push(
    `extraction replies assumed ${EST_EXTRACT_OUTPUT_PER_TURN} tokens per turn read (capped at ${mcfg.maxTokens} per batch); the items' embeddings are not counted`,
  );
  const { cost, notes: priceNotes } = ingestCost(e, model, session, {
    step: 'extraction',
    modelWord: 'extractor model',
    missingModel: 'no extraction model: give -S extractor=MODEL (or --reader MODEL)',
  });
  notes.push(...priceNotes);
  return {
    model,
    calls: e.calls,
    batches: e.batches,
    input_tokens: e.promptTokens,
    output_tokens: e.completionTokens,
    cost_usd: cost,
    cut: e.cut,
    sessions_cut: e.sessionsCut,
    max_prompt_tokens: e.maxPrompt,
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
