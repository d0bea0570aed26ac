/**
 * Issue 37's "done when" for MemU, through the real CLI against loopback memU services
 * (tests/helpers/fake-memu.ts) and a loopback reader/judge:
 * - the hosted API as EverMemOS's adapter drives it (the default): `rawrag run locomo --system memu
 *   -S url=... --reader gpt-4o-mini --limit 200` completes with 0 errors and the protocol on the
 *   service's side; coverage is absent with its reason printed once; a second run sends no add; a
 *   lost memorize reply is found, not re-sent; kill -9 while a memorize task runs, then resume, adds
 *   nothing twice; the run exports each store's items; `rawrag memory purge` empties it;
 * - memU-server (-S api=server): one episode at a time; as upstream ships it, every question fails
 *   with its retrieve bug named (file and line), the retries bounded; fixed, the run completes.
 * (MemOS's protocol, -S protocol=memos, is the conformance suite's fixture: tests/e2e/memory-services.test.ts,
 * which also runs the generic scenarios for memu: `rawrag stats` against the shared RAW-RAG baseline,
 * the store oracle, kill -9 then resume.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { evidenceReader, ingestLog, killMidRun, locomoRunArgs, loopbackEnv, readItems, systemsJson } from '../helpers/loopback-run.js';
import { MEMU_VARIANTS, type ServiceFixture, type ServicePeer } from '../helpers/service-fixtures.js';
import type { FakeMemuServer } from '../helpers/fake-memu.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const LIMIT = 200;
/** The questions of a check that needs one conversation only (conv-26: two speakers' stores). */
const SMALL = 12;
const NO_COVERAGE = /coverage: memU returns memories it extracted with an LLM/g;

/** A loopback reader/judge, the variant's peer, and the run arguments against both. */
function harness(fixture: ServiceFixture, tag: string) {
  const h = {
    api: new FakeApi({ chat: evidenceReader(ds.questions) }),
    cache: tempDir(`rawrag-memu-${tag}-cache-`),
    root: tempDir(`rawrag-memu-${tag}-runs-`),
    env: loopbackEnv({ openai: 'sk-test-MEMU0123456789' }, { ...fixture.env }),
    peer: null as unknown as ServicePeer,
    args: (dir: string, limit: number, ...extra: string[]) =>
      locomoRunArgs({
        system: 'memu',
        out: dir,
        peer: h.api,
        chatOnly: true,
        cache: h.cache,
        limit,
        extra: [...fixture.options(h.peer).flatMap((o) => ['-S', o]), ...extra],
      }),
    async start() {
      await h.api.start();
      h.peer = await fixture.start();
    },
    async close() {
      await h.api.close();
      await h.peer.close();
    },
  };
  return h;
}

