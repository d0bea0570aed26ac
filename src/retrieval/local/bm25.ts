/**
 * Okapi BM25 over an episode's chunks: the embedded first stage. Scores every chunk that shares
 * a term with the query through an inverted index (no dense pass over all chunks).
 */
import type { FirstStage, SearchIndex, Hit } from '../../core/retriever.js';
import type { IngestedEpisode } from '../../core/ingested-episode.js';
import { topK } from '../rank.js';
import { chunkContentWords, stem, terms } from './text-analysis.js';

export interface Bm25Params {
  k1: number;
  b: number;
}

export const DEFAULT_BM25: Bm25Params = { k1: 1.2, b: 0.75 };

export class Bm25Index {
  readonly docCount: number;
  private readonly postings = new Map<string, { doc: Int32Array; tf: Float32Array }>();
  private readonly docLen: Float32Array;
  private readonly avgLen: number;
  private last: { text: string; scores: Float64Array } | null = null;

  constructor(
    docs: string[][],
    private readonly params: Bm25Params = DEFAULT_BM25,
  ) {
    this.docCount = docs.length;
    this.docLen = new Float32Array(docs.map((d) => d.length));
    this.avgLen = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, docs.length) || 1;
    // Documents are read in order, so a term's postings grow at their end: its last entry is the
    // current document's when the term occurred in it before.
    const tmp = new Map<string, { doc: number[]; tf: number[] }>();
    docs.forEach((d, i) => {
      for (const t of d) {
        let p = tmp.get(t);
        if (!p) tmp.set(t, (p = { doc: [], tf: [] }));
        const last = p.doc.length - 1;
        if (p.doc[last] === i) p.tf[last]!++;
        else {
          p.doc.push(i);
          p.tf.push(1);
        }
      }
    });
    for (const [t, p] of tmp) this.postings.set(t, { doc: Int32Array.from(p.doc), tf: Float32Array.from(p.tf) });
  }

  /** Number of documents holding `term`. */
  docFreq(term: string): number {
    return this.postings.get(term)?.doc.length ?? 0;
  }

  idf(term: string): number {
    const df = this.postings.get(term)?.doc.length ?? 0;
    return Math.log(1 + (this.docCount - df + 0.5) / (df + 0.5));
  }

  /**
   * Scores of every document for a question's text. The last question's are kept: the first
   * stage and the reranker score the same question against the same index. Read-only.
   */
  scoresOf(text: string): Float64Array {
    if (this.last?.text !== text) this.last = { text, scores: this.scores(bagOfTerms(text)) };
    return this.last.scores;
  }

  /** Scores of every document for a bag of (possibly weighted) query terms. */
  scores(query: Map<string, number>): Float64Array {
    const out = new Float64Array(this.docCount);
    const { k1, b } = this.params;
    for (const [t, w] of query) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = this.idf(t);
      for (let j = 0; j < p.doc.length; j++) {
        const d = p.doc[j]!;
        const tf = p.tf[j]!;
        out[d]! += (w * idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * this.docLen[d]!) / this.avgLen));
      }
    }
    return out;
  }
}

export function bagOfTerms(text: string): Map<string, number> {
  const bag = new Map<string, number>();
  for (const t of terms(text)) bag.set(t, (bag.get(t) ?? 0) + 1);
  return bag;
}

const shared = new WeakMap<IngestedEpisode, Map<string, Bm25Index>>();

/**
 * The episode's BM25 index over its chunks, built once per parameter set and shared by the first
 * stage and the reranker (analysing every window twice was a visible share of a LoCoMo run).
 */
export function bm25For(ep: IngestedEpisode, params: Bm25Params = DEFAULT_BM25): Bm25Index {
  let byParams = shared.get(ep);
  if (!byParams) shared.set(ep, (byParams = new Map()));
  const key = `${params.k1}/${params.b}`;
  let index = byParams.get(key);
  if (!index)
    byParams.set(
      key,
      (index = new Bm25Index(
        chunkContentWords(ep).map((ws) => ws.map(stem)),
        params,
      )),
    );
  return index;
}

export class Bm25FirstStage implements FirstStage {
  readonly name = 'bm25';
  constructor(private readonly params: Bm25Params = DEFAULT_BM25) {}

  async prepare(ep: IngestedEpisode): Promise<SearchIndex> {
    const index = bm25For(ep, this.params);
    return {
      search: async (query: string, k: number): Promise<Hit[]> => topK(index.scoresOf(query), k),
    };
  }
}
