/**
 * The embedded second stage: re-scores first-stage candidates with three signals of equal weight,
 * each scaled to [0, 1] for the query:
 *   lexical  BM25 of the window, divided by the best candidate's BM25;
 *   window   soft query-term coverage of the window;
 *   turn     soft query-term coverage of the window's best single turn (a focused answer
 *            inside a 256-token window should not be drowned by the window's other turns).
 * Soft coverage = sum over distinct query terms of idf(term) * match(term, unit), divided by the
 * idf total; match = 1 when a unit word has the same stem, otherwise the best GloVe cosine
 * similarity to a unit word mapped linearly from [tau, 1] to [0, 1] ("dogs" ~ "puppy" 0.57,
 * "outdoor" ~ "hiking" 0.45; unrelated pairs sit below ~0.35). Without word vectors only exact
 * stem matches count, and the stage is still a proper lexical reranker.
 */
import type { IngestedEpisode } from '../chunk.js';
import { compareHits, type Hit } from '../rank.js';
import type { Reranker } from '../retriever.js';
import { isStopword, stem, terms, words } from './analyse.js';
import { Bm25Index, DEFAULT_BM25, bagOfTerms, type Bm25Params } from './bm25.js';
import type { WordVectors } from './word-vectors.js';

export interface SoftRerankParams {
  /** Cosine below which two different words do not match at all. */
  tau: number;
  lexicalWeight: number;
  windowWeight: number;
  turnWeight: number;
  bm25: Bm25Params;
}

/**
 * tau 0.4: the usual "related words" floor for 100-d GloVe (measured above). Equal weights:
 * no signal is privileged, so nothing here is fitted to one benchmark's questions.
 */
export const DEFAULT_SOFT_RERANK: SoftRerankParams = { tau: 0.4, lexicalWeight: 1, windowWeight: 1, turnWeight: 1, bm25: DEFAULT_BM25 };

/** Per-episode state, built on the episode's first query and reused by the rest. */
interface EpisodeState {
  bm25: Bm25Index;
  /** Distinct content words of the episode (surface forms) and their stems. */
  vocab: Map<string, number>;
  stems: string[];
  /** Vocab word vectors gathered into one contiguous block (V x dims); hasVector[i] = 0 without one. */
  matrix: Float32Array;
  hasVector: Uint8Array;
  dims: number;
  chunkWords: Int32Array[];
  turnWords: Int32Array[];
  /** match(term, word) for every vocab word, per query word (questions on one episode share terms). */
  matchCache: Map<string, Float32Array>;
}

export class SoftReranker implements Reranker {
  readonly name: string;
  private readonly states = new WeakMap<IngestedEpisode, EpisodeState>();

  /** `vectors()` is called on first use only, so the vectors load lazily (null = exact matches only). */
  constructor(
    private readonly vectors: () => WordVectors | null,
    private readonly params: SoftRerankParams = DEFAULT_SOFT_RERANK,
  ) {
    this.name = 'soft-match';
  }

  async rerank(query: string, candidates: Hit[], ep: IngestedEpisode, topN: number): Promise<Hit[]> {
    return this.rerankSync(query, candidates, ep, topN);
  }

