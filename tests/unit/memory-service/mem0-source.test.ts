/**
 * The Mem0 system against a loopback Mem0 service speaking its REST APIs (tests/helpers/fake-mem0.ts):
 * adds in order with turn ids and dates in metadata, search results mapped back to turns for
 * coverage, events recorded as write decisions, resume without re-adding, faults (429, 500,
 * timeouts, a connection dropped after the add was done), the platform's event polling and
 * auth header, purge verified on the service.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeMem0 } from '../../helpers/fake-mem0.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { mem0 } from '../../../src/systems/mem0/index.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { ingest } from '../../../src/retrieval/chunk.js';
import type { IngestedEpisode } from '../../../src/core/ingested-episode.js';
import { DEFAULT_POLICY } from '../../../src/core/policy.js';
import { baseItem } from '../../../src/core/item.js';
import { getBenchmark } from '../../../src/benchmarks/registry.js';
import type { Episode, Question } from '../../../src/core/schema.js';
import type { SourceContext } from '../../../src/core/evidence-source.js';
import { INGEST_LOG_FILE } from '../../../src/systems/memory-service/ingest-log.js';
import { ownerOf, planEpisode, runTag, spacedTimestamps, unixSeconds } from '../../../src/systems/memory-service/plan.js';
import { ROOT } from '../../helpers/cli.js';

const planAdds = (e: IngestedEpisode, batch: 'session' | number) =>
  planEpisode(e, 'run', { owners: 'per-episode', batch }).owners[0]!.calls;

function episode(id = 'conv-x'): Episode {
  const s = (n: number, date: string, a: string, b: string) => [
    { id: `D${n}:1`, session: String(n), date, speaker: 'Caroline', text: a, captions: [] },
    { id: `D${n}:2`, session: String(n), date, speaker: 'Melanie', text: b, captions: ['a photo of a lake'] },
  ];
  return {
    id,
    meta: { speakers: ['Caroline', 'Melanie'] },
    turns: [
      ...s(1, '1:56 pm on 8 May, 2023', 'I adopted a dog named Rex last week', 'Rex sounds lovely'),
      ...s(2, '2:00 pm on 15 May, 2023', 'I live in Paris near the river', 'Paris suits you'),
      ...s(3, '9:10 am on 22 May, 2023', 'I live in Berlin since my new job', 'Berlin is cold'),
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

let server: FakeMem0;
let runDir: string;
beforeEach(async () => {
  // mem0ai < 2.0: ADD / UPDATE / DELETE events, NONE only logged, an UPDATE takes the updating add's metadata.
  server = await new FakeMem0({ flavour: '0.1.x' }).start();
  runDir = mkdtempSync(join(tmpdir(), 'rawrag-mem0-'));
});
afterEach(async () => server.close());

/** The shared machinery's tests: one owner per episode, 10 memories (Mem0's own protocol is tested on its own below). */
function config(extra: Record<string, unknown> = {}) {
  return RunConfigSchema.parse({
    benchmark: 'locomo',
    system: 'mem0',
    mem0: { url: server.url, owners: 'per-episode', top_k: 10, ...extra },
  });
}

const session = (env: Record<string, string> = {}) =>
  new ProviderSession({ noCache: true, timeoutMs: 300, retry: { maxRetries: 3, baseDelayMs: 2, maxDelayMs: 20 }, env: { ...env } });

const ctx = (cfg: ReturnType<typeof config>): SourceContext => ({ cfg, benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY });

