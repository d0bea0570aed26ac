/**
 * The agentic memory stores from outside: a process killed with SIGKILL during extraction loses
 * nothing already stored and its resume re-extracts none of it; `rawrag memory show` reads the
 * store back (items, source events, version chains); `rawrag memory purge` deletes an owner
 * physically and says so only after reading the database back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { createAgenticMemorySource } from '../../src/systems/agentic-memory/source.js';
import { MemoryStore } from '../../src/systems/agentic-memory/store.js';
import { CACHE_FILE } from '../../src/providers/cache.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeExtractor, isExtractionRequest, segmentOf } from '../helpers/fake-extractor.js';
import {
  BERLIN,
  PARIS,
  contextFor,
  fixtureScript,
  ingested,
  memoryConfigFor,
  memoryEpisode,
  sessionFor,
} from '../unit/agentic-memory/fixture.js';

let fake: FakeExtractor;
let runDir: string;
let cacheDir: string;

beforeEach(async () => {
  // Session 5's reply is well formed here: this file is about storage, not parsing.
  const script = fixtureScript();
  script!.script!['D5:1'] = '[]';
  fake = await new FakeExtractor(script).start();
  runDir = tempDir('rawrag-mem-e2e-run-');
  cacheDir = tempDir('rawrag-mem-e2e-cache-');
});
afterEach(async () => {
  await fake.close();
});

async function buildStore(): Promise<void> {
  const cfg = memoryConfigFor();
  const session = sessionFor(fake.url, cacheDir);
  const source = await createAgenticMemorySource(cfg, session, { runDir });
  await source.open(ingested(memoryEpisode()), contextFor(cfg));
  await source.close?.();
  session.close();
  // The commands find the run's system in its manifest (what `rawrag run` writes).
  writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ schema: 'rawrag.run/2', system: 'agentic-memory', benchmark: 'locomo', setting: 'test', config: { system: 'agentic-memory' } }));
}

const okBatches = (): string[] => {
  const file = join(runDir, 'memory.sqlite');
  if (!existsSync(file)) return [];
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (
        db.prepare("SELECT batch_key FROM extractions WHERE status = 'ok' ORDER BY batch_index").all() as Array<{ batch_key: string }>
      ).map((r) => r.batch_key);
    } finally {
      db.close();
    }
  } catch {
    return [];
  }
};

describe('agentic memory store', () => {
  it('kill -9 during extraction, then resume: nothing stored is lost or extracted again', async () => {
    // One extraction at a time, each answered slowly, so the kill lands between batches.
    fake.api.inject({ kind: 'slow', delayMs: 400, times: Infinity, match: isExtractionRequest });
    const dist = (p: string) => pathToFileURL(join(ROOT, 'dist', p)).href;
    const script = join(runDir, '..', `rawrag-mem-child-${process.pid}.mjs`);
    writeFileSync(
      script,
      `const { createAgenticMemorySource } = await import(${JSON.stringify(dist('systems/agentic-memory/source.js'))});
const { ProviderSession } = await import(${JSON.stringify(dist('providers/session.js'))});
const { RunConfigSchema } = await import(${JSON.stringify(dist('systems/registry.js'))});
const { ingest } = await import(${JSON.stringify(dist('retrieval/chunk.js'))});
const { DEFAULT_POLICY } = await import(${JSON.stringify(dist('core/policy.js'))});
const a = JSON.parse(process.env.CHILD_ARGS);
const cfg = RunConfigSchema.parse({ benchmark: 'locomo', reader: { model: 'gpt-4o-mini' }, retrieval: { retriever: 'openai' } });
const session = new ProviderSession({ cacheDir: a.cacheDir, concurrency: { chat: 1, embed: 4, rerank: 4 }, env: a.env });
const source = await createAgenticMemorySource(cfg, session, { runDir: a.runDir });
await source.open(ingest(a.episode, a.episode.turns.length, DEFAULT_POLICY, cfg.chunking), { cfg, policy: DEFAULT_POLICY });
process.stdout.write('done\\n');
`,
    );
    const env = { OPENAI_API_KEY: 'sk-test-memory', OPENAI_BASE_URL: `${fake.url}/v1`, RAWRAG_RETRY_BASE_MS: '1' };
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, CHILD_ARGS: JSON.stringify({ cacheDir, runDir, env, episode: memoryEpisode() }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<NodeJS.Signals | number | null>((r) => child.on('exit', (code, signal) => r(signal ?? code)));
    const deadline = Date.now() + 30_000;
    while (okBatches().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGKILL');
    expect(await exited, stderr).toBe('SIGKILL');
    const storedBeforeKill = okBatches();
    expect(storedBeforeKill.length).toBeGreaterThanOrEqual(3);
    expect(storedBeforeKill.length).toBeLessThan(8);
    const store = new MemoryStore(join(runDir, 'memory.sqlite'));
    const itemsBeforeKill = store.memories('conv-m').map((m) => m.memory_id);
    store.close();

    fake.api.faults = [];
    fake.api.requests.length = 0;
    await buildStore();
    const firstTurns = new Set(storedBeforeKill.map((k) => Number(/^t(\d+)-/.exec(k)![1])));
    const resent = fake.extractionRequests().map((r) => segmentOf(r.body).turnIds[0]!);
    const ep = memoryEpisode();
    for (const t of resent)
      expect(firstTurns.has(ep.turns.findIndex((x) => x.id === t)), `re-extracted stored batch starting at ${t}`).toBe(false);
    expect(okBatches()).toEqual(['t0-1', 't2-3', 't4-5', 't6-7', 't8-9', 't10-11', 't12-13', 't14-15']);
    const after = new MemoryStore(join(runDir, 'memory.sqlite'));
    const all = after.memories('conv-m');
    for (const id of itemsBeforeKill) expect(all.some((m) => m.memory_id === id)).toBe(true);
    expect(all.find((m) => m.content === PARIS)!.superseded_by).toBe(all.find((m) => m.content === BERLIN)!.memory_id);
    after.close();
  });

  it('rawrag memory show lists items, source events and version chains; purge deletes physically and verifies', async () => {
    await buildStore();
    const show = await rawragInProcess(['memory', 'show', runDir, '--owner', 'conv-m']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('conv-m (history of 16 turns): 3 items, 2 active, 1 superseded or forgotten');
    expect(show.stdout).toMatch(/conv-m@16\/t0-1\/0 {2}active {2}\[1 May, 2023\] Caroline adopted a dog named Rex\./);
    expect(show.stdout).toContain('source conv-m/D1:1 (turns D1:1, D2:1): Caroline: "I adopted a dog named Rex last week!"');
    expect(show.stdout).toContain(
      `version chains:\n    "${PARIS}" [conv-m@16/t4-5/0, superseded, 15 May, 2023]\n      -> "${BERLIN}" [conv-m@16/t12-13/0, active, 12 June, 2023]`,
    );

    const unknown = await rawragInProcess(['memory', 'purge', '--run', runDir, '--owner', 'nobody']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/memory\.sqlite: --owner: owner 'nobody' has nothing in this store \(owners: conv-m\)/);

    const purge = await rawragInProcess(['memory', 'purge', runDir, '--owner', 'conv-m', '--cache-dir', cacheDir]);
    expect(purge.code, purge.stderr).toBe(0);
    expect(purge.stdout).toContain('purged owner conv-m from');
    expect(purge.stdout).toContain(
      "16 events, 3 memories, 8 extraction rows deleted; read back: 0 rows left; database vacuumed and checkpointed, no byte of the owner's text left",
    );
    expect(purge.stdout).toContain('response cache (--cache-dir): 8 of 8 extraction replies and 0 cached reader answers deleted');
    for (const f of readdirSync(runDir).filter((n) => n.startsWith('memory.sqlite')))
      expect(readFileSync(join(runDir, f)).includes('Berlin')).toBe(false);
    const cache = new Database(join(cacheDir, CACHE_FILE), { readonly: true });
    expect(cache.prepare("SELECT COUNT(*) AS n FROM responses WHERE role IN ('reader', 'extract')").get()).toEqual({ n: 0 });
    cache.close();
    const after = await rawragInProcess(['memory', 'show', '--run', runDir, '--owner', 'conv-m']);
    expect(after.code).toBe(2);
    const none = await rawragInProcess(['memory', 'show', '--run', tempDir()]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no memory store here/);
  });
});
