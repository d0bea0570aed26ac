/**
 * RAW-RAG's share of a dry run: the windows it embeds once (identical windows across episodes
 * counted once, as the cache would answer them), the question embeddings, one rerank request per
 * question, and the evidence the reader would see (k windows, expanded to turns by the policy).
 */
import type { EstimateInput, EstimateRow, SystemEstimate } from '../../core/system.js';
import type { ModelEntry } from '../../providers/models.js';
import type { ProviderSession } from '../../providers/session.js';
import { RETRIEVER_TRAITS } from '../../retrieval/retrievers.js';
import { batches } from '../../retrieval/remote/embeddings.js';
import { countTokens } from '../../retrieval/tokenizer.js';

/** Expanding windows to whole turns adds about a quarter (LoCoMo: 4,779 tokens shown for 15 x 256). */
const EXPANSION_FACTOR = 1.25;

export function estimateRawRag({
  cfg,
  groups,
  questions,
  session,
  check,
}: EstimateInput<ProviderSession, ModelEntry>): SystemEstimate<ModelEntry> {
  const retr = cfg.retrieval.retriever;
  const pair = session.registry.retrievers[retr];
  const embedModel = pair ? session.model(pair.embed, 'embed') : null;
  const rerankModel = pair && cfg.retrieval.rerank ? session.model(pair.rerank, 'rerank') : null;
  if (embedModel) check(embedModel, 'embed');
  if (rerankModel) check(rerankModel, 'rerank');
  const seenChunks = new Set<string>();
  let embedCalls = 0;
  let embedTokens = 0;
  let rerankUnits = 0;
  const evidenceTokens = new Map<string, number>();
  for (const { ep, policy, questions: qs } of groups) {
    const history = ep.turnTokenStart[ep.turnTokenStart.length - 1]!;
    const fresh = ep.chunks.filter((c) => !seenChunks.has(c.text));
    for (const c of fresh) seenChunks.add(c.text);
    if (embedModel) {
      const items = fresh.map((c) => ({ tokens: Math.min(c.tokenEnd - c.tokenStart, embedModel.maxInputTokens ?? Infinity) }));
      embedCalls += batches(items, embedModel.maxBatchInputs, embedModel.maxBatchTokens).length;
      embedTokens += items.reduce((s, i) => s + i.tokens, 0);
    }
    const candidates = Math.min(cfg.retrieval.candidates, ep.chunks.length);
    rerankUnits += qs.length * Math.ceil(candidates / 100);
    const shown = RETRIEVER_TRAITS[retr].selectsAll
      ? history
      : Math.min(history, Math.round(cfg.retrieval.k * cfg.chunking.size * (policy.expandToTurns ? EXPANSION_FACTOR : 1)));
    for (const q of qs) evidenceTokens.set(q.id, shown);
  }
  const rows: EstimateRow<ModelEntry>[] = [];
  if (embedModel) {
    // Question texts are embedded up front, batched like the windows.
    const qItems = [...new Set(questions.map((q) => q.text))].map((t) => ({ tokens: countTokens(t) }));
    const qCalls = batches(qItems, embedModel.maxBatchInputs, embedModel.maxBatchTokens).length;
    rows.push({
      role: 'embed',
      model: embedModel,
      calls: embedCalls + qCalls,
      input_tokens: embedTokens + qItems.reduce((s, i) => s + i.tokens, 0),
      output_tokens: 0,
    });
  }
  if (rerankModel)
    rows.push({
      role: 'rerank',
      model: rerankModel,
      calls: questions.length,
      input_tokens: 0,
      output_tokens: 0,
      search_units: rerankModel.prices.perThousandSearches !== undefined ? rerankUnits : 0,
    });
  return { rows, evidenceTokens };
}