describe('mem0 (open-source server API)', () => {
  it('adds sessions in order with turn ids and dates, searches verbatim, maps memories back to turns', async () => {
    const cfg = config();
    const source = await mem0.create(cfg, session(), { runDir });
    const opened = await source.open(ep(), ctx(cfg));
    // 3 sessions of 2 turns, batch 2: 3 add calls, in order, one owner per episode.
    const adds = server.adds();
    expect(adds.map((a) => a.body.metadata.rawrag_add)).toEqual(['conv-x#0', 'conv-x#1', 'conv-x#2']);
    expect(adds[0]!.body.user_id).toBe(`rawrag-${runTag(runDir)}-conv-x`);
    expect(adds[0]!.body.messages).toEqual([
      { role: 'user', content: 'Caroline: I adopted a dog named Rex last week' },
      { role: 'assistant', content: 'Melanie: Rex sounds lovely' },
    ]);
    expect(adds[1]!.body.metadata).toMatchObject({
      turn_ids: ['D2:1', 'D2:2'],
      date: '2:00 pm on 15 May, 2023',
      session: '2',
      timestamp: '2:00 pm on 15 May, 2023',
    });
    expect(adds[0]!.body.prompt).toBe(readFileSync(join(ROOT, 'configs/prompts/mem0-custom-instructions.txt'), 'utf8'));
    const q = question('Where does Caroline live?', ['D3:1']);
    const item = baseItem(q, 'locomo');
    const evidence = await opened.evidenceFor(q, item, ctx(cfg));
    const search = server.requests.find((r) => r.path === '/search')!;
    expect(search.body).toEqual({ query: 'Where does Caroline live?', filters: { user_id: adds[0]!.body.user_id }, top_k: 10 });
    // "I live in Berlin ..." updated "I live in Paris ..." (same first four words): its metadata is session 3's.
    expect(evidence.blocks[0]!.text).toContain('[9:10 am on 22 May, 2023] Caroline: I live in Berlin since my new job');
    expect(item.evidence_turns).toContain('D3:1');
    // The service replaced the memory's metadata with the updating add's (session 3): rawrag's own record
    // of the adds behind it keeps the creating add's turns too (its text is made from both).
    expect(server.ownerMemories(adds[0]!.body.user_id).find((m) => m.memory.includes('Berlin'))!.metadata.turn_ids).toEqual([
      'D3:1',
      'D3:2',
    ]);
    expect(item.evidence_turns).toEqual(expect.arrayContaining(['D2:1', 'D2:2', 'D3:1', 'D3:2']));
    expect(item.coverage).toEqual({ all: true, any: true });
    expect(item.evidence_tokens).toBeGreaterThan(10);
    // The events became write decisions: 5 ADD and 1 UPDATE with the old text.
    const decisions = readFileSync(join(runDir, 'write-decisions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(decisions.map((d) => d.operation)).toEqual(['ADD', 'ADD', 'ADD', 'ADD', 'UPDATE', 'ADD']);
    expect(decisions[4]).toMatchObject({
      episode: 'conv-x',
      operation: 'UPDATE',
      old_text: 'Caroline: I live in Paris near the river',
      new_text: 'Caroline: I live in Berlin since my new job',
      batch: 'conv-x#2',
    });
    expect(source.report!().service).toMatchObject({ acknowledged: { adds: 3, complete: 1, events: { ADD: 5, UPDATE: 1 } } });
  });

  it('a second source on the same run directory sends no add; a fresh directory is another owner', async () => {
    const cfg = config();
    await (await mem0.create(cfg, session(), { runDir })).open(ep(), ctx(cfg));
    const again = await mem0.create(cfg, session(), { runDir });
    await again.open(ep(), ctx(cfg));
    expect(server.adds()).toHaveLength(3);
    expect(again.report!().service).toMatchObject({ this_run: { adds_sent: 0 } });
  });

  it('retries 429 and 500 with backoff, and a timeout; recovers an add whose reply was lost instead of sending it twice', async () => {
    const cfg = config();
    const isAdd = (r: { path: string }) => r.path === '/memories';
    server.inject({ kind: 'status', status: 429, headers: { 'retry-after-ms': '5' }, match: isAdd });
    // A connection dropped before the server did anything: looked for, not found, sent again.
    server.inject({ kind: 'reset', match: isAdd });
    server.inject({ kind: 'status', status: 500, match: (r) => isAdd(r) && r.body?.metadata?.rawrag_add === 'conv-x#1' });
    // The add of conv-x#2 is done, then the connection drops: the reply is lost.
    server.inject({ kind: 'reset-after', match: (r) => isAdd(r) && r.body?.metadata?.rawrag_add === 'conv-x#2' });
    server.inject({ kind: 'slow', delayMs: 1000, match: (r) => r.path === '/search' });
    const source = await mem0.create(cfg, session(), { runDir });
    const opened = await source.open(ep(), ctx(cfg));
    expect(server.performed).toEqual(['conv-x#0', 'conv-x#1', 'conv-x#2']);
    expect(server.adds().map((r) => r.fault)).toEqual(['status 429', 'reset', null, 'status 500', null, 'reset-after']);
    const q = question('Where does Caroline live?', ['D3:1']);
    await opened.evidenceFor(q, baseItem(q, 'locomo'), ctx(cfg));
    expect(server.requests.filter((r) => r.path === '/search').map((r) => r.fault)).toEqual(['slow', null]);
    const log = readFileSync(join(runDir, INGEST_LOG_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(log.find((l) => l.key === 'conv-x#2')).toMatchObject({ recovered: true, events: null });
    expect(source.report!().service).toMatchObject({ acknowledged: { adds: 3, recovered: 1 } });
  });

  it('a failure that outlasts the retries fails the episode naming the call, keeps what was acknowledged, and the resume sends only the rest', async () => {
    const cfg = config();
    server.inject({ kind: 'status', status: 503, times: Infinity, match: (r) => r.body?.metadata?.rawrag_add === 'conv-x#1' });
    const source = await mem0.create(cfg, session({ MEM0_API_KEY: 'm0-secret-key-123456' }), { runDir });
    const failing = source.open(ep(), ctx(cfg));
    await expect(failing).rejects.toThrow(/mem0 POST http:\/\/127\.0\.0\.1:\d+\/memories failed \(HTTP 503\) after 4 tries/);
    expect(server.adds()[0]!.headers['x-api-key']).toBe('m0-secret-key-123456');
    expect(String(await failing.catch((e: Error) => e))).not.toContain('m0-secret-key-123456');
    server.faults = [];
    const before = server.adds().length;
    await (await mem0.create(cfg, session(), { runDir })).open(ep(), ctx(cfg));
    const resent = server
      .adds()
      .slice(before)
      .map((r) => r.body.metadata.rawrag_add);
    expect(resent).toEqual(['conv-x#1', 'conv-x#2']);
    expect(server.performed.filter((k) => k === 'conv-x#0')).toHaveLength(1);
  });

  it('an add in flight at a kill is found on the service at resume and not sent again (past the 20 memories a bare listing returns)', async () => {
    const cfg = config();
    // 40 turns, 40 distinct facts: the last add's memories are not among the first 20 a bare listing returns.
    const long = episode();
    long.turns = Array.from({ length: 40 }, (_, i) => ({
      id: `D1:${i + 1}`,
      session: '1',
      date: '8 May, 2023',
      speaker: i % 2 ? 'Melanie' : 'Caroline',
      text: `fact number ${i} is about topic ${i * 7}`,
      captions: [],
    }));
    const source = await mem0.create(cfg, session(), { runDir });
    await source.open(ep(long), ctx(cfg));
    expect(server.memories.size).toBe(40);
    // Simulate a kill after conv-x#19 was done but before it was recorded: drop its lines from the log.
    const path = join(runDir, INGEST_LOG_FILE);
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    const kept = lines.filter((l) => !l.includes('"conv-x#19"') && !l.includes('"complete"'));
    (await import('node:fs')).writeFileSync(path, kept.join('\n') + '\n');
    const resumed = await mem0.create(cfg, session(), { runDir });
    await resumed.open(ep(long), ctx(cfg));
    expect(server.performed).toHaveLength(20);
    expect(new Set(server.performed).size).toBe(20);
    expect(resumed.report!().service).toMatchObject({ this_run: { adds_sent: 0, adds_recovered: 1 } });
  });

  it('a kill between an acknowledged add and its decisions: the next process rebuilds the decision log from the ingest log', async () => {
    const cfg = config();
    await (await mem0.create(cfg, session(), { runDir })).open(ep(), ctx(cfg));
    const decisionsPath = join(runDir, 'write-decisions.jsonl');
    const full = readFileSync(decisionsPath, 'utf8');
    const fs = await import('node:fs');
    fs.writeFileSync(decisionsPath, full.split('\n').slice(0, 2).join('\n') + '\n');
    const logPath = join(runDir, INGEST_LOG_FILE);
    fs.writeFileSync(logPath, readFileSync(logPath, 'utf8').replace(/.*"type":"complete".*\n/, ''));
    await (await mem0.create(cfg, session(), { runDir })).open(ep(), ctx(cfg));
    expect(readFileSync(decisionsPath, 'utf8')).toBe(full);
    expect(server.adds()).toHaveLength(3);
  });

  it('the store capability shows what was acknowledged and purges an owner on the service, verified; the resume re-adds', async () => {
    const cfg = config();
    await (await mem0.create(cfg, session(), { runDir })).open(ep(), ctx(cfg));
    (await import('node:fs')).writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ schema: 'rawrag.run/2', system: cfg.system, benchmark: 'locomo', setting: 'test', config: cfg }));
    expect(mem0.store!.show(runDir, {})).toMatch(
      /conv-x.*3 adds, searchable [\d.]+ s after its first add; events ADD 5, UPDATE 1, DELETE 0, NONE 0/,
    );
    await expect(mem0.store!.purge(runDir, 'nope', {})).rejects.toThrow(/owner 'nope' holds nothing/);
    const out = await mem0.store!.purge(runDir, 'conv-x', {});
    expect(out).toMatch(/purged rawrag-.*-conv-x .* verified, 0 memories left/);
    expect(server.memories.size).toBe(0);
    expect(readFileSync(join(runDir, 'write-decisions.jsonl'), 'utf8')).toBe('');
    await (await mem0.create(cfg, session(), { runDir })).open(ep(), ctx(cfg));
    expect(server.adds()).toHaveLength(6);
    expect(await mem0.store!.purgeAll!(runDir)).toMatch(/purged/);
    expect(server.memories.size).toBe(0);
  });
});

describe('mem0 (platform API)', () => {
  it('sends the key as Authorization: Token, backdates with timestamp, polls the add event, searches /v3', async () => {
    await server.close();
    server = await new FakeMem0({ apiKey: 'm0-platform-key-abcdef' }).start();
    const cfg = config({ api: 'platform' });
    await expect(mem0.create(cfg, session(), { runDir })).rejects.toThrow(/platform API needs a key: set MEM0_API_KEY/);
    const source = await mem0.create(cfg, session({ MEM0_API_KEY: 'm0-platform-key-abcdef' }), { runDir });
    const opened = await source.open(ep(), ctx(cfg));
    const adds = server.adds();
    expect(adds).toHaveLength(3);
    expect(adds[0]!.headers.authorization).toBe('Token m0-platform-key-abcdef');
    expect(adds[0]!.body.timestamp).toBe(unixSeconds('1:56 pm on 8 May, 2023'));
    expect(new Date(adds[0]!.body.timestamp * 1000).toISOString()).toBe('2023-05-08T13:56:00.000Z');
    expect(server.requests.filter((r) => r.path.startsWith('/v1/event/')).length).toBe(6); // RUNNING, then SUCCEEDED
    const q = question('Where does Caroline live?', ['D3:1']);
    const item = baseItem(q, 'locomo');
    await opened.evidenceFor(q, item, ctx(cfg));
    expect(item.coverage?.all).toBe(true);
    const decisions = readFileSync(join(runDir, 'write-decisions.jsonl'), 'utf8').trim().split('\n');
    expect(decisions).toHaveLength(6);
  });

  it('a wrong key is refused at once (401, not retried) and the key never appears in the error', async () => {
    await server.close();
    server = await new FakeMem0({ apiKey: 'the-right-key-000000' }).start();
    const cfg = config({ api: 'platform' });
    const source = await mem0.create(cfg, session({ MEM0_API_KEY: 'wrong-key-9876543210' }), { runDir });
    const err = await source.open(ep(), ctx(cfg)).catch((e: Error) => e);
    expect(String(err)).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/v1\/ping\/ failed \(HTTP 401\)/);
    expect(String(err)).not.toContain('wrong-key-9876543210');
    // The reachability probe (any answer will do), then the SDK's key check, which fails: nothing else is sent.
    expect(server.requests.map((r) => r.path)).toEqual(['/', '/v1/ping/']);
    expect(server.adds()).toHaveLength(0);
  });
});

