/**
 * The real-library tier's helper (`npm run test:real`): an opponent's own library, installed with
 * `rawrag systems install NAME` into RAWRAG_SYSTEMS_DIR (kept between runs), started for you by
 * `rawrag run ... --system NAME` and driven through the CLI against the loopback OpenAI-compatible
 * API (tests/helpers/fake-api.ts with every library's responder, tests/helpers/loopback-llm/).
 *
 *   import { realLibrary } from './real-library.js';
 *   const real = realLibrary('mem0');                      // ran, or not run and why (reported at the end)
 *   real.test('LoCoMo through the CLI', async () => {
 *     const run = await real.runLocomo({ limit: 20 });     // rawrag run locomo --system mem0 --reader gpt-4o-mini ...
 *     expect(run.manifest.questions.errors).toBe(0);
 *     expect(real.api.answeredBy('mem0').length).toBeGreaterThan(0);   // the library's own prompts reached the API
 *     const stored = await real.withStarted((url) => fetch(`${url}/...`).then((r) => r.json()));  // its own store
 *     const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
 *   });
 *
 * Not run (the test is skipped, the reason reported): the plug-in declares no install, the library
 * cannot be installed here (`unavailable`), it is heavy (`heavy`; RAWRAG_REAL_HEAVY=1 runs it),
 * the interpreter does not satisfy its Python specifier, or its checkout is not in RAWRAG_SOURCES.
 * Each file reports through `RAWRAG_REAL_REPORT` (set by tests/real/report.ts).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { FakeApi } from '../helpers/fake-api.js';
import { loopbackResponders } from '../helpers/loopback-llm/index.js';
import { rawragAsync, tempDir, type CliResult } from '../helpers/cli.js';
import { getSystem } from '../../src/systems/registry.js';
import { installBlocker } from '../../src/systems/memory-service/installer.js';
import { ensureStarted } from '../../src/systems/memory-service/launcher.js';
import { inCommand, runCommandEnd } from '../../src/util/command-end.js';
import type { InstallSpec } from '../../src/core/install-spec.js';

/** Why `system`'s real library is not run here, or null when it is. */
export function notRunReason(system: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const spec = getSystem(system).about?.install;
  if (!spec) return 'its plug-in declares no install (stand-in only)';
  if (spec.unavailable) return `cannot be installed here: ${spec.unavailable}`;
  if (spec.heavy && !env.RAWRAG_REAL_HEAVY) return `heavy (${spec.heavy}): RAWRAG_REAL_HEAVY=1 runs it`;
  return installBlocker(system, spec, { env });
}

export function report(system: string, ran: boolean, detail: string): void {
  const file = process.env.RAWRAG_REAL_REPORT;
  if (file) appendFileSync(file, JSON.stringify({ system, ran, detail }) + '\n');
}

export interface LocomoRun {
  dir: string;
  result: CliResult;
  manifest: any;
  items: any[];
}

export function realLibrary(system: string) {
  const reason = notRunReason(system);
  // Reported now: vitest runs no beforeAll of a file whose tests are all skipped.
  if (reason) report(system, false, reason);
  const spec = getSystem(system).about?.install as InstallSpec;
  const cache = tempDir(`rawrag-real-${system}-`);
  const self = {
    ran: reason === null,
    reason,
    api: null as unknown as FakeApi,
    /** The environment of every command: a fresh cache (and the started library's state) per file, the loopback API as the library's endpoint. */
    env: () => ({
      RAWRAG_CACHE_DIR: cache,
      OPENAI_BASE_URL: `${self.api.url}/v1`,
      OPENAI_API_KEY: 'sk-loopback-real',
      RAWRAG_RETRY_BASE_MS: '10',
    }),
    /** The CLI (bin/rawrag.js) in a child process. */
    cli: (args: string[]) => rawragAsync(args, self.env()),
    /** `rawrag run locomo --system NAME --reader gpt-4o-mini --limit N`, the reader and judge on the loopback API. */
    async runLocomo(o: { limit?: number; args?: string[]; out?: string } = {}): Promise<LocomoRun> {
      const dir = join(cache, o.out ?? 'run');
      const v1 = `${self.api.url}/v1`;
      const args = ['run', 'locomo', '--system', system, '--reader', 'gpt-4o-mini', '--limit', String(o.limit ?? 20)];
      const result = await self.cli([
        ...args,
        '--reader-base-url',
        v1,
        '--judge-base-url',
        v1,
        '--out',
        dir,
        '--no-progress',
        ...(o.args ?? []),
      ]);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
      const items = readFileSync(join(dir, 'items.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      return { dir, result, manifest, items };
    },
    /** Starts the installed library as a run does (same state folder) and calls `f` with its URL; stopped after. */
    async withStarted<T>(f: (url: string) => Promise<T>): Promise<T> {
      // One command of its own: it owns what it starts and stops only that (a CLI call inside `f` never stops it).
      return inCommand(async () => {
        const started = await ensureStarted({ system, spec, script: spec.script!, env: { ...process.env, ...self.env() }, cacheDir: null });
        return f(started.url);
      });
    },
    /** `it`, or `it.skip` with the reason in its name when the library is not run here. */
    test(name: string, fn: () => Promise<void>, timeoutMs = 1_800_000) {
      if (reason) it.skip(`${name} (not run: ${reason})`, fn);
      else it(name, fn, timeoutMs);
    },
    /**
     * A test of a light library that runs only with RAWRAG_REAL_HEAVY=1: a further mode of the same
     * library, kept out of CI's light tier (its time budget), run with the heavy ones.
     */
    heavyTest(name: string, fn: () => Promise<void>, timeoutMs = 1_800_000) {
      if (reason) it.skip(`${name} (not run: ${reason})`, fn);
      else if (!process.env.RAWRAG_REAL_HEAVY) it.skip(`${name} (not run: a further mode, RAWRAG_REAL_HEAVY=1 runs it)`, fn);
      else it(name, fn, timeoutMs);
    },
  };
  beforeAll(async () => {
    if (reason) return;
    self.api = await new FakeApi({ responders: await loopbackResponders(), nativeDims: true }).start();
    const install = await self.cli(['systems', 'install', system]);
    if (install.code !== 0) throw new Error(`rawrag systems install ${system} failed:\n${install.stderr}\n${install.stdout}`);
    report(system, true, install.stdout.split('\n')[0]!);
  }, 3_600_000);
  afterAll(async () => {
    await runCommandEnd();
    await self.api?.close();
  });
  return self;
}
