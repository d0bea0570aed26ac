/**
 * Issue 37's "done when" for MemMachine and MemOS, through the real CLI: `rawrag run locomo --system
 * NAME -S url=http://127.0.0.1:PORT --reader gpt-4o-mini --limit 200` against the system's loopback
 * server (tests/helpers/fake-memmachine.ts, fake-memos.ts) and a loopback reader/judge completes with
 * 0 errors and the vendor protocol on the server's side (the fixture's checkProtocol: owners, roles,
 * timestamps, batch sizes, waits, search depth); a second run sends no add; a kill -9 during ingest
 * then the same command adds nothing twice; `rawrag stats` pairs it with RAW-RAG; the store oracle
 * reads its exported store; `rawrag memory purge` leaves the service empty for the run's owners.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import {
  evidenceReader,
  ingestLog,
  killMidRun,
  locomoRunArgs,
  loopbackEnv,
  readItems,
  statsPairs,
  systemsJson,
} from '../helpers/loopback-run.js';
import { SERVICE_FIXTURES, type ServicePeer } from '../helpers/service-fixtures.js';
import { locomo } from '../../src/datasets/locomo/index.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const LIMIT = 200;

/** The search depth each vendor's own LoCoMo script uses (the systems' defaults). */
const SERVICE_TOP_K: Record<string, number> = { memmachine: 50, memos: 20 };

describe.each([
  { name: 'memmachine', label: 'MemMachine', ownersPerEpisode: 1 },
  { name: 'memos', label: 'MemOS', ownersPerEpisode: 2 },
])('rawrag run locomo --system $name --limit 200 against its loopback server', ({ name, label, ownersPerEpisode }) => {
  const fixture = SERVICE_FIXTURES[name]!;
  const api = new FakeApi({ chat: evidenceReader(ds.questions) });
  const cache = tempDir(`rawrag-${name}-cache-`);
  const root = tempDir(`rawrag-${name}-runs-`);
  const env = loopbackEnv({ openai: 'sk-test-OPPONENTS0123456789' });
  const out = join(root, name);
  let peer: ServicePeer;
  let first: CliResult;
  const args = (dir: string, ...extra: string[]) =>
    locomoRunArgs({
      system: name,
      out: dir,
      peer: api,
      chatOnly: true,
      cache,
      limit: LIMIT,
      extra: [...fixture.options(peer).flatMap((o) => ['-S', o]), ...extra],
    });

  beforeAll(async () => {
    await api.start();
    peer = await fixture.start();
    first = await rawragInProcess(args(out), env);
  }, 600_000);
  afterAll(async () => {
    await api.close();
    await peer.close();
  });

  it('completes with 0 errors, the vendor protocol seen on the server, coverage from its memories', () => {
    expect(first.code, first.stderr).toBe(0);
    const s = JSON.parse(first.stdout);
    expect(s).toMatchObject({ n: LIMIT, errors: 0, system: label });
    const items = readItems(out);
    const episodes = [...new Set(items.map((i) => i.episode as string))];
    expect(episodes.length).toBeGreaterThan(1);
    fixture.checkProtocol(peer, { dataset: ds, episodes, questions: LIMIT });
    expect(s.service.acknowledged).toMatchObject({
      owners: episodes.length * ownersPerEpisode,
      complete: episodes.length * ownersPerEpisode,
    });
    expect(s.service.timing.add_to_ready_ms.n).toBe(episodes.length * ownersPerEpisode);
    expect(s.service.timing.search_ms.n).toBe(LIMIT * ownersPerEpisode);
    // Coverage wherever the question has gold evidence (a few LoCoMo questions have none).
    const withGold = new Set(ds.questions.filter((q) => q.evidence.length > 0).map((q) => q.id));
    expect(items.filter((i) => withGold.has(i.id)).every((i) => i.coverage !== null)).toBe(true);
    expect(items.filter((i) => i.coverage?.all).length).toBeGreaterThan(LIMIT / 4);
    expect(items.filter((i) => i.score === 1).length).toBeGreaterThan(0);
    const reader = api.requests.find(
      (r) =>
        JSON.stringify(r.body?.messages ?? '').includes(`Memories recalled by ${label}`) ||
        JSON.stringify(r.body?.messages ?? '').includes(`recalled by ${label}`),
    );
    expect(reader).toBeDefined();
  });

  it('a second run sends no add', async () => {
    const before = peer.requests.filter((r) => peer.isAdd(r)).length;
    const again = await rawragInProcess(args(out), env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ errors: 0, service: { this_run: { adds_sent: 0 } } });
    expect(peer.requests.filter((r) => peer.isAdd(r)).length).toBe(before);
  }, 600_000);

  it('rawrag judge --rejudge -S checks the options against what the run recorded (a judge changes no system option)', async () => {
    const topK = SERVICE_TOP_K[name]!;
    let r = await rawragInProcess(['judge', '--rejudge', out, '--dry-run', '--cache-dir', cache, '-S', `top_k=${topK + 1}`], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`-S top_k: ${out} ran ${name} with top_k=${topK};`);
    r = await rawragInProcess(['judge', '--rejudge', out, '--dry-run', '--cache-dir', cache, '-S', 'depth=3'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/-S depth: .* no such option|-S depth: 'depth' is not an option/);
    // The options it ran with pass the check (another judge: a repeat of the run's own is refused).
    const again = ['judge', '--rejudge', out, '--dry-run', '--judge-runs', '1', '--cache-dir', cache, '-S', `top_k=${topK}`];
    r = await rawragInProcess(again, env);
    expect(r.code, r.stderr).toBe(0);
  });

  it('rawrag stats pairs it with RAW-RAG over the same questions', async () => {
    const raw = join(root, 'raw-rag');
    const r = await rawragInProcess(locomoRunArgs({ out: raw, peer: api, chatOnly: true, cache, limit: LIMIT, json: false }), env);
    expect(r.code, r.stderr).toBe(0);
    const st = await rawragInProcess(['stats', raw, out, '--out', join(root, 'stats')], env);
    expect(st.code, st.stderr).toBe(0);
    // The pairwise row: the system against RAW-RAG on the same 200 questions, none left out.
    const pairs = statsPairs(join(root, 'stats', 'stats.json'));
    expect(pairs.find((p) => p.system_a === label && p.system_b === 'RAW-RAG/local')).toMatchObject({ n: LIMIT, excluded: 0 });
    expect(st.stdout).toMatch(new RegExp(`\\| ${label} +\\| RAW-RAG/local +\\| +${LIMIT} \\| +0 \\|`));
  }, 600_000);

  it('the store oracle reads its exported store', async () => {
    const r = await rawragInProcess(
      locomoRunArgs({
        system: 'store-oracle',
        out: join(root, 'oracle'),
        peer: api,
        chatOnly: true,
        cache,
        limit: LIMIT,
        extra: ['-S', `store=${out}`],
      }),
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({ n: LIMIT, errors: 0 });
    expect(readItems(join(root, 'oracle')).some((i) => (i.evidence_turns as string[]).length > 0)).toBe(true);
  }, 600_000);

  it('kill -9 during ingest, then the same command: nothing added twice, every turn once per owner', async () => {
    const dir = join(root, 'killed');
    peer.inject({ kind: 'slow', delayMs: 25, times: Infinity, match: (q) => peer.isAdd(q) });
    const cmd = args(dir, '-S', 'concurrency=2');
    const before = peer.applied.length;
    expect(await killMidRun(cmd, env, () => ingestLog(dir).filter((l) => l.type === 'add').length >= 25, 20)).toBe('SIGKILL');
    peer.faults.length = 0;
    expect(ingestLog(dir).filter((l) => l.type === 'complete').length).toBeLessThan(2 * ownersPerEpisode);
    const resumed = await rawragInProcess(cmd, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).errors).toBe(0);
    expect(peer.appliedTwice()).toEqual([]);
    // Every planned add of the run exactly once on the service.
    const acknowledged = ingestLog(dir).filter((l) => l.type === 'add');
    expect(new Set(acknowledged.map((l) => `${l.owner} ${l.key}`)).size).toBe(acknowledged.length);
    expect(peer.applied.length - before).toBe(acknowledged.length);
  }, 600_000);

  it("rawrag memory purge leaves the service empty for the run's owners", async () => {
    for (const dir of [out, join(root, 'killed')]) {
      const episodes = [...new Set(ingestLog(dir).flatMap((l) => (l.episode ? [l.episode as string] : [])))];
      for (const ep of episodes) {
        const p = await rawragInProcess(['memory', 'purge', dir, '--owner', ep], env);
        expect(p.code, p.stderr).toBe(0);
        expect(p.stdout).toMatch(/verified, 0 memories left/);
      }
    }
    expect(peer.totalHeld()).toBe(0);
  }, 600_000);
});

