/**
 * Issue 37's "done when" for EverMemOS, through the real CLI: `rawrag run locomo --system evermemos
 * -S url=http://127.0.0.1:PORT --reader gpt-4o-mini --limit 200` against its loopback server
 * (tests/helpers/fake-evermemos.ts) and a loopback reader/judge completes with 0 errors and the
 * vendor protocol on the server's side (the fixture's checkProtocol: one group per conversation,
 * sender ids, roles, spaced timestamps, one message per add, the flush before any search, search
 * method and depth); coverage is absent, for a reason said once; a second run sends no add and no
 * flush; the store oracle's reader sees the exported episodes; `--cleanup` deletes the run's group;
 * `rawrag memory purge` leaves the service empty for the run's groups, messages a killed ingest left
 * accumulated included. The generic scenarios (`rawrag stats` against RAW-RAG, the store oracle,
 * kill -9 then resume, a second run) run for every service in the conformance suite,
 * tests/e2e/memory-services.test.ts, against one shared RAW-RAG baseline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { evidenceReader, ingestLog, killMidRun, locomoRunArgs, loopbackEnv, readItems, systemsJson } from '../helpers/loopback-run.js';
import { SERVICE_FIXTURES } from '../helpers/service-fixtures.js';
import type { FakeEverMemos } from '../helpers/fake-evermemos.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import { runTag } from '../../src/systems/memory-service/plan.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const LIMIT = 200;
/** The questions of a check that needs one conversation only. */
const SMALL = 12;

describe('rawrag run locomo --system evermemos --limit 200 against its loopback server', () => {
  const fixture = SERVICE_FIXTURES.evermemos!;
  const api = new FakeApi({ chat: evidenceReader(ds.questions) });
  const cache = tempDir('rawrag-evermemos-cache-');
  const root = tempDir('rawrag-evermemos-runs-');
  const env = loopbackEnv({ openai: 'sk-test-EVERMEMOS0123456789' });
  const out = join(root, 'evermemos');
  let peer: FakeEverMemos;
  let first: CliResult;
  const args = (dir: string, ...extra: string[]) =>
    locomoRunArgs({
      system: 'evermemos',
      out: dir,
      peer: api,
      chatOnly: true,
      cache,
      limit: LIMIT,
      extra: [...fixture.options(peer).flatMap((o) => ['-S', o]), ...extra],
    });

  beforeAll(async () => {
    await api.start();
    peer = (await fixture.start()) as unknown as FakeEverMemos;
    first = await rawragInProcess(args(out), env);
  }, 600_000);
  afterAll(async () => {
    await api.close();
    await peer.close();
  });

  it('completes with 0 errors, the vendor protocol seen on the server, its episodes as evidence, coverage absent for a reason said once', () => {
    expect(first.code, first.stderr).toBe(0);
    const s = JSON.parse(first.stdout);
    expect(s).toMatchObject({ n: LIMIT, errors: 0, system: 'EverMemOS' });
    const items = readItems(out);
    const episodes = [...new Set(items.map((i) => i.episode as string))];
    expect(episodes.length).toBeGreaterThan(1);
    fixture.checkProtocol(peer, { dataset: ds, episodes, questions: LIMIT });
    expect(s.service.acknowledged).toMatchObject({ owners: episodes.length, complete: episodes.length });
    expect(s.service.timing.add_to_ready_ms.n).toBe(episodes.length);
    expect(s.service.timing.search_ms.n).toBe(LIMIT);
    // The server extracted episodes at boundaries while adding, and the rest at the flush.
    expect(peer.episodes.length).toBeGreaterThan(episodes.length * 5);
    expect(s.service.no_coverage).toMatch(/episodes name no source message/);
    expect(items.every((i) => i.coverage === null)).toBe(true);
    expect(first.stderr.match(/coverage: EverMemOS v1 episodes name no source message/g) ?? []).toHaveLength(1);
    expect(items.filter((i) => i.score === 1).length).toBeGreaterThan(0);
    // The reader sees the episodes as the vendor's adapter shows them: "<subject>: <episode>".
    const reader = api.requests.find((r) =>
      /recalled by EverMemOS[\s\S]*Conversation between /.test(JSON.stringify(r.body?.messages ?? '')),
    );
    expect(reader).toBeDefined();
  });

  it('a second run sends no add and no flush', async () => {
    const before = peer.requests.length;
    const again = await rawragInProcess(args(out), env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ errors: 0, service: { this_run: { adds_sent: 0 } } });
    expect(peer.requests.slice(before).filter((r) => peer.isAdd(r) || r.path.endsWith('/flush'))).toHaveLength(0);
  }, 600_000);

  it("the store oracle's reader sees the episodes the groups held (the oracle itself runs for every service in the conformance suite)", async () => {
    const before = api.requests.length;
    const r = await rawragInProcess(
      locomoRunArgs({
        system: 'store-oracle',
        out: join(root, 'oracle'),
        peer: api,
        chatOnly: true,
        cache,
        limit: SMALL,
        extra: ['-S', `store=${out}`],
      }),
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ n: SMALL, errors: 0 });
    // The oracle's reader saw the exported episodes' text.
    expect(api.requests.slice(before).some((q) => JSON.stringify(q.body ?? '').includes('Conversation between'))).toBe(true);
  }, 600_000);

  it("--cleanup flushes and deletes the run's group at its end, and only it; memory show reads what was acknowledged", async () => {
    const dir = join(root, 'clean');
    const live = (group: string) => peer.episodes.filter((e) => e.group_id === group && !e.deleted).length;
    const r = await rawragInProcess([...args(dir), '--limit', '20', '--cleanup'], env);
    expect(r.code, r.stderr).toBe(0);
    const group = `rawrag-${runTag(dir)}-conv-26`;
    expect(r.stderr).toContain(`cleanup: purged ${group} (episode conv-26) on http://127.0.0.1:`);
    expect(peer.episodes.some((e) => e.group_id === group)).toBe(true);
    expect(live(group)).toBe(0);
    expect(peer.windows.get(group)).toEqual([]);
    expect(live(`rawrag-${runTag(out)}-conv-26`)).toBeGreaterThan(0);
    const shown = await rawragInProcess(['memory', 'show', out, '--owner', 'conv-26'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`rawrag-${runTag(out)}-conv-26`);
  }, 600_000);

  it("rawrag memory purge leaves the service empty for the run's groups, a killed ingest's accumulated messages included", async () => {
    // A group whose ingest was killed before its flush: its messages are still accumulated on the server.
    const half = join(root, 'half');
    peer.inject({ kind: 'slow', delayMs: 25, times: Infinity, match: (q) => peer.isAdd(q) });
    expect(await killMidRun(args(half), env, () => ingestLog(half).filter((l) => l.type === 'add').length >= 10, 20)).toBe('SIGKILL');
    peer.faults.length = 0;
    expect([...peer.windows.values()].some((w) => w.length > 0)).toBe(true);
    for (const dir of [out, half]) {
      const episodes = [...new Set(ingestLog(dir).flatMap((l) => (l.episode ? [l.episode as string] : [])))];
      for (const ep of episodes) {
        const p = await rawragInProcess(['memory', 'purge', dir, '--owner', ep], env);
        expect(p.code, p.stderr).toBe(0);
        expect(p.stdout).toMatch(/verified, 0 memories left/);
        expect(p.stdout).toMatch(/soft delete/);
      }
    }
    expect(peer.totalHeld()).toBe(0);
  }, 600_000);
});

