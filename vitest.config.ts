import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // CLI tests spawn bin/rawrag.js, which runs the compiled dist/: built once first if stale.
    globalSetup: ['tests/global-setup.ts'],
    // Never the user's ~/.cache/rawrag: one cache for the test suite (GloVe and vector caches are
    // built once per machine there; tests needing an empty cache make their own).
    env: { RAWRAG_CACHE_DIR: join(tmpdir(), 'rawrag-test-cache'), XDG_CACHE_HOME: join(tmpdir(), 'rawrag-test-xdg') },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
