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
import { batchesOf, extractionMessages } from './extract.js';

/** Assumed reply tokens per turn read (about one 45-token JSON item every two turns). */
export const EST_EXTRACT_OUTPUT_PER_TURN = 25;
/** Chat format overhead per message (role, separators). */
const MESSAGE_OVERHEAD = 4;

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
  for (const { episode, visible } of horizons.values()) {
    for (const b of batchesOf(episode.turns, visible, mcfg.batch)) {
      batches++;
      const messages = extractionMessages(episode.turns, b);
      const key = sha256Hex(messages.map((m) => m.content).join('\u0000'));
      if (seen.has(key)) continue;
      seen.add(key);
      input += messages.reduce((s, m) => s + countTokens(m.content) + MESSAGE_OVERHEAD, 0);
      output += Math.min(mcfg.maxTokens, EST_EXTRACT_OUTPUT_PER_TURN * (b.last - b.first + 1));
    }
  }
  notes.push(
    `extraction replies assumed ${EST_EXTRACT_OUTPUT_PER_TURN} tokens per turn read (capped at ${mcfg.maxTokens} per batch); the items' embeddings are not counted`,
  );
  let cost: number | null = null;
  if (model === null) notes.push('no extraction model: give --extractor MODEL (or --reader MODEL)');
  else {
    const entry = session.model(model, 'reader');
    cost = costOf({ prompt_tokens: input, completion_tokens: output, search_units: 0 }, entry.prices);
    if (cost === null) notes.push(`no price for '${model}' in the model registry: extraction cost unknown`);
    const a = session.availability(entry, 'reader');
    if (!a.ok) notes.push(`${a.reason.replace('reader model', 'extractor model')}: a real run would stop before writing anything`);
  }
  return { model, calls: seen.size, batches, input_tokens: input, output_tokens: output, cost_usd: cost, notes };
}

/** Dry-run lines: the extraction row beside the other roles' estimates. */
export function renderExtractionEstimate(e: ExtractionEstimate): string {
  const cost = e.cost_usd === null ? 'unknown' : `$${e.cost_usd.toFixed(2)}`;
  const lines = [
    `agentic memory ingest (extraction, ${e.model ?? 'no model'}): ${e.calls} calls (${e.batches} batches, ${e.batches - e.calls} answered by the cache), ` +
      `${e.input_tokens.toLocaleString('en-US')} prompt + ~${e.output_tokens.toLocaleString('en-US')} completion tokens, ${cost}`,
  ];
  for (const n of e.notes) lines.push(`note: ${n}`);
  return lines.join('\n');
}