it('rawrag systems evermemos shows its options, environment, start commands and vendor protocol; rawrag paper shows its rows', async () => {
  const { systems, paper_opponents } = await systemsJson();
  const s = systems.find((x) => x.name === 'evermemos')!;
  expect(Object.fromEntries(s.options.map((o) => [o.key, o.default]))).toMatchObject({
    top_k: 10,
    batch: 1,
    owners: 'per-episode',
    method: 'agentic',
    memory_types: ['episodic_memory'],
    step: 30,
    fit: 0.9,
  });
  expect(s.env.map((e) => e.name)).toContain('EVERMEMOS_API_KEY');
  expect(s.start.join('\n')).toMatch(/docker compose up -d[\s\S]*uv run python src\/run\.py/);
  expect(s.protocol.sources.join('\n')).toMatch(/EverMind-AI\/EverMemOS@e37205f5 methods\/EverCore\/evaluation\/src\/core\/loaders\.py/);
  expect(s.protocol.deviations.join('\n')).toMatch(/POST \/api\/v0\/memories .* -> POST \/api\/v1\/memories\/group/);
  expect(paper_opponents.find((o) => o.name === 'EverMemOS')?.system).toBe('evermemos');
  const text = await rawragInProcess(['systems', 'evermemos'], {});
  expect(text.stdout).toMatch(/method +\| "keyword" \\| "vector" \\| "hybrid" \\| "agentic"/);
  const paper = await rawragInProcess(['paper'], {});
  expect(paper.code, paper.stderr).toBe(0);
  expect(paper.stdout).toMatch(/EverMemOS on LongMemEval-S, read by gpt-4\.1-mini[\s\S]*83\.00/);
  expect(paper.stdout).toMatch(/EverMemOS on PersonaMem-v2[\s\S]*53\.25/);
});
