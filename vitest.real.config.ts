import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:real`: the opponents' own libraries (tests/real/), each installed once into
 * RAWRAG_SYSTEMS_DIR (default ~/.cache/rawrag-systems, kept between runs) and driven through the CLI
 * against the loopback API. Long tests, one file at a time (each starts Python libraries).
 */
export default defineConfig({
  test: {
    name: 'real',
    include: ['tests/real/**/*.test.ts'],
    globalSetup: ['tests/real/report.ts'],
    env: {
      RAWRAG_SYSTEMS_DIR: process.env.RAWRAG_SYSTEMS_DIR ?? join(homedir(), '.cache', 'rawrag-systems'),
      XDG_CACHE_HOME: join(tmpdir(), 'rawrag-test-xdg'),
    },
    testTimeout: 1_800_000,
    hookTimeout: 3_600_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
