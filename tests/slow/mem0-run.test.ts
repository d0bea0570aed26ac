/**
 * `rawrag run locomo --system mem0 -S url=URL --reader gpt-4o-mini` through the real CLI
 * against a loopback Mem0 server (tests/helpers/fake-mem0.ts, speaking server/main.py's API) and a
 * loopback OpenAI-compatible reader/judge: every question answered and judged from Mem0's
 * memories, a second run sends no add, a kill -9 during ingest then the same command adds nothing
 * twice, the events land in the write-decision log, `--cleanup` and `rawrag memory purge` delete on
 * the service, `--dry-run` counts the adds. `rawrag stats` pairing Mem0 with RAW-RAG (its coverage
 * row included) runs in the conformance suite, tests/e2e/memory-services.test.ts, for every service
 * against one shared RAW-RAG baseline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { FakeMem0 } from '../helpers/fake-mem0.js';
import { runTag } from '../../src/systems/memory-service/plan.js';
import { ROOT, tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { evidenceReader, ingestLog, killMidRun, locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import { dryRun } from '../../src/pipeline/estimate.js';
import { RunConfigSchema } from '../../src/systems/registry.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });

const env = loopbackEnv({ openai: 'sk-test-MEM0RUN0123456789' }, { MEM0_API_KEY: undefined });

describe('rawrag run locomo --system mem0 against a loopback Mem0 server', () => {
  const api = new FakeApi({ chat: evidenceReader(ds.questions) });
  const server = new FakeMem0();
  const cache = tempDir('rawrag-mem0-cache-');
  const root = tempDir('rawrag-mem0-runs-');
  const out = join(root, 'mem0');
  // Mem0 keeps its own store: only the reader and judge talk to the OpenAI-compatible peer.
  const args = (dir: string, ...extra: string[]) =>
    locomoRunArgs({ system: 'mem0', out: dir, peer: api, chatOnly: true, cache, extra: ['-S', `url=${server.url}`, ...extra] });
  let first: CliResult;

  beforeAll(async () => {
    await api.start();
    await server.start();
    // The first 60 questions (all of conversation conv-26) keep the suite fast; the full 1,540 run is the same code.
    first = await rawragInProcess(args(out, '--limit', '60'), env);
  }, 600_000);
  afterAll(async () => {
    await api.close();
    await server.close();
  });

  it('answers and judges every question from the memories Mem0 returns, with coverage', () => {
    expect(first.code, first.stderr).toBe(0);
    const s = JSON.parse(first.stdout);
    expect(s.n).toBe(60);
    expect(s.errors).toBe(0);
    expect(s.overall.scored).toBe(60);
    expect(s.system).toBe('Mem0');
    // conv-26's turns, 2 per add within each session, into each speaker's store (Mem0's own protocol).
    const adds = server.adds();
    expect(adds.length).toBe(s.service.acknowledged.adds);
    const sessions = new Map<string, number>();
    for (const t of ds.episodes[0]!.turns) sessions.set(t.session, (sessions.get(t.session) ?? 0) + 1);
    expect(adds.length).toBe(2 * [...sessions.values()].reduce((n, len) => n + Math.ceil(len / 2), 0));
    expect(s.service.acknowledged).toMatchObject({ owners: 2, complete: 2, recovered: 0 });
    expect(adds.reduce((n, a) => n + a.body.messages.length, 0)).toBe(2 * ds.episodes[0]!.turns.length);
    expect(server.requests.filter((r) => r.path === '/search')).toHaveLength(120);
    // One concurrency limit per service (default 4), though 8 questions may be in flight.
    expect(server.maxInFlight).toBeLessThanOrEqual(4);
    const items = readItems(out);
    const it0 = items.find((i: any) => i.id === 'conv-26:q0');
    expect(it0.details.service.owners.map((o: any) => o.speaker)).toEqual(['Caroline', 'Melanie']);
    expect(it0.details.service.owners[0].hits.length).toBeGreaterThan(0);
    expect(it0.details.service.owners[0].hits.length).toBeLessThanOrEqual(30);
    expect(items.filter((i: any) => i.coverage?.all).length).toBeGreaterThan(0);
    expect(items.filter((i: any) => i.score === 1).length).toBeGreaterThan(0);
    // The LoCoMo reader prompt shows Mem0's memories in place of the history (RAW-RAG's requests go to the same server).
    const reader = api.requests.find(
      (r) =>
        JSON.stringify(r.body?.messages ?? '').includes(it0.question) &&
        JSON.stringify(r.body?.messages ?? '').includes('recalled by Mem0'),
    );
    expect(reader!.body.messages[1].content).toContain(
      "# Context: \nMemories of Caroline recalled by Mem0 (from Caroline's own store; most relevant first; each dated by the conversation it came from):\n- [",
    );
    expect(reader!.body.messages[1].content).toContain('\nMemories of Melanie recalled by Mem0');
    // Mem0's events, as the write-decision log.
    const decisions = readFileSync(join(out, 'write-decisions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // A 2.x server (what the OSS server installs) is add-only: its events are ADDs, marked as returned events.
    expect(new Set(decisions.map((d) => d.operation))).toEqual(new Set(['ADD']));
    expect(decisions.every((d) => d.layer === 'event')).toBe(true);
    expect(decisions.length).toBe(Object.values(s.service.acknowledged.events as Record<string, number>).reduce((a, b) => a + b, 0));
  });

  it('a second run sends no add: the finished directory resumed, and a fresh directory only searches a store of its own', async () => {
    const before = server.adds().length;
    const resumed = await rawragInProcess(
      args(out, '--limit', '60').filter((a) => a !== '--json'),
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.adds().length).toBe(before);
    expect(resumed.stdout).toMatch(/Mem0 at http:\/\/127\.0\.0\.1:\d+: \d+ adds acknowledged for 2 owners \(2 complete\); events ADD \d+/);
  }, 600_000);

  it('kill -9 during ingest, then the same command: no add is done twice', async () => {
    const dir = join(root, 'killed');
    server.inject({ kind: 'slow', delayMs: 40, times: Infinity, match: (r) => r.path === '/memories' && r.method === 'POST' });
    const cmd = [...args(dir, '--limit', '20', '-S', 'concurrency=2')];
    expect(await killMidRun(cmd, env, () => ingestLog(dir).filter((l) => l.type === 'add').length >= 30, 20)).toBe('SIGKILL');
    const acknowledged = ingestLog(dir).filter((l) => l.type === 'add').length;
    expect(acknowledged).toBeGreaterThanOrEqual(30);
    server.faults = [];
    const resumed = await rawragInProcess(cmd, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const owners = new Set(ingestLog(dir).map((l) => l.owner));
    // Every add the service did for this run's owner, exactly once, and each one acknowledged in the log.
    const keysOfRun = ingestLog(dir)
      .filter((l) => l.type === 'add')
      .map((l) => `${l.owner} ${l.key}`);
    expect(new Set(keysOfRun).size).toBe(keysOfRun.length);
    const performedForRun = server.performedBy.filter((k) => owners.has(k.split(' ')[0]!));
    expect(new Set(performedForRun).size).toBe(performedForRun.length);
    expect([...performedForRun].sort()).toEqual([...keysOfRun].sort());
    expect(JSON.parse(resumed.stdout).errors).toBe(0);
  }, 600_000);

  it("--cleanup deletes the run's memories on the service at its end; memory show / purge read and delete", async () => {
    const dir = join(root, 'clean');
    const r = await rawragInProcess([...args(dir, '--limit', '20'), '--cleanup'], env);
    expect(r.code, r.stderr).toBe(0);
    // Owners are named after the run directory (its folder name and a hash of its path), the episode and the speaker.
    const cleanOwner = `rawrag-${runTag(dir)}-conv-26~caroline`;
    const runOwners = ['caroline', 'melanie'].map((s) => `rawrag-${runTag(out)}-conv-26~${s}`);
    expect(cleanOwner).toMatch(/^rawrag-clean-[0-9a-f]{8}-conv-26~caroline$/);
    expect(r.stderr).toContain(`cleanup: purged ${cleanOwner} (episode conv-26) on http://127.0.0.1:`);
    expect(server.ownerMemories(cleanOwner)).toHaveLength(0);
    for (const o of runOwners) expect(server.ownerMemories(o).length).toBeGreaterThan(0);
    const purged = await rawragInProcess(['memory', 'purge', out, '--owner', 'conv-26'], env);
    expect(purged.code, purged.stderr).toBe(0);
    for (const o of runOwners) expect(purged.stdout).toContain(`purged ${o} (episode conv-26)`);
    expect(purged.stdout.match(/verified, 0 memories left/g)).toHaveLength(2);
    for (const o of runOwners) expect(server.ownerMemories(o)).toHaveLength(0);
  }, 600_000);

  it('--dry-run says how many add calls and messages it would send, and sends nothing', async () => {
    const n = server.requests.length;
    const cfg = RunConfigSchema.parse({ benchmark: 'locomo', system: 'mem0', mem0: { url: server.url }, reader: { model: 'gpt-4o-mini' } });
    const text = await dryRun(cfg, { env: { OPENAI_API_KEY: 'sk-x' } as NodeJS.ProcessEnv, noCache: true });
    let calls = 0;
    for (const e of ds.episodes) {
      const sessions = new Map<string, number>();
      for (const t of e.turns) sessions.set(t.session, (sessions.get(t.session) ?? 0) + 1);
      calls += [...sessions.values()].reduce((n, len) => n + Math.ceil(len / 2), 0);
    }
    expect(calls).toBe(3011);
    expect(text).toMatch(
      /Mem0 ingest: 6022 add calls carrying 11764 messages for 20 owners \(per-speaker, batch 2\), then 3080 searches \(top 30 each\)/,
    );
    expect(server.requests.length).toBe(n);
  });
});
