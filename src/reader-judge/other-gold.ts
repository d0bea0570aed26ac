/**
 * A question may carry a second version of its gold (Question.meta.gold.other: LoCoMo's original
 * and audited answers). After the judge has scored the answer under the run's gold, the same
 * judge (same model, prompt, runs, cache) scores it under the other gold — only for those
 * questions, and without reading again — into item.details.other_gold, so a summary can give the
 * score under both golds. The item's own score is always the run's gold (a run is one setting).
 */
import type { ItemRecord } from '../core/item.js';
import type { Metric } from '../core/protocol.js';
import type { Question } from '../core/schema.js';
import type { ItemStage } from './stage.js';
import { goldVersionOf, type OtherGoldScore } from '../scoring/gold-version.js';

export function withOtherGold(judge: ItemStage, metrics: Metric[]): ItemStage {
  return {
    name: judge.name,
    async run(item, ctx) {
      const other = goldVersionOf(ctx.question)?.other;
      if (!other) return judge.run(item, ctx);
      const q: Question = { ...ctx.question, gold: other.answer, acceptable: [other.answer] };
      const scratch: ItemRecord = { ...item, gold: other.answer, acceptable: [other.answer], score: null, metrics: {}, details: {} };
      for (const m of metrics) scratch.metrics[m.name] = m.score(item.answer ?? '', q);
      // Both golds at once: with --batch their requests go out in the same pass.
      await Promise.all([judge.run(item, ctx), judge.run(scratch, { ...ctx, question: q })]);
      const j = scratch.details.judge as { votes?: number[] } | undefined;
      item.details.other_gold = {
        version: other.version,
        gold: other.answer,
        score: scratch.score,
        votes: j?.votes ?? [],
        metrics: scratch.metrics,
      } satisfies OtherGoldScore;
      mergeUsage(item.details, scratch.details);
    },
  };
}

type Usage = { prompt_tokens: number; completion_tokens: number; cost_usd: number | null; requests: number; cache_hits: number };

function mergeUsage(into: Record<string, unknown>, from: Record<string, unknown>): void {
  const src = (from.usage ?? {}) as Record<string, Usage>;
  const dst = (into.usage ??= {}) as Record<string, Usage>;
  for (const [role, u] of Object.entries(src)) {
    const r = (dst[role] ??= { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, requests: 0, cache_hits: 0 });
    r.prompt_tokens += u.prompt_tokens;
    r.completion_tokens += u.completion_tokens;
    r.cost_usd = r.cost_usd === null || u.cost_usd === null ? null : r.cost_usd + u.cost_usd;
    r.requests += u.requests;
    r.cache_hits += u.cache_hits;
  }
}
