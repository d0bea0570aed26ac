import { createHash } from 'node:crypto';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// vitest's results cache (each file's duration: the slowest files start first) outside
// node_modules: a checkout whose node_modules is hard-linked from another's must not write
// through into the other's files. One folder per checkout.
const checkout = createHash('sha1')
  .update(import.meta.dirname)
  .digest('hex')
  .slice(0, 12);
const RESULTS_CACHE = join(tmpdir(), `rawrag-vitest-${checkout}`);

/**
 * Unit test files that read or change what a process keeps: the sentence encoder's once-per-process
 * load and note (local-dense), the system registry (systems registered for the file), process.env,
 * spies on process.stdout/stderr.
 */
const UNIT_OWN_PROCESS = [
  'tests/unit/local-dense.test.ts',
  'tests/unit/systems/plugin.test.ts',
  'tests/unit/memory-service/one-episode.test.ts',
  'tests/unit/paper/system-rows.test.ts',
  'tests/unit/memory-service/mem0-protocol.test.ts',
  'tests/unit/agentic-memory/audit.test.ts',
  'tests/unit/sqlite-corrupt.test.ts',
];

/** Slow test files that need a process of their own. */
const SLOW_OWN_PROCESS = ['tests/slow/docs-examples-rerun.test.ts'];

/**
 * The slow stage's longest files (a minute or more each, 2026-12-07). vitest starts the files it
 * has timed before longest first, but a fresh clone (CI) has no timings and goes by file size:
 * faults-locomo, a small file that runs for most of a minute, then started last and ran alone.
 */
const LONG_FIRST = [
  'tests/slow/memory-services-faults.test.ts',
  'tests/slow/agentic-memory-run.test.ts',
  'tests/slow/sidecars.test.ts',
  'tests/slow/faults-locomo.test.ts',
  'tests/slow/grid.test.ts',
  'tests/slow/signals.test.ts',
];

/** vitest's order (by project, then timings or size), with LONG_FIRST at the front of their project's files. */
class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONG_FIRST.findIndex((l) => f.moduleId.endsWith(`/${l}`));
      return i < 0 ? LONG_FIRST.length : i;
    };
    const byProject = new Map<string, TestSpecification[]>();
    for (const f of sorted) byProject.set(f.project.name, [...(byProject.get(f.project.name) ?? []), f]);
    // Array.prototype.sort is stable: the other files keep vitest's order.
    return [...byProject.values()].flatMap((group) => [...group].sort((a, b) => rank(a) - rank(b)));
  }
}

export default defineConfig({
  cacheDir: RESULTS_CACHE,
  test: {
    // CLI tests spawn bin/rawrag.js, which runs the compiled dist/: built once first if stale.
    globalSetup: ['tests/global-setup.ts'],
    // Never the user's ~/.cache/rawrag: one cache for the test suite (GloVe and vector caches are
    // built once per machine there; tests needing an empty cache make their own).
    env: { RAWRAG_CACHE_DIR: join(tmpdir(), 'rawrag-test-cache'), XDG_CACHE_HOME: join(tmpdir(), 'rawrag-test-xdg') },
    sequence: { sequencer: LongFilesFirst },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two test files at once even on a 2-core machine (vitest's default there is one, cores - 1):
    // one file at a time leaves a core idle. No file on disk is shared between test files but the
    // read-mostly cache above (word vectors, written by atomic rename); every run directory, cache
    // and server port is a file's own (temp dirs, port 0).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      // Unit tests: one process per worker serves file after file (a fresh process per file cost
      // 192 s of the fast stage against 73 s, mostly importing the same modules again)...
      { extends: true, test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], exclude: UNIT_OWN_PROCESS, isolate: false } },
      // ...but for the files that need a process of their own.
      { extends: true, test: { name: 'unit-own-process', include: UNIT_OWN_PROCESS } },
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
      // e2e/ (one process per worker), kept out of `npm test` and run by `npm run test:slow` (CI's
      // second stage). docs/testing.md says which test goes where. Named so that it sorts after
      // slow-own-process: vitest orders files by project name first, and the one file of its own
      // process then starts at once instead of running alone at the stage's end (about 25 s).
      { extends: true, test: { name: 'slow-shared', include: ['tests/slow/**/*.test.ts'], exclude: SLOW_OWN_PROCESS, isolate: false } },
      // The rerun of the documented examples: run after other files in one process, its examples
      // did not print what their files hold (the cause is not pinned down); a process of its own.
      { extends: true, test: { name: 'slow-own-process', include: SLOW_OWN_PROCESS } },
    ],
  },
});