describe('the hosted API as EverMemOS drives it: rawrag run locomo --system memu --limit 200', () => {
  const fixture = MEMU_VARIANTS.evermemos;
  const h = harness(fixture, 'cloud');
  const out = join(h.root, 'memu');
  let first: CliResult;

  beforeAll(async () => {
    await h.start();
    first = await rawragInProcess([...h.args(out, LIMIT)], h.env);
  }, 600_000);
  afterAll(() => h.close());

  it('completes with 0 errors, the protocol seen on the service, coverage absent with its reason printed once', () => {
    expect(first.code, first.stderr).toBe(0);
    const s = JSON.parse(first.stdout);
    expect(s).toMatchObject({ n: LIMIT, errors: 0, system: 'MemU' });
    const items = readItems(out);
    const episodes = [...new Set(items.map((i) => i.episode as string))];
    expect(episodes.length).toBeGreaterThan(1);
    fixture.checkProtocol(h.peer, { dataset: ds, episodes, questions: LIMIT });
    expect(s.service.acknowledged).toMatchObject({ owners: 2 * episodes.length, complete: 2 * episodes.length });
    expect(s.service.timing.add_to_ready_ms.n).toBe(2 * episodes.length);
    expect(s.service.timing.search_ms.n).toBe(2 * LIMIT);
    expect(s.service).toMatchObject({ coverage: null, api: 'memu-cloud-evermemos', batch: 'episode', owners: 'per-speaker' });
    expect(items.every((i) => i.coverage === null)).toBe(true);
    expect(first.stderr.match(NO_COVERAGE)).toHaveLength(1);
    // The reader saw each store's memories and its category overview; some answers are right.
    const read = h.api.requests.map((r) => JSON.stringify(r.body?.messages ?? '')).find((m) => m.includes('recalled by MemU'));
    expect(read).toContain('## Memory Overview (by Category)');
    expect(items.filter((i) => i.score === 1).length).toBeGreaterThan(0);
  });

  it('rawrag memory show lists what the service acknowledged for the run', async () => {
    const r = await rawragInProcess(['memory', 'show', out], h.env);
    expect(r.code, r.stderr).toBe(0);
    // One memorize per speaker's store, each searchable once its task succeeded.
    expect(r.stdout).toMatch(/^4 owner\(s\) on the service/);
    expect(r.stdout.match(/~[a-z]+ \(episode conv-\d+, \d+ turns\): 1 adds, searchable [\d.]+ s after its first add/g)).toHaveLength(4);
  }, 600_000);

  it('a second run sends no add', async () => {
    const before = h.peer.requests.filter((q) => h.peer.isAdd(q)).length;
    const again = await rawragInProcess(h.args(out, LIMIT), h.env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ errors: 0, service: { this_run: { adds_sent: 0 } } });
    expect(h.peer.requests.filter((q) => h.peer.isAdd(q)).length).toBe(before);
  }, 600_000);

  it('a whole-conversation memorize whose reply was lost (torn, reset after it was done) is found on the service, not sent again', async () => {
    const dir = join(h.root, 'lost');
    const isAdd = (q: any) => h.peer.isAdd(q);
    h.peer.inject({ kind: 'torn', times: 1, match: isAdd });
    h.peer.inject({ kind: 'reset-after', times: 1, match: isAdd });
    const r = await rawragInProcess(h.args(dir, 12), h.env);
    h.peer.faults.length = 0;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).errors).toBe(0);
    const recovered = ingestLog(dir).filter((l) => l.type === 'add' && l.recovered);
    expect(recovered).toHaveLength(2);
    expect(recovered.every((l) => l.found.length > 0)).toBe(true);
    expect(h.peer.appliedTwice()).toEqual([]);
  }, 600_000);

  it("the run exports each store's memory items, listed once the store was complete (the store oracle reads such a file for every service in the conformance suite)", () => {
    const store = readFileSync(join(out, 'service-store.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(store.length).toBeGreaterThanOrEqual(4);
    expect(store.every((l) => l.memories.length > 0)).toBe(true);
  });

  it('kill -9 during ingest, then the same command: nothing added twice', async () => {
    const dir = join(h.root, 'killed');
    // Slow tasks: the kill lands while the first memorizes are accepted and still running.
    h.peer.inject({ kind: 'slow', delayMs: 300, times: Infinity, match: (q) => q.path.includes('/memorize/status/') });
    const cmd = h.args(dir, SMALL, '-S', 'concurrency=2');
    const before = h.peer.applied.length;
    expect(await killMidRun(cmd, h.env, () => ingestLog(dir).some((l) => l.type === 'accepted'), 20)).toBe('SIGKILL');
    h.peer.faults.length = 0;
    expect(ingestLog(dir).filter((l) => l.type === 'complete').length).toBeLessThan(2);
    const resumed = await rawragInProcess(cmd, h.env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).errors).toBe(0);
    expect(h.peer.appliedTwice()).toEqual([]);
    const acknowledged = ingestLog(dir).filter((l) => l.type === 'add');
    expect(new Set(acknowledged.map((l) => l.owner)).size).toBe(acknowledged.length);
    expect(h.peer.applied.length - before).toBe(acknowledged.length);
  }, 600_000);

  it("rawrag memory purge leaves the service empty for the run's owners", async () => {
    for (const dir of [out, join(h.root, 'killed'), join(h.root, 'lost')]) {
      const episodes = [...new Set(ingestLog(dir).flatMap((l) => (l.episode ? [l.episode as string] : [])))];
      for (const ep of episodes) {
        const p = await rawragInProcess(['memory', 'purge', dir, '--owner', ep], h.env);
        expect(p.code, p.stderr).toBe(0);
        expect(p.stdout).toMatch(/verified, 0 memories left/);
      }
    }
    expect(h.peer.totalHeld()).toBe(0);
  }, 600_000);
});

