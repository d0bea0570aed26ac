/**
 * Issue 37's "done when" for MemMachine and MemOS, through the real CLI: `rawrag run locomo --system
 * NAME -S url=http://127.0.0.1:PORT --reader gpt-4o-mini --limit 200` against the system's loopback
 * server (tests/helpers/fake-memmachine.ts, fake-memos.ts) and a loopback reader/judge completes with
 * 0 errors and the vendor protocol on the server's side over several conversations (the fixture's
 * checkProtocol: owners, roles, timestamps, batch sizes, waits, search depth), with coverage; a
 * rejudge checks its options against the run's; `rawrag memory purge` leaves the service empty for
 * the run's owners, verified. The generic scenarios (a second run sends no add, `rawrag stats`
 * against RAW-RAG, the store oracle, kill -9 then resume) run for every service in the conformance
 * suite, tests/e2e/memory-services.test.ts, against one shared RAW-RAG baseline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { evidenceReader, ingestLog, locomoRunArgs, loopbackEnv, readItems, systemsJson } from '../helpers/loopback-run.js';
import { SERVICE_FIXTURES, type ServicePeer } from '../helpers/service-fixtures.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

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

  it("rawrag memory purge leaves the service empty for the run's owners", async () => {
    const episodes = [...new Set(ingestLog(out).flatMap((l) => (l.episode ? [l.episode as string] : [])))];
    for (const ep of episodes) {
      const p = await rawragInProcess(['memory', 'purge', out, '--owner', ep], env);
      expect(p.code, p.stderr).toBe(0);
      expect(p.stdout).toMatch(/verified, 0 memories left/);
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