  rerankSync(query: string, candidates: Hit[], ep: IngestedEpisode, topN: number): Hit[] {
    if (candidates.length === 0) return [];
    const st = this.state(ep);
    const p = this.params;
    const qWords = queryWords(query);
    const weights = qWords.map((w) => st.bm25.idf(stem(w)));
    const weightSum = weights.reduce((s, x) => s + x, 0) || 1;
    const matches = qWords.map((w) => this.matchesFor(st, w));
    const coverage = (unit: Int32Array): number => {
      let total = 0;
      for (let j = 0; j < matches.length; j++) {
        const m = matches[j]!;
        let best = 0;
        for (let i = 0; i < unit.length && best < 1; i++) if (m[unit[i]!]! > best) best = m[unit[i]!]!;
        total += weights[j]! * best;
      }
      return total / weightSum;
    };

    const lexical = st.bm25.scores(bagOfTerms(query));
    let maxLexical = 0;
    for (const h of candidates) maxLexical = Math.max(maxLexical, lexical[h.chunk]!);
    const turnCoverage = new Map<number, number>();
    const scored: Hit[] = candidates.map((h) => {
      const c = ep.chunks[h.chunk]!;
      let bestTurn = 0;
      if (p.turnWeight !== 0) {
        for (let t = c.firstTurn; t <= c.lastTurn; t++) {
          let v = turnCoverage.get(t);
          if (v === undefined) turnCoverage.set(t, (v = coverage(st.turnWords[t]!)));
          if (v > bestTurn) bestTurn = v;
        }
      }
      const score =
        p.lexicalWeight * (maxLexical > 0 ? lexical[h.chunk]! / maxLexical : 0) +
        p.windowWeight * coverage(st.chunkWords[h.chunk]!) +
        p.turnWeight * bestTurn;
      return { chunk: h.chunk, score };
    });
    scored.sort(compareHits);
    return scored.slice(0, topN);
  }

  private state(ep: IngestedEpisode): EpisodeState {
    let st = this.states.get(ep);
    if (st) return st;
    const vocab = new Map<string, number>();
    const stems: string[] = [];
    const idsOf = (text: string): Int32Array => {
      const ids = new Set<number>();
      for (const w of words(text)) {
        if (isStopword(w)) continue;
        let id = vocab.get(w);
        if (id === undefined) {
          id = stems.length;
          vocab.set(w, id);
          stems.push(stem(w));
        }
        ids.add(id);
      }
      return Int32Array.from(ids);
    };
    const chunkWords = ep.chunks.map((c) => idsOf(c.text));
    const turnWords = ep.lines.map((l) => idsOf(l));
    const vectors = this.vectors();
    const dims = vectors?.dims ?? 0;
    const matrix = new Float32Array(stems.length * dims);
    const hasVector = new Uint8Array(stems.length);
    if (vectors) {
      for (const [w, id] of vocab) {
        const r = vectors.row(w);
        if (r < 0) continue;
        vectors.copyRow(r, matrix, id * dims);
        hasVector[id] = 1;
      }
    }
    st = {
      bm25: new Bm25Index(ep.chunks.map((c) => terms(c.text)), this.params.bm25),
      vocab,
      stems,
      matrix,
      hasVector,
      dims,
      chunkWords,
      turnWords,
      matchCache: new Map(),
    };
    this.states.set(ep, st);
    return st;
  }

  /** match(queryWord, w) for every vocab word w: 1 for the same stem, else the mapped cosine. */
  private matchesFor(st: EpisodeState, queryWord: string): Float32Array {
    const cached = st.matchCache.get(queryWord);
    if (cached) return cached;
    const out = new Float32Array(st.stems.length);
    const s = stem(queryWord);
    for (let i = 0; i < out.length; i++) if (st.stems[i] === s) out[i] = 1;
    const vectors = this.vectors();
    const qRow = vectors ? vectors.row(queryWord) : -1;
    if (qRow >= 0 && st.dims > 0) {
      const { dims, matrix, hasVector } = st;
      const qv = new Float32Array(dims);
      vectors!.copyRow(qRow, qv, 0);
      const { tau } = this.params;
      const span = 1 - tau;
      for (let i = 0, off = 0; i < out.length; i++, off += dims) {
        if (out[i] === 1 || hasVector[i] === 0) continue;
        let cos = 0;
        for (let d = 0; d < dims; d++) cos += matrix[off + d]! * qv[d]!;
        if (cos > tau) out[i] = Math.min(1, (cos - tau) / span);
      }
    }
    st.matchCache.set(queryWord, out);
    return out;
  }
}

/** Distinct content words of the query (one surface form per stem, first occurrence wins). */
export function queryWords(query: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of words(query)) {
    if (isStopword(w)) continue;
    const s = stem(w);
    if (seen.has(s)) continue;
    seen.add(s);
    out.push(w);
  }
  return out;
}
