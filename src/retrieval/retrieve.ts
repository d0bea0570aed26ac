/**
 * Query step: the question text, verbatim, recalls `candidates` chunks from the first stage;
 * the reranker orders them and the best `k` are kept. With reranking off the first-stage order
 * stands (the paper's "no reranker" ablation).
 */
import type { IngestedEpisode } from '../core/ingested-episode.js';
import type { Reranker, SearchIndex, Hit } from '../core/retriever.js';

export interface RetrievalConfig {
  candidates: number;
  k: number;
  rerank: boolean;
}

export interface Ranking {
  /** First-stage candidates, best first. */
  candidates: Hit[];
  /** Final order (after reranking, if on), at least `k` long when enough chunks exist. */
  ranked: Hit[];
}

export async function retrieve(
  query: string,
  index: SearchIndex,
  reranker: Reranker | null,
  ep: IngestedEpisode,
  cfg: RetrievalConfig,
  /** How deep the final order must go; ablations ask for more than k to derive every k at once. */
  depth: number = cfg.k,
): Promise<Ranking> {
  const candidates = await index.search(query, cfg.candidates);
  if (!cfg.rerank || reranker === null || candidates.length === 0) {
    return { candidates, ranked: candidates.slice(0, Math.max(depth, cfg.k)) };
  }
  const ranked = await reranker.rerank(query, candidates, ep, Math.min(Math.max(depth, cfg.k), candidates.length));
  return { candidates, ranked };
}