describe('memU-server (-S api=server): one episode at a time', () => {
  it('as upstream ships it: every question fails with the retrieve bug named (file and line), retries bounded, the episode cleared', async () => {
    const h = harness(MEMU_VARIANTS.server, 'server');
    await h.start();
    try {
      const dir = join(h.root, 'buggy');
      const r = await rawragInProcess(h.args(dir, 5), h.env);
      expect(r.code).not.toBe(0);
      const items = readItems(dir);
      expect(items).toHaveLength(5);
      for (const i of items) {
        expect(i.error.stage).toBe('retrieve');
        expect(i.error.message).toMatch(/memU-server's own bug.*app\/main\.py L203-209.*datetime/);
      }
      expect(r.stderr.match(/memU-server@17071716's \/retrieve answers 500 whenever it finds memories/g)).toHaveLength(1);
      // Bounded: at most two retries per question (searched concurrently), then the named error, not retried again.
      const retrieves = h.peer.requests.filter((q) => q.path === '/retrieve');
      expect(retrieves.length).toBeGreaterThanOrEqual(5);
      expect(retrieves.length).toBeLessThanOrEqual(5 * 3);
      expect(h.peer.totalHeld()).toBe(0);
    } finally {
      await h.close();
    }
  }, 600_000);

  it('fixed: --limit 200 completes with 0 errors, each conversation ingested, answered and cleared before the next', async () => {
    const fixture = MEMU_VARIANTS.serverFixed;
    const h = harness(fixture, 'fixed');
    await h.start();
    try {
      const dir = join(h.root, 'fixed');
      const r = await rawragInProcess(h.args(dir, LIMIT), h.env);
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s).toMatchObject({ n: LIMIT, errors: 0, system: 'MemU', service: { api: 'memu-server', owners: 'per-episode' } });
      const items = readItems(dir);
      const episodes = [...new Set(items.map((i) => i.episode as string))];
      expect(episodes.length).toBeGreaterThan(1);
      fixture.checkProtocol(h.peer, { dataset: ds, episodes, questions: LIMIT });
      expect((h.peer as unknown as FakeMemuServer).usersAtRetrieve).toHaveLength(LIMIT);
      expect(items.filter((i) => i.score === 1).length).toBeGreaterThan(0);
      // Released when answered: nothing left on the server, every owner purged in the log.
      expect(h.peer.totalHeld()).toBe(0);
      expect(ingestLog(dir).filter((l) => l.type === 'purged')).toHaveLength(episodes.length);
      // Per-speaker stores cannot be searched apart on a server whose retrieve takes no owner: refused.
      const refused = await rawragInProcess(h.args(join(h.root, 'refused'), 3, '-S', 'owners=per-speaker'), h.env);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/retrieve takes no owner: per-speaker stores cannot be searched apart/);
    } finally {
      await h.close();
    }
  }, 600_000);
});

it('rawrag systems memu lists its options, environment, start commands for both APIs and the vendor protocol', async () => {
  const { systems } = await systemsJson();
  const s = systems.find((x) => x.name === 'memu')!;
  expect(Object.fromEntries(s.options.map((o) => [o.key, o.default]))).toMatchObject({
    api: 'cloud',
    protocol: 'evermemos',
    top_k: 20,
    readyTimeout: 4800,
    lost_wait: 120,
  });
  expect(s.env.map((e) => e.name)).toContain('MEMU_API_KEY');
  expect(s.start.join('\n')).toMatch(/docker compose up -d/);
  expect(s.start.join('\n')).toMatch(/MEMU_API_KEY/);
  expect(s.protocol.sources.join('\n')).toMatch(/EverMind-AI\/EverMemOS@e37205f5 .*memu_adapter\.py/);
  expect(s.protocol.sources.join('\n')).toMatch(/NevaMind-AI\/memU-server@17071716 app\/main\.py/);
  expect(s.protocol.deviations.length).toBeGreaterThanOrEqual(6);
  // The hosted API needs its key (from the environment only): refused before anything is sent.
  const keyless = await rawragInProcess(
    [
      'run',
      'locomo',
      '--system',
      'memu',
      '-S',
      'url=http://127.0.0.1:9',
      '--reader',
      'gpt-4o-mini',
      '--limit',
      '1',
      '--out',
      join(tempDir('rawrag-memu-keyless-'), 'o'),
    ],
    { OPENAI_API_KEY: 'sk-test-MEMU0123456789', MEMU_API_KEY: undefined },
  );
  expect(keyless.code).not.toBe(0);
  expect(keyless.stderr).toMatch(/memU's hosted API needs a key: set MEMU_API_KEY/);
  // rawrag protocol prints the vendor protocol and its deviations.
  const proto = await rawragInProcess(['protocol', 'locomo', '--system', 'memu', '-S', 'api=server'], {});
  expect(proto.code, proto.stderr).toBe(0);
  expect(proto.stdout).toMatch(/vendor protocol: api=cloud, protocol=evermemos/);
  expect(proto.stdout).toMatch(/VENDOR DEVIATION: protocol=memos polls every memorize/);
  const text = await rawragInProcess(['systems', 'memu'], {});
  expect(text.code, text.stderr).toBe(0);
  expect(text.stdout).toMatch(/api +\| "cloud" \\| "server"/);
  expect(text.stdout).toMatch(/protocol +\| "evermemos" \\| "memos"/);
});
