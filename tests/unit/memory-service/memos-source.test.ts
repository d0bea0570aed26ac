/**
 * The MemOS system against a loopback MemOS server (tests/helpers/fake-memos.ts, written from
 * MemOS@be68e2fb's server API): the vendor's ingest protocol on the wire (one owner per speaker,
 * mirrored roles, "Speaker: text", chat_time, 2 messages per call), its search (both owners, top_k
 * 20, mode fast, preferences) and the options that change it, the evidence (memories, then the
 * pref_string), and readiness: synchronous adds by default; with -S ready=wait the asynchronous adds
 * and /product/scheduler/wait, which blocks searches until the background extraction has landed
 * when the server tracks its tasks (Redis), and does not when it cannot (no Redis) — why sync is the default.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeMemos, type FakeMemosOptions } from '../../helpers/fake-memos.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { memos } from '../../../src/systems/memos/index.js';
import { chatTimeOf, contentOf, conversationIdOf } from '../../../src/systems/memos/wire.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { ingest } from '../../../src/retrieval/chunk.js';
import type { IngestedEpisode } from '../../../src/core/ingested-episode.js';
import { DEFAULT_POLICY } from '../../../src/core/policy.js';
import { baseItem } from '../../../src/core/item.js';
import { getBenchmark } from '../../../src/benchmarks/registry.js';
import type { Episode, Question } from '../../../src/core/schema.js';
import type { SourceContext } from '../../../src/core/evidence-source.js';
import { planEpisode, runTag } from '../../../src/systems/memory-service/plan.js';

function episode(id = 'conv-x'): Episode {
  const s = (n: number, date: string, a: string, b: string, c: string) => [
    { id: `D${n}:1`, session: `session_${n}`, date, speaker: 'Caroline', text: a, captions: [] },
    { id: `D${n}:2`, session: `session_${n}`, date, speaker: 'Melanie', text: b, captions: ['a photo of a lake'] },
    { id: `D${n}:3`, session: `session_${n}`, date, speaker: 'Caroline', text: c, captions: [] },
  ];
  return {
    id,
    meta: { speakers: ['Caroline', 'Melanie'] },
    turns: [
      ...s(1, '1:56 pm on 8 May, 2023', 'I adopted a dog named Rex last week', 'Rex sounds lovely', 'I love long walks with Rex'),
      ...s(2, '9:10 am on 22 May, 2023', 'I moved to Berlin for my new job', 'Berlin is cold in winter', 'I will buy a warm coat'),
    ],
  };
}

const ep = (e = episode()): IngestedEpisode =>
  ingest(
    e,
    e.turns.length,
    { ...DEFAULT_POLICY, chunking: 'turn', serialisation: 'plain' },
    { tokenizer: 'cl100k_base', size: 256, stride: 224 },
  );

const question = (text: string, evidence: string[]): Question => ({
  id: `conv-x:q${text.length}`,
  episode: 'conv-x',
  type: 'single-hop',
  typeId: 1,
  text,
  gold: 'x',
  acceptable: ['x'],
  questionDate: null,
  evidence,
  options: null,
  visibleTurns: null,
});

let server: FakeMemos;
let runDir: string;
const start = async (o: FakeMemosOptions = {}) => (server = await new FakeMemos(o).start());
beforeEach(() => {
  runDir = mkdtempSync(join(tmpdir(), 'rawrag-memos-'));
});
afterEach(async () => server?.close());

const config = (extra: Record<string, unknown> = {}) =>
  RunConfigSchema.parse({ benchmark: 'locomo', system: 'memos', memos: { url: server.url, ...extra } });
const session = (timeoutMs = 3000) =>
  new ProviderSession({
    noCache: true,
    timeoutMs,
    retry: { maxRetries: 3, baseDelayMs: 2, maxDelayMs: 20 },
    env: { MEMOS_KEY: 'memos-secret-7' },
  });
const ctx = (cfg: ReturnType<typeof config>): SourceContext => ({ cfg, benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY });
const ownerOf = (speaker: string) => `rawrag-${runTag(runDir)}-conv-x~${speaker}`;

describe('wire formats', () => {
  it('"Speaker: text" without the caption; a chat history keeps its text (cut at 8,000); the session date as ISO UTC', () => {
    const call = planEpisode(ep(), 'run', { owners: 'per-speaker', batch: 2 }).owners[1]!.calls[0]!;
    expect(call.owner).toBe('rawrag-run-conv-x~melanie');
    expect(contentOf(call.messages[1]!)).toBe('Melanie: Rex sounds lovely');
    expect(contentOf({ ...call.messages[0]!, speaker: 'user', text: 'x'.repeat(9000) })).toHaveLength(8000);
    expect(chatTimeOf(call)).toBe('2023-05-08T13:56:00+00:00');
    expect(chatTimeOf({ ...call, timestamp: null, date: 'sometime in spring' })).toBe('sometime in spring');
    expect(conversationIdOf(call)).toBe('conv-x_session_1');
  });
});

describe('memos', () => {
  it('ingests each conversation once per speaker with mirrored roles, synchronously, and searches both stores as locomo_search.py does', async () => {
    await start();
    const cfg = config();
    const source = await memos.create(cfg, session(), { runDir });
    const opened = await source.open(ep(), ctx(cfg));
    const adds = server.adds();
    // 2 owners x (2 sessions x calls of 2 and 1).
    expect(adds).toHaveLength(8);
    const caroline = adds.filter((a) => a.body.user_id === ownerOf('caroline'));
    expect(caroline.map((a) => a.body.messages.length)).toEqual([2, 1, 2, 1]);
    expect(caroline[0]!.body).toEqual({
      messages: [
        { role: 'user', content: 'Caroline: I adopted a dog named Rex last week', chat_time: '2023-05-08T13:56:00+00:00' },
        { role: 'assistant', content: 'Melanie: Rex sounds lovely', chat_time: '2023-05-08T13:56:00+00:00' },
      ],
      user_id: ownerOf('caroline'),
      mem_cube_id: ownerOf('caroline'),
      conversation_id: 'conv-x_session_1',
      async_mode: 'sync',
      info: { rawrag_add: 'conv-x~caroline#0', turn_ids: ['D1:1', 'D1:2'], session: 'session_1', date: '1:56 pm on 8 May, 2023' },
    });
    const melanie = adds.find((a) => a.body.user_id === ownerOf('melanie'))!;
    expect(melanie.body.messages.map((m: { role: string }) => m.role)).toEqual(['assistant', 'user']);
    // The vendor client's bare Authorization header.
    expect(adds[0]!.headers.authorization).toBe('memos-secret-7');

    const q = question('What does Caroline love doing with Rex?', ['D1:3']);
    const item = baseItem(q, 'locomo');
    const evidence = await opened.evidenceFor(q, item, ctx(cfg));
    const searches = server.requests.filter((r) => r.path === '/product/search');
    expect(searches.map((s) => s.body.user_id).sort()).toEqual([ownerOf('caroline'), ownerOf('melanie')]);
    for (const s of searches)
      expect(s.body).toEqual({
        query: q.text,
        user_id: s.body.user_id,
        mem_cube_id: s.body.user_id,
        conversation_id: '',
        top_k: 20,
        mode: 'fast',
        include_preference: true,
        pref_top_k: 6,
      });
    expect(evidence.blocks).toHaveLength(2);
    const mine = evidence.blocks.find((b) => b.text.startsWith('Memories of Caroline'))!.text;
    expect(mine).toContain('- [1:56 pm on 8 May, 2023] Caroline: I love long walks with Rex');
    // The preference note follows the memories, as the vendor's script appends it.
    expect(mine).toMatch(
      /\nExplicit Preference:\n1\. Caroline: I love long walks with Rex\nWhen answering, follow the preferences above\.$/,
    );
    expect(item.evidence_turns).toContain('D1:3');
    expect(item.coverage).toEqual({ all: true, any: true });
    expect(server.requests.some((r) => r.path === '/product/scheduler/wait')).toBe(false);
    expect(server.searchesBeforeReady).toBe(0);
    expect(source.report!().service).toMatchObject({
      owners: 'per-speaker',
      top_k: 20,
      batch: 2,
      acknowledged: { adds: 8, owners: 2, complete: 2 },
    });
  });

  it('options reach the wire: -S mode=fine -S include_preference=false -S pref_top_k=2 -S top_k=5', async () => {
    await start();
    const cfg = config({ mode: 'fine', include_preference: false, pref_top_k: 2, top_k: 5 });
    const opened = await (await memos.create(cfg, session(), { runDir })).open(ep(), ctx(cfg));
    const q = question('What does Caroline love?', ['D1:3']);
    const evidence = await opened.evidenceFor(q, baseItem(q, 'locomo'), ctx(cfg));
    const s = server.requests.find((r) => r.path === '/product/search')!;
    expect(s.body).toMatchObject({ top_k: 5, mode: 'fine', include_preference: false, pref_top_k: 2 });
    expect(evidence.blocks.map((b) => b.text).join('\n')).not.toContain('Explicit Preference');
  });

  it('-S ready=wait: asynchronous adds as the vendor sends them, then the scheduler wait per owner holds every search until the extraction has landed', async () => {
    await start({ redis: true, readDelayMs: 300 });
    // A request timeout of 400 ms: each wait asks for 0.2 s and answers "timeout" until the tasks are done.
    const cfg = config({ ready: 'wait' });
    const source = await memos.create(cfg, session(400), { runDir });
    const opened = await source.open(ep(), ctx(cfg));
    const adds = server.adds();
    expect(adds.every((a) => !('async_mode' in a.body))).toBe(true);
    const waits = server.requests.map((r, i) => [r, i] as const).filter(([r]) => r.path === '/product/scheduler/wait');
    for (const o of [ownerOf('caroline'), ownerOf('melanie')]) {
      const mine = waits.filter(([w]) => w.query.user_name === o);
      expect(mine.length).toBeGreaterThanOrEqual(2);
      expect(Number(mine[0]![0].query.timeout_seconds)).toBeLessThanOrEqual(0.2);
      const lastAdd = server.requests.reduce((last, r, j) => (server.isAdd(r) && r.body.user_id === o ? j : last), -1);
      expect(mine[0]![1]).toBeGreaterThan(lastAdd);
      expect(server.pending(o)).toHaveLength(0);
    }
    const q = question('Where did Caroline move for her new job?', ['D2:1']);
    const item = baseItem(q, 'locomo');
    const evidence = await opened.evidenceFor(q, item, ctx(cfg));
    expect(server.searchesBeforeReady).toBe(0);
    // The extracted memories, one per message: not the raw "fast" memory of a whole call.
    expect(evidence.blocks[0]!.text).toContain('Caroline: I moved to Berlin for my new job');
    expect(server.cubeMemories(ownerOf('caroline')).some((m) => m.metadata.tags.includes('mode:fast'))).toBe(false);
    // Coverage from rawrag's metadata on the extracted memories (the add replies named raw memories, now gone).
    expect(item.evidence_turns).toContain('D2:1');
    expect(source.report!().service).toMatchObject({ acknowledged: { events: { ADD: 0 } } });
  });

  it('-S ready=wait without Redis: the server says idle at once, so searches can run before the extraction — the note says so, and why sync is the default', async () => {
    await start({ redis: false, readDelayMs: 400 });
    const cfg = config({ ready: 'wait' });
    const source = await memos.create(cfg, session(), { runDir });
    const opened = await source.open(ep(), ctx(cfg));
    expect(source.notes.join('\n')).toMatch(
      /Redis-backed \(MEMSCHEDULER_USE_REDIS_QUEUE=true\); without Redis the server answers 'idle' at once/,
    );
    const q = question('Where did Caroline move?', ['D2:1']);
    await opened.evidenceFor(q, baseItem(q, 'locomo'), ctx(cfg));
    expect(server.requests.filter((r) => r.path === '/product/scheduler/wait').length).toBe(2);
    expect(server.searchesBeforeReady).toBeGreaterThan(0);
  });

  it('-S ready=wait gives up after readyTimeout, naming the owner and what it saw', async () => {
    await start({ redis: true, readDelayMs: 10_000 });
    const cfg = config({ ready: 'wait', readyTimeout: 0.5 });
    const source = await memos.create(cfg, session(400), { runDir });
    await expect(source.open(ep(), ctx(cfg))).rejects.toThrow(
      /MemOS scheduler for 'rawrag-.*~(caroline|melanie)': still busy \(\d+ tasks running\)/,
    );
  });

  it("a delete by user answered 'failure' (as MemOS's server answers after deleting) is checked by listing and finished by ids; a failed delete by ids is an error", async () => {
    await start();
    const cfg = config();
    const source = await memos.create(cfg, session(), { runDir });
    await source.open(ep(), ctx(cfg));
    expect(server.cubeMemories(ownerOf('caroline')).length).toBeGreaterThan(0);
    const out = await memos.store!.purge(runDir, 'conv-x', { config: cfg });
    expect(out).toMatch(/purged .*~caroline \(episode conv-x\) on .*: verified, 0 memories left/);
    expect(server.totalHeld()).toBe(0);
    // The stand-in deletes by user and answers failure, as the real server does: nothing was left, no delete by ids.
    const deletes = server.requests.filter((r) => r.path === '/product/delete_memory');
    expect(deletes.map((r) => Object.keys(r.body).sort().join(','))).toEqual(['user_id,writable_cube_ids', 'user_id,writable_cube_ids']);
    // A failure that deleted nothing: what is left is deleted by its ids.
    await (await memos.create(cfg, session(), { runDir })).open(ep(), ctx(cfg));
    const fail = JSON.stringify({ code: 200, message: 'Failed to delete memories', data: { status: 'failure' } });
    server.inject({ kind: 'status', status: 200, body: fail, match: (r) => r.path === '/product/delete_memory' && 'user_id' in r.body });
    const before = server.requests.length;
    await memos.store!.purge(runDir, 'conv-x', { config: cfg });
    expect(server.totalHeld()).toBe(0);
    expect(server.requests.slice(before).some((r) => r.path === '/product/delete_memory' && Array.isArray(r.body.memory_ids))).toBe(true);
    // A delete by ids that fails too is an error.
    await (await memos.create(cfg, session(), { runDir })).open(ep(), ctx(cfg));
    server.inject({ kind: 'status', status: 200, body: fail, times: 4, match: (r) => r.path === '/product/delete_memory' });
    await expect(memos.store!.purge(runDir, 'conv-x', { config: cfg })).rejects.toThrow(/by id "failure" \(expected "success"\)/);
  });
});

describe('the loopback server validates requests as the upstream pydantic models do', () => {
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('422 for a missing or mistyped field; fields the model does not have (conversation_id) ignored', async () => {
    await start();
    const bad = await post('/product/search', { query: 'x' });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { message: string }).message).toMatch(
      /Parameter validation error on POST \/product\/search: \[body -> user_id\]/,
    );
    expect((await post('/product/search', { query: 'x', user_id: 'u', top_k: 0 })).status).toBe(422);
    expect((await post('/product/add', { user_id: 'u', messages: [{ role: 'bot', content: 'x' }] })).status).toBe(422);
    expect((await post('/product/add', { user_id: 'u', messages: [{ role: 'user' }] })).status).toBe(422);
    expect((await post('/product/add', { user_id: 'u', async_mode: 'later', messages: [] })).status).toBe(422);
    const ok = await post('/product/add', {
      user_id: 'u',
      mem_cube_id: 'u',
      conversation_id: 'c1',
      async_mode: 'sync',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { message: string }).message).toBe('Memory added successfully');
    expect((await post('/product/get_memory', { user_id: 'u' })).status).toBe(422);
    expect((await post('/product/delete_memory', { session_id: 'a', conversation_id: 'b' })).status).toBe(422);
    expect((await fetch(`${server.url}/product/scheduler/wait`, { method: 'POST' })).status).toBe(422);
  });
});