it('rawrag systems lists both with their options, environment, docker compose start commands and vendor protocol', async () => {
  const { systems, paper_opponents } = await systemsJson();
  const defaults = (name: string) => Object.fromEntries(systems.find((s) => s.name === name)!.options.map((o) => [o.key, o.default]));
  expect(defaults('memmachine')).toMatchObject({ top_k: 50, batch: 10, expand_context: 0, owners: 'per-episode', org: 'universal' });
  expect(defaults('memos')).toMatchObject({ top_k: 20, batch: 2, owners: 'per-speaker', ready: 'sync', mode: 'fast', pref_top_k: 6 });
  for (const [name, env, sources] of [
    ['memmachine', 'MEMMACHINE_API_KEY', /MemMachine\/MemMachine@18f12112 evaluation\/episodic_memory\/restapiv2_locomo_ingest\.py/],
    ['memos', 'MEMOS_KEY', /MemTensor\/MemOS@be68e2fb evaluation\/scripts\/locomo\/locomo_ingestion\.py/],
  ] as const) {
    const s = systems.find((x) => x.name === name)!;
    expect(s.env.map((e) => e.name)).toContain(env);
    expect(s.start.join('\n')).toMatch(/docker compose up -d/);
    expect(s.protocol.sources.join('\n')).toMatch(sources);
    expect(s.protocol.deviations.length).toBeGreaterThanOrEqual(4);
  }
  expect(
    paper_opponents
      .filter((o) => o.system === 'memmachine' || o.system === 'memos')
      .map((o) => o.name)
      .sort(),
  ).toEqual(['MemMachine', 'MemOS']);
  const text = await rawragInProcess(['systems', 'memos'], {});
  expect(text.stdout).toMatch(/ready +\| "sync" \\| "wait"/);
});
