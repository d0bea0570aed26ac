/**
 * The two retrieval stages as interfaces, so the embedded local retriever and real providers
 * (OpenAI/Qwen3 embeddings, Cohere/Qwen3 rerankers) plug into the same pipeline.
 */
import type { IngestedEpisode } from './ingested-episode.js';

/** A scored chunk; `chunk` is the chunk's index within its episode. */
export interface Hit {
  chunk: number;
  score: number;
}

/** First stage: recall `k` candidates for a query from one episode's chunks. */
export interface FirstStage {
  readonly name: string;
  prepare(ep: IngestedEpisode): Promise<SearchIndex>;
  /**
   * Optional warm-up with every question the run will ask, before any search: remote embedders
   * embed them all in one batched request instead of one request per question.
   */
  prefetch?(queries: string[]): Promise<void>;
}

export interface SearchIndex {
  search(query: string, k: number): Promise<Hit[]>;
}

/** Second stage: score candidates against the query (a cross-encoder in the paper). */
export interface Reranker {
  readonly name: string;
  /**
   * Returns up to `topN` hits, best first, with `chunk` = the candidate's chunk index.
   * `ep` gives rerankers that need more than the window text (e.g. the turns it touches) access.
   */
  rerank(query: string, candidates: Hit[], ep: IngestedEpisode, topN: number): Promise<Hit[]>;
}

/** Dense text embeddings (queries and documents may be embedded differently, e.g. Qwen3). */
export interface Embedder {
  readonly name: string;
  embed(texts: string[], kind: 'query' | 'document'): Promise<Float32Array[]>;
}

export interface Retriever {
  /** Recorded in manifests, e.g. `local` or `openai:text-embedding-3-small+cohere:rerank-v3.5`. */
  readonly name: string;
  readonly firstStage: FirstStage;
  readonly reranker: Reranker | null;
  /** What this retriever could not do and what it did instead (shown to the user, kept in the manifest). */
  readonly notes: string[];
  /**
   * True when ranking deeper than k costs nothing extra (the local retriever). The runner then
   * ranks to depth 60 and records coverage at k = 1, 5, 15, 60 from the same ranking; remote
   * rerankers are asked for top_n = k only (unless the benchmark needs a deeper ranking).
   */
  readonly cheapDeepRanking: boolean;
  /**
   * Every chunk is evidence, in history order, whatever k and candidates say (the paper's
   * Full-context row: no retrieval, the whole visible history goes to the reader).
   */
  readonly selectsAll?: boolean;
  /**
   * One-time work before the first question (the local reranker's word vectors), so that it is
   * not charged to the first question's search time (BEAM's efficiency table compares per-question costs).
   */
  warmUp?(): Promise<void>;
  /** Calls a provider (embeddings, reranking): costs money, needs keys, questions may overlap. */
  readonly remote?: boolean;
}
