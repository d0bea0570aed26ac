/**
 * The embedded default retriever: no network, no key, no model download. Two stages like the
 * paper's: a lexical first stage recalls candidates, a second stage reorders them.
 */
import type { Retriever } from '../retriever.js';
import { Bm25FirstStage } from './bm25.js';

export function createLocalRetriever(): Retriever {
  return {
    name: 'local',
    firstStage: new Bm25FirstStage(),
    reranker: null,
    notes: [],
    cheapDeepRanking: true,
  };
}
