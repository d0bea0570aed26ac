/**
 * The reader stage: the benchmark's ReaderProtocol renders the question and the assembled
 * evidence (with the question date where the benchmark has one); the reader model answers at the
 * configured temperature (0). Prompt tokens, evidence tokens and the raw reply are kept.
 */
import type { ChatModel } from '../providers/chat.js';
import { countTokens } from '../retrieval/tokenizer.js';
import { readerMaxTokens, type ReaderProtocol } from '../core/protocol.js';
import type { ItemStage } from './stage.js';
import type { EvidenceBlock } from '../core/ingested-episode.js';
import { addCost, costOf } from '../providers/usage.js';

export function readerStage(model: ChatModel, protocol: ReaderProtocol): ItemStage {
  return {
    name: 'read',
    async run(item, ctx) {
      const { question: q, evidence, ep, cfg } = ctx;
      const view = {
        blocks: evidence.blocks.map((b: EvidenceBlock) => ({ ...b, turns: b.turns.map((t: number) => ep.episode.turns[t]!) })),
      };
      const messages = protocol.render(q, view);
      // The official budget per question (null = no max_tokens sent), unless the config overrides it.
      const maxTokens = readerMaxTokens(cfg.reader.maxTokens, protocol, q);
      // Epoch e is replicate e-1 in the cache key: epoch 1 is the request a run without epochs sends.
      const replicate = (ctx.epoch ?? 1) - 1;
      const reply = await model.complete({ messages, temperature: cfg.reader.temperature, maxTokens, jsonMode: false }, replicate);
      item.answer = protocol.parseAnswer ? protocol.parseAnswer(reply.text, q) : reply.text.trim();
      const usage = { prompt_tokens: reply.prompt_tokens, completion_tokens: reply.completion_tokens, search_units: 0 };
      item.details.reader = {
        model: model.entry.name,
        protocol: protocol.id,
        max_tokens: maxTokens,
        /** As the provider counted them (0 when it does not say). */
        prompt_tokens: reply.prompt_tokens,
        completion_tokens: reply.completion_tokens,
        /**
         * cl100k tokens of the prompt, whatever the provider reports: the template rendered without
         * evidence plus the evidence's own count (known from ingest), so no prompt is re-encoded.
         */
        prompt_tokens_cl100k: templateTokens(protocol, q) + item.evidence_tokens,
        evidence_tokens: item.evidence_tokens,
        raw: reply.text,
        cached: reply.cached,
        provenance: reply.provenance,
      };
      addItemUsage(item.details, 'reader', usage, costOf(usage, model.pricesOf(reply)), reply.cached);
    },
  };
}

function templateTokens(protocol: ReaderProtocol, q: Parameters<ReaderProtocol['render']>[0]): number {
  return protocol.render(q, { blocks: [] }).reduce((s, m) => s + countTokens(m.content), 0);
}

/** Per-item usage and cost by role, in item.details.usage. */
export function addItemUsage(
  details: Record<string, unknown>,
  role: string,
  u: { prompt_tokens: number; completion_tokens: number },
  cost: number | null,
  cached: boolean,
): void {
  const all = (details.usage ??= {}) as Record<
    string,
    { prompt_tokens: number; completion_tokens: number; cost_usd: number | null; requests: number; cache_hits: number }
  >;
  const r = (all[role] ??= { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, requests: 0, cache_hits: 0 });
  r.prompt_tokens += u.prompt_tokens;
  r.completion_tokens += u.completion_tokens;
  r.cost_usd = addCost(r.cost_usd, cost);
  if (cached) r.cache_hits++;
  else r.requests++;
}
