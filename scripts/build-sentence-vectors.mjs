#!/usr/bin/env node
// Builds datasets/<benchmark>/sentence-vectors.bin: the embedded retriever's sentence vectors of a
// bundled data set's windows (default chunking) and of all its questions, so its first run does
// not embed them. Run after `npm run build`:
//   node scripts/build-sentence-vectors.mjs [benchmark = locomo] [key=value ...]
// with the benchmark's own options; the bundled LoCoMo's file holds every question:
//   node scripts/build-sentence-vectors.mjs locomo categories=1,2,3,4,5
// The vectors come from the same model, one text per pass, as a run would compute them.
import { writeFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const dist = (p) => join(ROOT, 'dist', p);
const { getBenchmark } = await import(dist('benchmarks/registry.js'));
const { ingest } = await import(dist('retrieval/chunk.js'));
const { RunConfigSchema } = await import(dist('systems/registry.js'));
const { LocalSentenceEncoder, SENTENCE_ENCODER_DIMS, sentenceKey } = await import(dist('retrieval/local/sentence-encoder.js'));
const { encodeBundledVectors, BUNDLED_VECTOR_FILE } = await import(dist('retrieval/local/bundled-vectors.js'));

const [name = 'locomo', ...pairs] = process.argv.slice(2);
// The benchmark's own options, as key=value arguments (values may hold commas).
const options = Object.fromEntries(
  pairs.map((kv) => {
    const at = kv.indexOf('=');
    if (at <= 0) throw new Error(`expected key=value, got '${kv}'`);
    return [kv.slice(0, at), kv.slice(at + 1)];
  }),
);
const benchmark = getBenchmark(name);
const data = join(ROOT, benchmark.defaultData);
const ds = await benchmark.load({ path: data, options });
const { chunking } = RunConfigSchema.parse({ benchmark: name });
const texts = new Set();
for (const e of ds.episodes) for (const c of ingest(e, e.turns.length, benchmark.policy, chunking).chunks) texts.add(c.text);
for (const q of ds.questions) texts.add(q.text);
const list = [...texts];
console.log(`${name}: ${ds.episodes.length} episodes, ${ds.questions.length} questions, ${list.length} distinct texts to embed`);
const t0 = performance.now();
const vectors = await new LocalSentenceEncoder(null).embed(list);
console.log(`embedded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const entries = list
  .map((text, i) => ({ key: sentenceKey(text), vector: vectors[i] }))
  .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
const out = join(dirname(data), BUNDLED_VECTOR_FILE);
writeFileSync(`${out}.tmp`, encodeBundledVectors(entries, SENTENCE_ENCODER_DIMS));
renameSync(`${out}.tmp`, out);
console.log(`wrote ${out}`);
