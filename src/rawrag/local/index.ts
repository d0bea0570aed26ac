/**
 * The embedded default retriever: no network, no key, no model download. Two stages like the
 * paper's: BM25 recalls `candidates` windows; a soft-matching reranker (BM25 + GloVe soft term
 * coverage of the window and of its best turn) orders them. `--no-rerank` keeps the BM25 order.
 */
import type { Retriever } from '../retriever.js';
import { Bm25FirstStage } from './bm25.js';
import { DEFAULT_SOFT_RERANK, SoftReranker, type SoftRerankParams } from './soft-rerank.js';
import { GLOVE_PACKAGE, loadWordVectors, wordVectorsAvailable, type WordVectorOptions, type WordVectors } from './word-vectors.js';

export interface LocalRetrieverOptions extends WordVectorOptions {
  rerank?: SoftRerankParams;
}

const EXACT_ONLY = `GloVe word vectors unavailable (npm package ${GLOVE_PACKAGE}): the local reranker matches exact word stems only, so its ranking is weaker`;

export function createLocalRetriever(opts: LocalRetrieverOptions = {}): Retriever {
  const notes: string[] = [];
  if (!wordVectorsAvailable(opts)) notes.push(EXACT_ONLY);
  let loaded: WordVectors | null | undefined;
  // Loaded on the reranker's first use: runs that never rerank never read the vectors.
  const vectors = (): WordVectors | null => {
    if (loaded === undefined) {
      const load = loadWordVectors(opts);
      loaded = load.vectors;
      if (!loaded && !notes.includes(EXACT_ONLY)) notes.push(`${EXACT_ONLY} (${load.detail})`);
    }
    return loaded;
  };
  return {
    name: 'local',
    firstStage: new Bm25FirstStage(),
    reranker: new SoftReranker(vectors, opts.rerank ?? DEFAULT_SOFT_RERANK),
    notes,
    cheapDeepRanking: true,
  };
}
