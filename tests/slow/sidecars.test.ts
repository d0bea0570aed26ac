/**
 * The six sidecar systems (integrations/sidecars/) through the real CLI, each against its library's
 * stand-in (tests/fixtures/sidecars/), beyond the conformance suite every memory service passes:
 * - `rawrag run locomo --system NAME -S url=... --reader gpt-4o-mini` over two conversations (conv-26
 *   and conv-30 cut to the sessions holding their first questions' evidence: 6 sessions, 120 turns;
 *   the issue's check ran `--limit 200`, the same two conversations whole, 788 turns)
 *   completes with 0 errors under its own name, and `rawrag memory purge` leaves the library and the
 *   sidecar's journal empty (`rawrag stats` pairing it with RAW-RAG under that name runs in the
 *   conformance suite, tests/e2e/memory-services.test.ts, against one shared RAW-RAG baseline);
 * - the sidecar killed (SIGKILL) mid-ingest and started again on its state folder: the resumed run
 *   completes and the library got each turn once;
 * - the sidecar killed while feeding the library: the next feed wipes what was fed and feeds again,
 *   so the library never holds a turn twice.
 * python3 must be there (CI has it): without it these tests fail, they do not skip.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { evidenceReader, locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';
import { appliedOf, liveAppliedOf, requirePython, SidecarPeer } from '../helpers/sidecar-peer.js';
import { locomoEvidenceCut } from '../helpers/locomo-cut.js';
import { getSystem } from '../../src/systems/registry.js';

const cut = await locomoEvidenceCut([
  { episode: 'conv-26', questions: 12 },
  { episode: 'conv-30', questions: 8 },
]);
const ds = cut.dataset;
/** Each sidecar system, its label, its sidecar flags, and whether the library stores one item per turn (else per pair of turns). */
const SIDECARS: Array<[string, string, string[], 'turn' | 'pair']> = [
  ['simplemem', 'SimpleMem (MiniLM substitute)', [], 'turn'],
  ['a-mem', 'A-MEM', [], 'turn'],
  ['recmem', 'RecMem', [], 'pair'],
  ['memoryos', 'MemoryOS', [], 'pair'],
  ['nemori', 'Nemori', [], 'turn'],
  ['emem', 'EMem', [], 'turn'],
];

requirePython();

