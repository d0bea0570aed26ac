/**
 * Flat (exact) cosine index, as in the paper: one per episode, no approximate search.
 * Vectors are L2-normalised once at build time so a search is one dot product per chunk.
 */
import type { Embedder, FirstStage, SearchIndex, Hit } from '../core/retriever.js';
import type { IngestedEpisode } from '../core/ingested-episode.js';
import { topK } from './rank.js';

export class FlatIndex {
  private readonly dim: number;
  private readonly matrix: Float32Array;
  readonly size: number;

  constructor(vectors: Float32Array[]) {
    this.size = vectors.length;
    this.dim = vectors[0]?.length ?? 0;
    this.matrix = new Float32Array(this.size * this.dim);
    vectors.forEach((v, i) => {
      if (v.length !== this.dim) throw new Error(`embedding ${i} has dimension ${v.length}, expected ${this.dim}`);
      const norm = l2(v) || 1;
      for (let d = 0; d < this.dim; d++) this.matrix[i * this.dim + d] = v[d]! / norm;
    });
  }

  search(query: Float32Array, k: number): Hit[] {
    const qn = l2(query) || 1;
    const scores = new Float64Array(this.size);
    for (let i = 0; i < this.size; i++) {
      let s = 0;
      const off = i * this.dim;
      for (let d = 0; d < this.dim; d++) s += this.matrix[off + d]! * query[d]!;
      scores[i] = s / qn;
    }
    return topK(scores, k);
  }
}

/** First stage over any Embedder: embed every chunk once, then cosine top-k per query. */
export class DenseFirstStage implements FirstStage {
  readonly name: string;
  constructor(private readonly embedder: Embedder) {
    this.name = embedder.name;
  }

  async prepare(ep: IngestedEpisode): Promise<SearchIndex> {
    const vectors = await this.embedder.embed(
      ep.chunks.map((c) => c.text),
      'document',
    );
    const index = new FlatIndex(vectors);
    return {
      search: async (query: string, k: number) => {
        const [q] = await this.embedder.embed([query], 'query');
        return index.search(q!, k);
      },
    };
  }
}

function l2(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  return Math.sqrt(s);
}
