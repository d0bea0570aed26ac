/**
 * Evidence from a window ranking: the top k windows assembled for the reader, and the item's
 * retrieval record (retrieved windows, coverage, coverage at other depths from the same ranking,
 * the benchmark's ranking metrics). RAW-RAG's source and `rawrag ablate`'s variants both go through
 * these, so a variant derived from a shared ranking is exactly the run it stands for.
 */
import type { RunConfig } from '../config/schema.js';
import type { Benchmark } from '../core/benchmark.js';
import type { Policy } from '../core/policy.js';
import type { Question } from '../core/schema.js';
import type { ItemRecord } from '../core/item.js';
import type { IngestedEpisode } from '../core/ingested-episode.js';
import type { Retriever } from '../core/retriever.js';
import { coverage } from '../core/coverage.js';
import type { Ranking } from './retrieve.js';
import { assemble, coverageByDepth, coveredTurnIds, turnRange } from './assemble.js';
import type { Evidence } from '../core/ingested-episode.js';

/** The depths at which coverage is also recorded, from the same ranking (bench and ablation use them). */
export const COVERAGE_KS = [1, 5, 15, 60];

/** Full-context: every chunk is evidence (k and candidates do not apply; the config keeps its values). */
export function effectiveRetrieval(cfg: RunConfig, retriever: Retriever): RunConfig {
  return retriever.selectsAll
    ? { ...cfg, retrieval: { ...cfg.retrieval, candidates: Number.MAX_SAFE_INTEGER, k: Number.MAX_SAFE_INTEGER, rerank: false } }
    : cfg;
}

/**
 * Fills an item's retrieval fields from a ranking: the top `cfg.retrieval.k` are the evidence;
 * coverage at other depths comes from the same ranking. `rawrag ablate` derives every variant
 * from one ranking through this same function.
 */
export function recordRetrieval(
  item: ItemRecord,
  q: Question,
  ep: IngestedEpisode,
  ranking: Ranking,
  policy: Policy,
  cfg: RunConfig,
  benchmark: Benchmark,
): Evidence {
  const selected = ranking.ranked.slice(0, cfg.retrieval.k);
  const evidence = assemble(ep, selected, policy);
  // Each selected window's place among the candidates (a search of k in ~128, cheaper than a map per question).
  const firstStage = (chunk: number) => ranking.candidates.findIndex((h) => h.chunk === chunk);
  item.retrieved = selected.map((h, i) => {
    const c = ep.chunks[h.chunk]!;
    const at = firstStage(h.chunk);
    return {
      chunk: c.id,
      rank: i + 1,
      score: h.score,
      first_stage_rank: at >= 0 ? at + 1 : -1,
      first_stage_score: at >= 0 ? ranking.candidates[at]!.score : Number.NaN,
      turns: (c.sourceTurns ?? turnRange(c.firstTurn, c.lastTurn)).map((t) => ep.episode.turns[t]!.id),
    };
  });
  item.evidence_turns = coveredTurnIds(ep, evidence);
  item.evidence_tokens = evidence.tokens;
  item.coverage = coverage(item.evidence_turns, q.evidence);
  // The configured k is a row of its own in the recall table (--k 10 shows 1/5/10/15/60).
  // Only depths the ranking really reached: a shorter ranking would understate coverage at k.
  const depths = [...new Set([...COVERAGE_KS, cfg.retrieval.k])].filter(
    (k) => k <= cfg.retrieval.k || ranking.ranked.length >= Math.min(k, ep.chunks.length),
  );
  // One pass down the ranking where the shown turns are exactly the windows' turns; packing to a
  // token budget or derived units need each depth assembled as a run at that k would show it.
  const onePass = policy.maxEvidenceTokens == null && !ranking.ranked.some((h) => ep.chunks[h.chunk]!.sourceTurns);
  if (onePass) for (const [k, c] of coverageByDepth(ep, ranking.ranked, q.evidence, depths)) item.coverage_at_k[String(k)] = c;
  else
    for (const k of depths.sort((a, b) => a - b))
      item.coverage_at_k[String(k)] = coverage(coveredTurnIds(ep, assemble(ep, ranking.ranked.slice(0, k), policy)), q.evidence);
  if (benchmark.rankingMetrics) {
    Object.assign(
      item.metrics,
      benchmark.rankingMetrics(
        q,
        ranking.ranked.map((h) => ep.chunks[h.chunk]!),
        ep,
        cfg.retrieval.k,
      ),
    );
  }
  return evidence;
}

/** How deep the final ranking goes: k, or deeper when that is free or the benchmark needs it. */
export function rankingDepth(cfg: RunConfig, retriever: Retriever, benchmark: Benchmark): number {
  return Math.max(cfg.retrieval.k, benchmark.rankingDepth ?? 0, retriever.cheapDeepRanking ? Math.max(...COVERAGE_KS) : 0);
}
