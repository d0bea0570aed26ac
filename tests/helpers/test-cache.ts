/**
 * A cache directory of a test's own (RAWRAG_CACHE_DIR for one run or suite) that already holds the
 * GloVe word-vector cache the local retriever reads: without it, the first local run there would
 * rebuild the vectors from the npm package (~5 s of CPU), which is not what such tests test. The
 * vectors come from the suite's shared cache (vitest.config.ts), built there once if missing; the
 * copy is the test's own, so nothing it does to its cache reaches the shared one.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { constants } from 'node:fs';
import { join } from 'node:path';
import { cachePathIn, loadWordVectors } from '../../src/retrieval/local/word-vectors.js';
import { tempDir } from './cli.js';

/** The suite's shared cache, as vitest.config.ts sets it for every test file. */
const SHARED = process.env.RAWRAG_CACHE_DIR;

export function cacheWithWordVectors(dir: string = join(tempDir('rawrag-test-cache-'), 'cache')): string {
  mkdirSync(dir, { recursive: true });
  if (!SHARED) return dir;
  const source = cachePathIn(SHARED);
  if (!existsSync(source)) loadWordVectors({ cacheDir: SHARED });
  if (existsSync(source)) copyFileSync(source, cachePathIn(dir), constants.COPYFILE_FICLONE);
  return dir;
}
