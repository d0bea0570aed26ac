import type { Hit } from '../core/retriever.js';

/** Highest score first; equal scores keep chunk order, so rankings never depend on sort internals. */
export function compareHits(a: Hit, b: Hit): number {
  return b.score - a.score || a.chunk - b.chunk;
}

/** The k best hits of `scores` (one score per chunk), deterministic under ties. */
export function topK(scores: ArrayLike<number>, k: number): Hit[] {
  const hits: Hit[] = [];
  for (let i = 0; i < scores.length; i++) hits.push({ chunk: i, score: scores[i]! });
  hits.sort(compareHits);
  return hits.slice(0, k);
}