describe('add plans', () => {
  it('owners are per run directory: two folders of the same name elsewhere never share one', () => {
    const a = runTag('/results/a/mem0');
    const b = runTag('/results/b/mem0');
    expect(a).toMatch(/^mem0-[0-9a-f]{8}$/);
    expect(b).toMatch(/^mem0-[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
    expect(runTag('/results/a/../a/mem0')).toBe(a);
  });

  it('one call per batch of turns within a session; session batching; dates read as unix seconds', () => {
    const e = ep();
    expect(planAdds(e, 'session').map((c) => c.turnIds)).toEqual([
      ['D1:1', 'D1:2'],
      ['D2:1', 'D2:2'],
      ['D3:1', 'D3:2'],
    ]);
    expect(planAdds(e, 1)).toHaveLength(6);
    expect(unixSeconds('2023/05/20 (Sat) 02:21')).toBe(Date.UTC(2023, 4, 20, 2, 21) / 1000);
    expect(unixSeconds('12:30 am on 1 June, 2023')).toBe(Date.UTC(2023, 5, 1, 0, 30) / 1000);
    expect(unixSeconds(null)).toBeNull();
    // A visibility horizon (MEME's phases) is an owner of its own.
    expect(ownerOf('run', { episode: episode(), visibleTurns: 4 })).toBe('rawrag-run-conv-x@4');
    expect(ownerOf('run', { episode: episode(), visibleTurns: 6 })).toBe('rawrag-run-conv-x');
    expect(planAdds(ingest(episode(), 4, { ...DEFAULT_POLICY }, { tokenizer: 'cl100k_base', size: 256, stride: 224 }), 2)).toHaveLength(2);
  });

  it("per-speaker owners: every turn added to both speakers' stores, roles mirrored, speaker-prefixed content", () => {
    const plan = planEpisode(ep(), 'run', { owners: 'per-speaker', batch: 2 });
    expect(plan.note).toBeNull();
    expect(plan.owners.map((o) => [o.owner, o.speaker])).toEqual([
      ['rawrag-run-conv-x~caroline', 'Caroline'],
      ['rawrag-run-conv-x~melanie', 'Melanie'],
    ]);
    const [caroline, melanie] = plan.owners.map((o) => o.calls[0]!);
    expect(caroline!.turnIds).toEqual(melanie!.turnIds);
    expect(caroline!.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Caroline: I adopted a dog named Rex last week'],
      ['assistant', 'Melanie: Rex sounds lovely [shared an image: a photo of a lake]'],
    ]);
    expect(melanie!.messages.map((m) => m.role)).toEqual(['assistant', 'user']);
    // Keys differ per owner, so each store's adds are recognised on their own.
    expect(caroline!.key).toBe('conv-x~caroline#0');
    expect(melanie!.key).toBe('conv-x~melanie#0');
    expect(caroline!.messages[1]).toMatchObject({
      speaker: 'Melanie',
      text: 'Rex sounds lovely',
      captions: ['a photo of a lake'],
      indexInSession: 1,
    });
  });

  it('per-speaker falls back to one owner, with a note, for a history that is not a two-person conversation', () => {
    const e = episode();
    const chat: Episode = { id: 'lme', turns: e.turns.map((t, i) => ({ ...t, speaker: i % 2 ? 'assistant' : 'user' })) };
    const plan = planEpisode(ep(chat), 'run', { owners: 'per-speaker', batch: 2 });
    expect(plan.owners).toHaveLength(1);
    expect(plan.note).toMatch(/two named people/);
    expect(plan.owners[0]!.calls[0]!.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'I adopted a dog named Rex last week'],
      ['assistant', 'Rex sounds lovely [shared an image: a photo of a lake]'],
    ]);
  });

  it('spaced timestamps: a step per position in the session, squeezed into a share of the gap to the next session', () => {
    const calls = planAdds(ep(), 'session');
    const t1 = unixSeconds('1:56 pm on 8 May, 2023')!;
    expect(calls[0]!.nextSessionTimestamp).toBe(unixSeconds('2:00 pm on 15 May, 2023'));
    expect(spacedTimestamps(calls[0]!, 1)).toEqual([t1, t1 + 1]);
    // 30 s apart would fit easily in a week's gap ...
    expect(spacedTimestamps(calls[0]!, 30, 0.9)).toEqual([t1, t1 + 30]);
    // ... a step longer than the gap is squeezed to 90 % of it.
    const gap = calls[0]!.nextSessionTimestamp! - t1;
    expect(spacedTimestamps(calls[0]!, 10 * gap, 0.9)).toEqual([t1, t1 + 0.9 * gap]);
  });
});