describe.each(SIDECARS)('sidecar %s', (system, label, args, unit) => {
  const api = new FakeApi({ chat: evidenceReader(ds.questions) });
  const cache = tempDir('rawrag-sidecar-cache-');
  const root = tempDir('rawrag-sidecar-runs-');
  const env = loopbackEnv({ openai: 'sk-test-SIDECARS0123456789' });
  const run = (peer: SidecarPeer, out: string, limit: number, extra: string[] = []) =>
    locomoRunArgs({ system, out, peer: api, chatOnly: true, cache, limit, data: cut.file, extra: ['-S', `url=${peer.url}`, ...extra] });

  beforeAll(async () => {
    await api.start();
  });
  afterAll(async () => {
    await api.close();
  });

  it(`runs two LoCoMo conversations with 0 errors as ${label}; purge leaves the library empty`, async () => {
    const peer = await new SidecarPeer(system, args).start();
    try {
      const out = join(root, 'two-conversations');
      const r = await rawragInProcess(run(peer, out, cut.asked.length), env);
      expect(r.code, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout);
      expect(summary.errors).toBe(0);
      expect(summary.n).toBe(cut.asked.length);
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      expect(manifest.system).toBe(label);
      const episodes = [...new Set(readItems(out).map((i) => i.episode as string))];
      expect(episodes.sort()).toEqual(['conv-26', 'conv-30']);
      expect(peer.totalHeld()).toBeGreaterThan(0);
      expect(peer.appliedTwice()).toEqual([]);

      for (const ep of episodes) {
        const p = await rawragInProcess(['memory', 'purge', out, '--owner', ep], env);
        expect(p.code, p.stderr).toBe(0);
        expect(p.stdout).toMatch(/purged/);
        // The sidecar says what it removed: the library's data and its own journal.
        expect(p.stdout).toMatch(/removed: .*journal of \d+ accepted adds/);
      }
      expect(peer.totalHeld()).toBe(0);
      expect(existsSync(peer.state) ? readdirSync(join(peer.state, 'owners')) : []).toEqual([]);
    } finally {
      await peer.close();
    }
  }, 600_000);

  it('killed (SIGKILL) mid-ingest and started again on its state folder: the resumed run completes and the library got each turn once', async () => {
    const peer = await new SidecarPeer(system, args).start();
    try {
      const out = join(root, 'killed-ingest');
      // The cut's conv-26 is 4 sessions, an add each: killed at the second, each held 300 ms so that the rest are in flight.
      peer.inject({ kind: 'slow', delayMs: 300, times: Infinity, match: (q) => peer.isAdd(q) });
      await runKillingSidecar(run(peer, out, 12), env, peer, () => peer.requests.filter((q) => peer.isAdd(q)).length >= 2);
      expect(peer.calls().filter((c) => c.adds?.length)).toEqual([]);
      peer.faults.length = 0;
      await peer.launch();
      const r = await rawragInProcess(run(peer, out, 12, ['--retry-errors']), env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).errors).toBe(0);
      expect(peer.appliedTwice()).toEqual([]);
      // Every turn (or pair of turns) of the episode, once, all in one feed.
      const turns = turnsOf(out);
      if (unit === 'turn') expect(peer.applied.length).toBe(turns);
      else expect(peer.applied.length).toBeGreaterThanOrEqual(turns / 2);
      expect(liveAppliedOf(peer.calls())).toEqual(peer.applied);
    } finally {
      await peer.close();
    }
  }, 600_000);

  it('killed while feeding the library: the next feed wipes what was fed and feeds it again, each turn held once', async () => {
    const peer = new SidecarPeer(system, args, { RAWRAG_STANDIN_DELAY_MS: '1500' });
    await peer.start();
    try {
      const out = join(root, 'killed-feed');
      await runKillingSidecar(run(peer, out, 12), env, peer, () => peer.calls().some((c) => c.adds?.length));
      const fedBefore = appliedOf(peer.calls()).length;
      expect(fedBefore).toBeGreaterThan(0);
      await peer.launch({ RAWRAG_STANDIN_DELAY_MS: '0' });
      const r = await rawragInProcess(run(peer, out, 12, ['--retry-errors']), env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).errors).toBe(0);
      const calls = peer.calls();
      expect(calls.some((c) => c.reset)).toBe(true);
      expect(peer.appliedTwice()).toEqual([]);
      // What the library holds now comes from the last feed alone, whose items are all distinct.
      const live = liveAppliedOf(calls);
      expect(new Set(live).size).toBe(live.length);
      expect(peer.totalHeld()).toBeGreaterThan(0);
      expect(peer.totalHeld()).toBeLessThanOrEqual(live.length);
      expect(live.length).toBeGreaterThan(0);
    } finally {
      await peer.close();
    }
  }, 600_000);
});

it('rawrag systems lists the six sidecar systems as sidecars, and all twelve of the paper opponents with how each runs', async () => {
  const r = await rawragInProcess(['systems', '--json']);
  expect(r.code, r.stderr).toBe(0);
  const j = JSON.parse(r.stdout);
  const opponents = j.paper_opponents as Array<{ name: string; how: string; system: string | null; runnable: boolean }>;
  expect(opponents).toHaveLength(12);
  for (const [system] of SIDECARS) {
    expect(getSystem(system).about?.kind).toBe('sidecar');
    expect(opponents.find((o) => o.system === system)).toMatchObject({ how: 'sidecar', system, runnable: true });
  }
  expect(opponents.find((o) => o.name === 'Memora')).toMatchObject({ how: 'import', system: null, runnable: false });
});

/** Turns of the episode a run ingested (its owners' adds, from its ingest log). */
function turnsOf(runDir: string): number {
  return readFileSync(join(runDir, 'service-ingest.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((l) => l.type === 'add')
    .reduce((n, l) => n + (l.turns as string[]).length, 0);
}

/** Runs rawrag in a child, SIGKILLs the sidecar once `when()` holds, and waits for rawrag to give up. */
async function runKillingSidecar(
  args: string[],
  env: Record<string, string | undefined>,
  peer: SidecarPeer,
  when: () => boolean,
): Promise<void> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env } as NodeJS.ProcessEnv,
    stdio: 'ignore',
  });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const deadline = Date.now() + 120_000;
  while (!when() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(when()).toBe(true);
  await peer.kill();
  await exited;
}
