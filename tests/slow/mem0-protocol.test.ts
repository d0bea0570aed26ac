/**
 * Issue 33's "done when", through the real CLI against loopback Mem0 peers (tests/helpers/fake-mem0.ts)
 * and a loopback reader / judge:
 * - a 2.x server: `rawrag run locomo --system mem0 -S url=URL --reader gpt-4o-mini --limit 200` adds
 *   each message to two owners per conversation and searches both with top_k 30; `rawrag memory
 *   audit` of the run, and its summary, say the service is add-only;
 * - a 0.1.x server on a hand-made conversation: the audit's three layers reproduce the table
 *   computed by hand (tests/fixtures/mem0/SOURCE.md), with Mem0's logged proposals given by --proposals;
 * - the platform: `rawrag memory purge` right after a run succeeds (the delete is queued);
 * - the four public EverMemOS-format files (excerpts) import with their judge and answer models and
 *   pair, in `rawrag stats`, with a RAW-RAG run read by the same model.
 * (A run whose searches all return nothing warns: the conformance suite, tests/e2e/memory-services.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { FakeMem0 } from '../helpers/fake-mem0.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { evidenceReader, locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const FIX = join(ROOT, 'tests/fixtures/mem0');
const env = loopbackEnv({ openai: 'sk-test-MEM0PROTO0123456789' }, { MEM0_API_KEY: undefined });

describe('Mem0 as Mem0 runs it, through the CLI', () => {
  const api = new FakeApi({ chat: evidenceReader(ds.questions) });
  const cache = tempDir('rawrag-m0p-cache-');
  const root = tempDir('rawrag-m0p-');
  const run = (peer: { url: string }, out: string, extra: string[], o: { limit?: number; json?: boolean } = {}) =>
    locomoRunArgs({
      system: 'mem0',
      out,
      peer: api,
      chatOnly: true,
      cache,
      limit: o.limit,
      json: o.json,
      extra: ['-S', `url=${peer.url}`, ...extra],
    });

  beforeAll(async () => {
    await api.start();
  });
  afterAll(async () => {
    await api.close();
  });

  it('a 2.x server, --limit 200: two owners per conversation, every message in both, both searched with top_k 30; the audit and the summary say add-only', async () => {
    const peer = await new FakeMem0().start();
    try {
      const out = join(root, 'v2');
      const r = await rawragInProcess(run(peer, out, [], { limit: 200 }), env);
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s).toMatchObject({ n: 200, errors: 0 });
      const episodes = [...new Set(readItems(out).map((i) => i.episode as string))].sort();
      expect(episodes).toEqual(['conv-26', 'conv-30']);
      const adds = peer.adds();
      for (const e of episodes) {
        const turns = ds.episodes.find((x) => x.id === e)!.turns.length;
        const owners = [...new Set(adds.map((a) => a.body.user_id as string).filter((o) => o.includes(`-${e}~`)))];
        expect(owners).toHaveLength(2);
        for (const o of owners)
          expect(adds.filter((a) => a.body.user_id === o).reduce((n, a) => n + a.body.messages.length, 0)).toBe(turns);
      }
      const searches = peer.requests.filter((q) => q.path === '/search');
      expect(searches).toHaveLength(400);
      expect(searches.every((q) => q.body.top_k === 30)).toBe(true);
      for (const item of readItems(out)) expect(item.details.service.owners).toHaveLength(2);

      const audit = await rawragInProcess(['memory', 'audit', out], env);
      expect(audit.code, audit.stderr).toBe(0);
      const n = s.service.acknowledged.adds;
      expect(audit.stdout).toContain(
        `ADD-ONLY: Mem0 returned only ADD events in ${n} adds: it behaves as an add-only service (its version could not be read), so its UPDATE+DELETE share is 0 % by construction, not a measurement.`,
      );
      expect(audit.stdout).toMatch(
        /NOTE: Mem0's open-source server does not report its mem0ai version.*mem0ai < 2\.0 and its proposal log.*--system agentic-memory/,
      );
      expect(audit.stdout).toContain("1. Proposals — none for this run: Mem0 returned events, not its LLM's proposals.");
      expect(audit.stdout).toMatch(/NONE: not returned by this service/);
      const [a] = JSON.parse((await rawragInProcess(['memory', 'audit', out, '--json'], env)).stdout).audits;
      expect(a).toMatchObject({
        layer: 'events',
        add_only: { declared: false },
        layers: { proposals: null, events: { has_none: false, mutations: 0 } },
      });
      // The summary of the same command again (nothing added) says it too.
      const again = await rawragInProcess(run(peer, out, [], { limit: 200, json: false }), env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout + again.stderr).toContain(`ADD-ONLY: Mem0 returned only ADD events in ${n} adds`);
      expect(peer.adds()).toHaveLength(adds.length);
    } finally {
      await peer.close();
    }
  }, 900_000);

  it("a 0.1.x server: the audit's three layers reproduce the hand-computed table (proposals from Mem0's log, events without NONE, effective changes)", async () => {
    const peer = await new FakeMem0({ flavour: '0.1.x' }).start();
    try {
      const out = join(root, 'v01');
      const r = await rawragInProcess(run(peer, out, ['--data', join(FIX, 'audit-conversation.json'), '-S', 'owners=per-episode']), env);
      expect(r.code, r.stderr).toBe(0);
      // Mem0 < 2.0 logs each proposal of its LLM (NONE too): that log, in the decision-log format, is layer 1.
      const proposals = join(root, 'mem0-proposals.jsonl');
      writeFileSync(
        proposals,
        peer.proposals
          .map((p) =>
            JSON.stringify({
              episode: 'conv-t',
              operation: p.event,
              memory_id: p.id,
              old_text: p.old_memory,
              new_text: p.event === 'ADD' || p.event === 'UPDATE' ? p.text : null,
              batch: p.add,
              layer: 'proposal',
            }),
          )
          .join('\n') + '\n',
      );
      const j = await rawragInProcess(['memory', 'audit', out, '--proposals', proposals, '--json'], env);
      expect(j.code, j.stderr).toBe(0);
      const [a] = JSON.parse(j.stdout).audits;
      // By hand (tests/fixtures/mem0/SOURCE.md): 14 proposals — ADD 5, UPDATE 3, DELETE 1, NONE 5; the third UPDATE repeats the first.
      expect(a.layer).toBe('proposals');
      expect(a.layers.proposals).toMatchObject({
        decisions: 14,
        operations: { ADD: 5, UPDATE: 3, DELETE: 1, NONE: 5 },
        proposed_mutations: 4,
      });
      expect(a.layers.proposals.proposed_mutation_rate).toBeCloseTo(4 / 14, 10);
      expect(a.layers.proposals.effective_mutation_rate).toBeCloseTo(3 / 14, 10);
      // 9 events returned (no NONE): ADD 5, UPDATE 3, DELETE 1.
      expect(a.layers.events).toMatchObject({
        events: 9,
        operations: { ADD: 5, UPDATE: 3, DELETE: 1, NONE: 0 },
        has_none: false,
        mutations: 4,
      });
      expect(a.layers.events.mutation_rate).toBeCloseTo(4 / 9, 10);
      // 8 changes to the store: 5 new, 2 effective UPDATE, 1 DELETE; one UPDATE repeated.
      expect(a.layers.effective).toMatchObject({ from: 'events', changes: 8, added: 5, updated: 2, deleted: 1 });
      expect(a.layers.effective.mutation_rate).toBeCloseTo(3 / 8, 10);
      expect(a.layers.effective.of_source).toBeCloseTo(3 / 9, 10);
      expect(a.layers.effective.not_effective).toEqual({ repeated: 1, malformed: 0, 'no-op': 0, 'not carried out': 0 });
      expect(a.add_only).toBeNull();
      const text = (await rawragInProcess(['memory', 'audit', out, '--proposals', proposals], env)).stdout;
      expect(text).toMatch(/\| Mem0 +\| +14 \| +35\.71 \| +21\.43 \| +7\.14 \| +35\.71 \| +28\.57 \| +21\.43 \|/);
      expect(text).toMatch(/\| Mem0 +\| +9 \| +55\.56 \| +33\.33 \| +11\.11 \| +— +\| +44\.44 \|/);
      expect(text).toMatch(/\| Mem0 +\| +8 \| +62\.50 \| +25\.00 \| +12\.50 \| +37\.50 \| +33\.33 \|/);
      expect(text).toContain('UPDATE / DELETE that changed nothing: 1 repeated, 0 malformed, 0 no-op, 0 not carried out as proposed');
    } finally {
      await peer.close();
    }
  }, 600_000);

  it('the platform: rawrag memory purge right after a run succeeds, waiting for the queued delete', async () => {
    const key = 'm0-platform-key-PURGE0123';
    const peer = await new FakeMem0({ apiKey: key, deleteListings: 2 }).start();
    try {
      const out = join(root, 'platform');
      const penv = { ...env, MEM0_API_KEY: key };
      const r = await rawragInProcess(run(peer, out, ['-S', 'api=platform'], { limit: 12 }), penv);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).errors).toBe(0);
      expect(peer.totalHeld()).toBeGreaterThan(0);
      const before = peer.requests.length;
      const p = await rawragInProcess(['memory', 'purge', out, '--owner', 'conv-26'], penv);
      // Each delete was queued: its owner was listed again (still holding its memories twice) until empty.
      expect(peer.requests.slice(before).filter((q) => q.path === '/v3/memories/').length).toBeGreaterThanOrEqual(6);
      expect(p.code, p.stderr).toBe(0);
      expect(p.stdout.match(/verified, 0 memories left/g)).toHaveLength(2);
      expect(peer.requests.filter((q) => q.method === 'DELETE')).toHaveLength(2);
      expect(peer.totalHeld()).toBe(0);
    } finally {
      await peer.close();
    }
  }, 600_000);

  it('the four public EverMemOS-format files import with their judge and answer models, and pair with RAW-RAG read by the same model', async () => {
    const models = ['gpt-4.1-mini-cot', 'gpt-4.1-mini-memos', 'gpt-4o-mini-cot', 'gpt-4o-mini-memos'];
    const dirs: string[] = [];
    for (const m of models) {
      const dir = join(root, `ever-${m}`);
      const r = await rawragInProcess(
        [
          'import',
          'evermemos',
          join(FIX, `evermemos-${m}.excerpt.json`),
          '--benchmark',
          'locomo',
          '--system',
          `full-context-${m.replace(/^gpt-[\d.o]+-mini-/, '')}`,
          '--out',
          dir,
        ],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const reader = m.replace(/-(cot|memos)$/, '');
      expect(r.stdout).toContain(`setting: locomo/${reader} (answers by ${reader}, judged by gpt-4o-mini)`);
      expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))).toMatchObject({
        setting: `locomo/${reader}`,
        judge: 'gpt-4o-mini',
        reader,
      });
      dirs.push(dir);
    }
    const raw = join(root, 'raw-rag');
    const rr = await rawragInProcess(locomoRunArgs({ out: raw, peer: api, chatOnly: true, cache, limit: 20 }), env);
    expect(rr.code, rr.stderr).toBe(0);
    const st = await rawragInProcess(['stats', raw, ...dirs, '--out', join(root, 'stats')], env);
    expect(st.code, st.stderr).toBe(0);
    // One family per setting and judge: the gpt-4o-mini imports beside RAW-RAG read by gpt-4o-mini, paired question by question; the gpt-4.1-mini ones apart.
    const [, v41, v4o] = st.stdout.split(/^## /m);
    expect(v41).toMatch(/^locomo — locomo\/gpt-4\.1-mini — judge gpt-4o-mini/);
    expect(v41).not.toContain('RAW-RAG');
    expect(v4o).toMatch(/^locomo — locomo\/gpt-4o-mini — judge gpt-4o-mini/);
    expect(v4o).toMatch(/\| full-context-cot +\| RAW-RAG\/local +\| +20 \| +0 \|/);
    expect(v4o).toMatch(/\| full-context-memos +\| RAW-RAG\/local +\| +20 \| +0 \|/);
    expect(readFileSync(join(root, 'stats', 'stats.json'), 'utf8')).toContain('locomo/gpt-4o-mini');
  }, 600_000);
});
