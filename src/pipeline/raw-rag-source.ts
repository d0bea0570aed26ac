/**
 * RAW-RAG as an evidence source: a window retriever (first stage + reranker) over the episode's
 * raw history; the top-k windows are assembled into the reader's evidence (expanded to turns and
 * ordered as the benchmark's policy says). Coverage at other depths comes from the same ranking.
 */
import type { RunConfig } from '../config/schema.js';
import type { Benchmark } from '../core/benchmark.js';
import type { Policy } from '../core/policy.js';
import type { Question } from '../core/schema.js';
import type { ItemRecord } from '../core/item.js';
import type { IngestedEpisode } from '../retrieval/chunk.js';
import { retrieve, type Ranking } from '../retrieval/retrieve.js';
import { assemble, coverageByDepth, type Evidence } from '../retrieval/assemble.js';
import type { Retriever } from '../retrieval/retriever.js';
import { coverage } from '../core/coverage.js';
import type { EvidenceSource } from '../core/evidence-source.js';

/** The depths at which coverage is also recorded, from the same ranking (bench and ablation use them). */
export const COVERAGE_KS = [1, 5, 15, 60];

export interface RawRagSource extends EvidenceSource {
  /** The window retriever behind the source: `rawrag ablate` sweeps its depths from one ranking. */
  readonly retriever: Retriever;
}

export function rawRagSource(retriever: Retriever, rerank = true): RawRagSource {
  const remote = retriever.remote === true;
  return {
    system: `RAW-RAG/${retriever.name}`,
    name: retriever.name,
    retriever,
    notes: retriever.notes,
    capabilities: {
      remote,
      llmAtIngest: false,
      questionRole: remote && retriever.reranker ? 'rerank' : remote ? 'embed' : null,
      ranksWindows: !retriever.selectsAll,
      cheapDeepRanking: retriever.cheapDeepRanking,
    },
    async prefetch(qs: Question[]) {
      // Only a run that reranks needs the reranker's one-time work.
      if (rerank) await retriever.warmUp?.();
      await retriever.firstStage.prefetch?.(qs.map((q) => q.text));
    },
    async open(ep) {
      const index = await retriever.firstStage.prepare(ep);
      return {
        async evidenceFor(q, item, ctx) {
          const cfg = effectiveRetrieval(ctx.cfg, retriever);
          const ranking = await retrieve(q.text, index, retriever.reranker, ep, cfg.retrieval, rankingDepth(cfg, retriever, ctx.benchmark));
          const evidence = recordRetrieval(item, q, ep, ranking, ctx.policy, cfg, ctx.benchmark);
          // Depth-k coverage means nothing when nothing was ranked.
          if (retriever.selectsAll) item.coverage_at_k = {};
          return evidence;
        },
      };
    },
  };
}

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
      turns: ep.episode.turns.slice(c.firstTurn, c.lastTurn + 1).map((t) => t.id),
    };
  });
  item.evidence_turns = evidence.turnIds;
  item.evidence_tokens = evidence.tokens;
  item.coverage = coverage(evidence.turnIds, q.evidence);
  // The configured k is a row of its own in the recall table (--k 10 shows 1/5/10/15/60).
  // Only depths the ranking really reached: a shorter ranking would understate coverage at k.
  const depths = [...new Set([...COVERAGE_KS, cfg.retrieval.k])].filter(
    (k) => k <= cfg.retrieval.k || ranking.ranked.length >= Math.min(k, ep.chunks.length),
  );
  for (const [k, c] of coverageByDepth(ep, ranking.ranked, q.evidence, depths)) item.coverage_at_k[String(k)] = c;
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
