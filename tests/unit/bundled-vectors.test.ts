/**
 * Sentence vectors shipped with the bundled LoCoMo: the file format, its checks, and that the
 * shipped vectors are exactly what the model computes for the texts a run embeds.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getBenchmark } from '../../src/benchmarks/registry.js';
import { ingest } from '../../src/retrieval/chunk.js';
import { RunConfigSchema } from '../../src/systems/registry.js';
import {
  BUNDLED_VECTOR_FILE,
  bundledVectorFiles,
  decodeBundledVectors,
  encodeBundledVectors,
  loadBundledVectors,
} from '../../src/retrieval/local/bundled-vectors.js';
import { LocalSentenceEncoder, SENTENCE_ENCODER_DIMS, sentenceKey } from '../../src/retrieval/local/sentence-encoder.js';
import { fromRoot } from '../../src/util/paths.js';
import { tempDir } from '../helpers/cli.js';

const SHIPPED = fromRoot('datasets/locomo', BUNDLED_VECTOR_FILE);
const vec = (...xs: number[]) => Float32Array.from(xs);

describe('bundled vector files', () => {
  it('round-trip: every key gives back its vector; unknown keys give nothing', () => {
    const entries = [
      { key: 'a'.repeat(64), vector: vec(1, 2, 3) },
      { key: 'b'.repeat(64), vector: vec(-1, 0.5, 0) },
    ];
    const set = decodeBundledVectors(encodeBundledVectors(entries, 3), 3);
    expect(set.size).toBe(2);
    expect(Array.from(set.get('b'.repeat(64))!)).toEqual([-1, 0.5, 0]);
    expect(set.get('c'.repeat(64))).toBeUndefined();
  });

  it('rejects a corrupt, truncated or foreign file, and the loader skips it saying why', () => {
    const good = encodeBundledVectors([{ key: 'a'.repeat(64), vector: vec(1, 2, 3) }], 3);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 1]! ^= 0xff;
    expect(() => decodeBundledVectors(flipped, 3)).toThrow(/checksum mismatch/);
    expect(() => decodeBundledVectors(good.subarray(0, good.length - 4), 3)).toThrow(/truncated/);
    expect(() => decodeBundledVectors(good, 4)).toThrow(/3-d vectors, expected 4-d/);
    expect(() => decodeBundledVectors(Buffer.from('hello world, not vectors at all, no no no no no'), 3)).toThrow(
      /not a rawrag sentence-vector file/,
    );
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.bin'), flipped);
    writeFileSync(join(dir, 'good.bin'), good);
    const skipped: string[] = [];
    const set = loadBundledVectors([join(dir, 'bad.bin'), join(dir, 'good.bin')], 3, (f, why) => skipped.push(`${f}: ${why}`));
    expect(skipped).toEqual([`${join(dir, 'bad.bin')}: checksum mismatch`]);
    expect(set.size).toBe(1);
  });

  it('are found under datasets/<name>/ (the bundled LoCoMo ships one)', () => {
    expect(bundledVectorFiles()).toContain(SHIPPED);
  });
});

describe('the bundled LoCoMo vectors', () => {
  const locomo = getBenchmark('locomo');
  const shipped = decodeBundledVectors(readFileSync(SHIPPED), SENTENCE_ENCODER_DIMS);

  it('hold every window at the default chunking and every question (categories 1-5)', async () => {
    const ds = await locomo.load({ path: fromRoot(locomo.defaultData), options: { categories: '1,2,3,4,5' } });
    const { chunking } = RunConfigSchema.parse({ benchmark: 'locomo' });
    const texts = new Set<string>(ds.questions.map((q) => q.text));
    for (const e of ds.episodes) for (const c of ingest(e, e.turns.length, locomo.policy, chunking).chunks) texts.add(c.text);
    const missing = [...texts].filter((t) => !shipped.get(sentenceKey(t)));
    expect(missing).toEqual([]);
    expect(shipped.size).toBe(texts.size);
  });

  it('equal, bit for bit, what the model computes now (windows and questions)', async () => {
    const ds = await locomo.load({ path: fromRoot(locomo.defaultData), options: {} });
    const { chunking } = RunConfigSchema.parse({ benchmark: 'locomo' });
    const chunks = ingest(ds.episodes[0]!, ds.episodes[0]!.turns.length, locomo.policy, chunking).chunks;
    const sample = [chunks[0]!.text, chunks[40]!.text, ds.questions[0]!.text, ds.questions[700]!.text];
    const fresh = await new LocalSentenceEncoder(null).embed(sample);
    sample.forEach((t, i) => expect(Array.from(shipped.get(sentenceKey(t))!)).toEqual(Array.from(fresh[i]!)));
  });

  it('are used instead of the model; a text they lack is embedded; a bad file is skipped with a note', async () => {
    const q = (await locomo.load({ path: fromRoot(locomo.defaultData), options: {} })).questions[3]!.text;
    const enc = new LocalSentenceEncoder(null, [SHIPPED]);
    await enc.embed([q]);
    expect([enc.bundledHits, enc.computed]).toEqual([1, 0]);
    await enc.embed(['a sentence that is in no bundled file']);
    expect(enc.computed).toBe(1);
    const bad = join(tempDir(), BUNDLED_VECTOR_FILE);
    writeFileSync(bad, readFileSync(SHIPPED).subarray(0, 1000));
    const notes: string[] = [];
    const withBad = new LocalSentenceEncoder(null, [bad], notes);
    await withBad.embed([q]);
    expect(withBad.computed).toBe(1);
    expect(notes).toEqual([
      `bundled sentence vectors ${bad} skipped (truncated: ${1000 - 48} bytes for 3244 vectors): its texts are embedded instead, which is slower`,
    ]);
  });
});
