/**
 * Coverage at several depths of one ranking, in one pass: the same answer as assembling the top k
 * windows for each k and asking coverage of their turns (what recordRetrieval did before).
 */
import { describe, expect, it } from 'vitest';
import seedrandom from 'seedrandom';
import { assemble, coverageByDepth } from '../../src/retrieval/assemble.js';
import { coverage } from '../../src/core/coverage.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { ingest } from '../../src/retrieval/chunk.js';
import { episodeOf } from '../helpers/episodes.js';

describe('coverageByDepth', () => {
  const texts = Array.from({ length: 40 }, (_, i) => `turn ${i} about topic ${i % 7} with some more words to fill the windows`);
  // Small overlapping windows: each touches two or three turns, neighbours share some.
  const ep = ingest(episodeOf(texts), texts.length, DEFAULT_POLICY, { tokenizer: 'cl100k_base', size: 24, stride: 16 });

  it('matches assembling the top k for every k, for rankings in any order and depths past the ranking', () => {
    const rng = seedrandom('depths');
    expect(ep.chunks.length).toBeGreaterThan(20);
    for (let trial = 0; trial < 20; trial++) {
      const ranked = ep.chunks
        .map((c) => ({ chunk: c.index, score: rng() }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 5 + Math.floor(rng() * 15));
      const gold = [`D1:${1 + Math.floor(rng() * 40)}`, `D1:${1 + Math.floor(rng() * 40)}`];
      const ks = [15, 1, 5, 60, 3];
      const got = coverageByDepth(ep, ranked, gold, ks);
      expect([...got.keys()]).toEqual([1, 3, 5, 15, 60]);
      for (const k of ks) expect(got.get(k)).toEqual(coverage(assemble(ep, ranked.slice(0, k), DEFAULT_POLICY).turnIds, gold));
    }
  });

  it('is null at every depth for a question without gold evidence', () => {
    expect([...coverageByDepth(ep, [{ chunk: 0, score: 1 }], [], [1, 5]).values()]).toEqual([null, null]);
  });
});
