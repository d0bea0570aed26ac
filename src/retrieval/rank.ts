import type { Hit } from '../core/retriever.js';

/**
 * Highest score first; equal scores keep chunk order, so rankings never depend on sort internals.
 * The answer is always a small integer: a score difference would be a float, allocated anew for
 * each of the sort's ~2 million calls in a LoCoMo run.
 */
export function compareHits(a: Hit, b: Hit): number {
  if (b.score > a.score) return 1;
  if (b.score < a.score) return -1;
  return a.chunk - b.chunk;
}

/** The k best hits of `scores` (one score per chunk), deterministic under ties. */
export function topK(scores: ArrayLike<number>, k: number): Hit[] {
  const hits: Hit[] = [];
  for (let i = 0; i < scores.length; i++) hits.push({ chunk: i, score: scores[i]! });
  hits.sort(compareHits);
  return hits.slice(0, k);
}
