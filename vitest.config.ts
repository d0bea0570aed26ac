import { createHash } from 'node:crypto';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// vitest's results cache (each file's duration: the slowest files start first) outside
// node_modules: a checkout whose node_modules is hard-linked from another's must not write
// through into the other's files. One folder per checkout.
const checkout = createHash('sha1')
  .update(import.meta.dirname)
  .digest('hex')
  .slice(0, 12);
const RESULTS_CACHE = join(tmpdir(), `rawrag-vitest-${checkout}`);

export default defineConfig({
  cacheDir: RESULTS_CACHE,
  test: {
    // CLI tests spawn bin/rawrag.js, which runs the compiled dist/: built once first if stale.
    globalSetup: ['tests/global-setup.ts'],
    // Never the user's ~/.cache/rawrag: one cache for the test suite (GloVe and vector caches are
    // built once per machine there; tests needing an empty cache make their own).
    env: { RAWRAG_CACHE_DIR: join(tmpdir(), 'rawrag-test-cache'), XDG_CACHE_HOME: join(tmpdir(), 'rawrag-test-xdg') },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two test files at once even on a 2-core machine (vitest's default there is one, cores - 1):
    // one file at a time leaves a core idle. No file on disk is shared between test files but the
    // read-mostly cache above (word vectors, written by atomic rename); every run directory, cache
    // and server port is a file's own (temp dirs, port 0).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      // Unit tests: a fresh process per file (some read state a process keeps, e.g. the sentence
      // encoder's once-per-process note, or spy on process.stdout).
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] } },
      // End-to-end and fuzz tests run the CLI in-process, many commands per file already: one process
      // per worker serves file after file, so the CLI's modules are loaded and compiled once, not
      // per file (roughly a quarter of the suite's CPU). They leave no process state behind: the
      // in-process runner restores env, argv, cwd and stdout; servers and dirs are their own.
      {
        extends: true,
        test: { name: 'e2e', include: ['tests/e2e/**/*.test.ts', 'tests/fuzz/**/*.test.ts'], isolate: false },
      },
      // Long runs (a whole benchmark, hundreds of questions under faults, grids, big ablations, the
      // conformance suite's faults and kills, real signals and full disks): the same kind of test as
      // e2e/, kept out of `npm test` and run by `npm run test:slow` (CI's second stage). A process
      // per file: loading the CLI again is little beside a file's minutes, and one file
      // (docs-examples-rerun) needs it. docs/testing.md says which test goes where.
      { extends: true, test: { name: 'slow', include: ['tests/slow/**/*.test.ts'] } },
    ],
  },
});
