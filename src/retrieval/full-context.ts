/**
 * The Full-context baseline as a retriever: no ranking, every chunk of the visible history in
 * order. With turn expansion the reader sees each visible turn exactly once, chronologically.
 */
import type { IngestedEpisode } from '../core/ingested-episode.js';
import type { Retriever, SearchIndex } from '../core/retriever.js';

export function createFullContextRetriever(): Retriever {
  return {
    name: 'full-context',
    firstStage: {
      name: 'full-context',
      async prepare(ep: IngestedEpisode): Promise<SearchIndex> {
        // Scores fall with position so any consumer that sorts by score keeps history order.
        const all = ep.chunks.map((c) => ({ chunk: c.index, score: 1 - c.index / (ep.chunks.length + 1) }));
        return { search: async () => all };
      },
    },
    reranker: null,
    notes: [],
    cheapDeepRanking: false,
    selectsAll: true,
  };
}
