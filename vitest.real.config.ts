import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:real`: the opponents' own libraries (tests/real/), each installed once into
 * RAWRAG_SYSTEMS_DIR (default ~/.cache/rawrag-systems, kept between runs) and driven through the CLI
 * against the loopback API. Long tests, two files at a time (each starts a Python library).
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
    // Two files at once: each is mostly a Python library's start-up and its waits on the loopback API
    // (and, on a machine without the installs, pip's downloads); on two cores, one at a time left one idle.
    maxWorkers: 2,
  },
});
