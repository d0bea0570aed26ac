/**
 * The embedded retriever's dense signal: the real Universal Sentence Encoder from the installed
 * npm package (no download), its persistent vector store, and what it adds to the reranker.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ResponseCache } from '../../src/providers/cache.js';
import {
  createLocalRetriever,
  LOCAL_DENSE_VERSUS_PAPER,
  LOCAL_VERSUS_PAPER,
  SENTENCE_VECTOR_FILE,
} from '../../src/retrieval/local/index.js';
import { LocalSentenceEncoder, SENTENCE_ENCODER_DIMS } from '../../src/retrieval/local/sentence-encoder.js';
import { DEFAULT_SOFT_RERANK, SoftReranker } from '../../src/retrieval/local/soft-rerank.js';
import { tempDir } from '../helpers/cli.js';
import { perTurn } from '../helpers/episodes.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

// None of these shares a word stem with the question below; only the last is about it.
const QUESTION = 'What pet does Ann have?';
const TEXTS = [
  'The quarterly budget meeting ran late and nobody agreed on the spreadsheet.',
  'I repainted the kitchen cabinets a pale green colour over the weekend.',
  'Traffic on the motorway was terrible because of the roadworks near the exit.',
  'My puppy Biscuit chewed through another slipper this morning, the little rascal.',
];

describe('local sentence encoder', () => {
  // First in this file: the model loads (and the WebAssembly runtime starts) once per process.
  it('leaves no process-wide error listeners behind (the CLI handles its own errors)', async () => {
    const before = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')];
    await new LocalSentenceEncoder(null).embed(['listeners'], 'document');
    expect([process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')]).toEqual(before);
  });

  it('embeds offline into unit vectors that place related meanings closer', async () => {
    const enc = new LocalSentenceEncoder(null);
    const [q, dog, tax] = await enc.embed(
      ['Where did my dog run off to?', 'The puppy escaped into the park again.', 'The tax filing deadline is next Tuesday.'],
      'document',
    );
    expect(q).toHaveLength(SENTENCE_ENCODER_DIMS);
    expect(Math.hypot(...q!)).toBeCloseTo(1, 4);
    expect(dot(q!, dog!)).toBeGreaterThan(dot(q!, tax!) + 0.1);
    expect(enc.computed).toBe(3);
  });

  it('an empty text embeds (as "no content") instead of failing the model', async () => {
    const [v] = await new LocalSentenceEncoder(null).embed([''], 'document');
    expect(v).toHaveLength(SENTENCE_ENCODER_DIMS);
  });

  it('keeps vectors in its store: a second encoder reads them back without running the model', async () => {
    const dir = tempDir('rawrag-use-');
    const first = new LocalSentenceEncoder(new ResponseCache(dir, SENTENCE_VECTOR_FILE));
    const a = await first.embed(['same text twice', 'same text twice', 'another'], 'document');
    expect(first.computed).toBe(2);
    expect(Array.from(a[0]!)).toEqual(Array.from(a[1]!));
    expect(existsSync(join(dir, SENTENCE_VECTOR_FILE))).toBe(true);
    const second = new LocalSentenceEncoder(new ResponseCache(dir, SENTENCE_VECTOR_FILE));
    const b = await second.embed(['another', 'same text twice'], 'document');
    expect(second.computed).toBe(0);
    expect(Array.from(b[1]!)).toEqual(Array.from(a[0]!));
  });
});

describe('soft reranker: dense signal', () => {
  const noVectors = () => null;
  const all = (n: number) => Array.from({ length: n }, (_, i) => ({ chunk: i, score: 0 }));

  it('lifts a paraphrase that shares no word with the question; the word signals alone cannot', async () => {
    const ep = perTurn(TEXTS);
    const lexical = await new SoftReranker(noVectors).rerank(QUESTION, all(4), ep, 4);
    // Nothing matches: a tie, broken by chunk order, so the answer is last.
    expect(lexical.map((h) => h.chunk)).toEqual([0, 1, 2, 3]);
    const dense = await new SoftReranker(noVectors, DEFAULT_SOFT_RERANK, new LocalSentenceEncoder(null)).rerank(QUESTION, all(4), ep, 4);
    expect(dense[0]!.chunk).toBe(3);
    // Scaled to [0, 1] over the candidates: the best gets the full weight, the worst nothing.
    expect(dense[0]!.score).toBeCloseTo(DEFAULT_SOFT_RERANK.denseWeight, 6);
    expect(dense.at(-1)!.score).toBeCloseTo(0, 6);
  });

  it('weight 0 turns it off', async () => {
    const ep = perTurn(TEXTS);
    const off = new SoftReranker(noVectors, { ...DEFAULT_SOFT_RERANK, denseWeight: 0 }, new LocalSentenceEncoder(null));
    expect(off.name).toBe('soft-match');
    expect((await off.rerank(QUESTION, all(4), ep, 4)).map((h) => h.chunk)).toEqual([0, 1, 2, 3]);
  });

  it('`local-dense` carries the dense signal, the default `local` does not', () => {
    const dense = createLocalRetriever({ dense: true, vectorCacheDir: null });
    expect(dense.name).toBe('local-dense');
    expect(dense.reranker!.name).toBe('soft-match+dense');
    const local = createLocalRetriever();
    expect(local.name).toBe('local');
    expect(local.reranker!.name).toBe('soft-match');
  });

  it('every local retriever says, in its notes, that it is not the paper retriever', () => {
    expect(createLocalRetriever().notes).toContain(LOCAL_VERSUS_PAPER);
    expect(createLocalRetriever({ dense: true, vectorCacheDir: null }).notes).toContain(LOCAL_DENSE_VERSUS_PAPER);
    expect(LOCAL_DENSE_VERSUS_PAPER).toMatch(/^retriever 'local-dense' .* not the paper's retriever/);
  });
});

describe('local sentence encoder: worker threads', () => {
  it('a vector depends on its text only, not on the texts embedded with it', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `Message number ${i}: ${'we walked the dog along the river '.repeat(i % 5)}`);
    const together = await new LocalSentenceEncoder(null).embed(texts, 'document');
    const alone = new LocalSentenceEncoder(null);
    for (const i of [0, 17, 39]) {
      const [v] = await alone.embed([texts[i]!], 'document');
      expect(Array.from(v!)).toEqual(Array.from(together[i]!));
    }
  });
});

describe('local sentence encoder: the worker under any module mode', () => {
  it('works when the parent runs as an ES module from --input-type=module (workers inherit the flag)', () => {
    const dist = pathToFileURL(join(process.cwd(), 'dist/retrieval/local/sentence-encoder.js')).href;
    const code = `const { LocalSentenceEncoder } = await import(${JSON.stringify(dist)});
const [v] = await new LocalSentenceEncoder(null).embed(['hello there']);
console.log(v.length);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
    // Nothing on stderr but the one-time cost, announced once before the model first runs.
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^sentence encoder \(local-dense\): embedding .*~\d+ s for a question .* --retriever local needs none of it$/);
    expect(r.stdout.trim()).toBe(String(SENTENCE_ENCODER_DIMS));
    expect(r.status).toBe(0);
  });
});
