/**
 * The EverMemOS system against a loopback EverMemOS server (tests/helpers/fake-evermemos.ts, written
 * from EverMemOS@e37205f5's REST API v1): the loader's message formats (sender ids, captions before
 * the text, 30 s steps squeezed into 90 % of the gap, the fake base of an undated session), a lost
 * add's reply found among pending raw messages or among episodes stamped within its span, the flush
 * before any search, the options that change the search, a purge that flushes before its soft delete,
 * and the peer's request validation as pydantic and the request converter do it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeEverMemos } from '../../helpers/fake-evermemos.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { evermemos } from '../../../src/systems/evermemos/index.js';
import { EverMemosService, type EverMemosOptions } from '../../../src/systems/evermemos/client.js';
import { contentOf, episodeMemory, messagesOf, senderIdOf, timestampsMs } from '../../../src/systems/evermemos/wire.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { Secrets } from '../../../src/providers/secrets.js';
import { ingest } from '../../../src/retrieval/chunk.js';
import { DEFAULT_POLICY } from '../../../src/core/policy.js';
import { getBenchmark } from '../../../src/benchmarks/registry.js';
import type { AddCall, ServiceMessage } from '../../../src/systems/memory-service/service.js';
import type { Episode, Question } from '../../../src/core/schema.js';
import { baseItem } from '../../../src/core/item.js';
import type { SourceContext } from '../../../src/core/evidence-source.js';
import { unixSeconds } from '../../../src/systems/memory-service/plan.js';

const msg = (i: number, o: Partial<ServiceMessage> = {}): ServiceMessage => ({
  role: 'user',
  content: '',
  speaker: i % 2 ? 'Mel Anie' : 'Caroline',
  text: `turn ${i} about hiking`,
  captions: [],
  turnId: `D1:${i + 1}`,
  indexInSession: i,
  ...o,
});

const call = (o: Partial<AddCall> = {}): AddCall => ({
  owner: 'rawrag-t-1-conv-x',
  ownerSpeaker: null,
  key: 'conv-x#0',
  messages: [msg(0), msg(1)],
  turnIds: ['D1:1', 'D1:2'],
  session: 'session_1',
  date: '1:56 pm on 8 May, 2023',
  timestamp: unixSeconds('1:56 pm on 8 May, 2023'),
  sessionTurns: 10,
  nextSessionTimestamp: null,
  ...o,
});

const OPTS: EverMemosOptions = { method: 'agentic', memoryTypes: ['episodic_memory'], stepSeconds: 30, fitToGap: 0.9 };
const transport = () => ({
  timeoutMs: 2000,
  retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
  concurrency: 2,
  secrets: new Secrets(),
});

describe('wire formats', () => {
  it("writes messages as the vendor's loader builds them", () => {
    const t0 = unixSeconds('1:56 pm on 8 May, 2023')! * 1000;
    expect(timestampsMs(call(), 30, 0.9)).toEqual([t0, t0 + 30_000]);
    // 10 turns, the next session 100 s later: 9 steps within 90 s, 10 s apart.
    const tight = call({ messages: [msg(0), msg(9, { indexInSession: 9 })], nextSessionTimestamp: t0 / 1000 + 100 });
    expect(timestampsMs(tight, 30, 0.9)).toEqual([t0, t0 + 90_000]);
    // An undated session: 2024-01-01 plus its index in hours (session_3: two hours).
    const undated = call({ date: null, timestamp: null, session: 'session_3' });
    expect(timestampsMs(undated, 30, 0.9)).toEqual([Date.UTC(2024, 0, 1, 2), Date.UTC(2024, 0, 1, 2) + 30_000]);
    expect(senderIdOf('Mel Anie', 'conv-x')).toBe('mel_anie_conv-x');
    expect(contentOf(msg(1, { captions: ['a lake', 'a dog'] }))).toBe(
      '[Mel Anie shared an image: a lake] [Mel Anie shared an image: a dog] turn 1 about hiking',
    );
    expect(messagesOf(call(), { stepSeconds: 30, fitToGap: 0.9 })[1]).toEqual({
      message_id: 'D1:2',
      sender_id: 'mel_anie_conv-x',
      sender_name: 'Mel Anie',
      role: 'user',
      timestamp: t0 + 30_000,
      content: 'turn 1 about hiking',
    });
    // A user/assistant history keeps its roles, named as the vendor's LongMemEval converter names them, cut at 8,000 characters.
    const [chat] = messagesOf(call({ messages: [msg(0, { speaker: 'assistant', text: 'x'.repeat(9000) })] }), {
      stepSeconds: 30,
      fitToGap: 0.9,
    });
    expect(chat).toMatchObject({ role: 'assistant', sender_name: 'assistant_conv-x', sender_id: 'assistant_conv-x_conv-x' });
    expect(chat!.content).toHaveLength(8000);
  });

  it("reads an episode as the in-process adapter shows it: '<subject>: <episode>', dated, with no turns", () => {
    expect(
      episodeMemory({ id: 'e1', subject: 'Hiking plans', episode: 'Caroline hikes.', timestamp: '2023-05-08T13:56:00+00:00', score: 0.5 }),
    ).toEqual({
      id: 'e1',
      memory: 'Hiking plans: Caroline hikes.',
      score: 0.5,
      date: '2023-05-08T13:56:00+00:00',
      turnIds: [],
      addKey: null,
      speaker: null,
    });
    expect(episodeMemory({ id: 'e2', summary: 'only a summary' })?.memory).toBe('only a summary');
    expect(episodeMemory({ subject: 'no id', episode: 'x' })).toBeNull();
  });
});

let server: FakeEverMemos;
beforeEach(async () => {
  server = await new FakeEverMemos({ windowLimit: 3 }).start();
});
afterEach(async () => server.close());

const post = (path: string, body: unknown) =>
  fetch(`${server.url}/api/v1/memories${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const good = { message_id: 'm1', sender_id: 'caroline_c', role: 'user', timestamp: 1_683_554_160_000, content: 'hello' };

describe('the loopback server validates as upstream does', () => {
  it('refuses what GroupAddRequest and the request converter refuse, and ignores extra fields', async () => {
    const cases: Array<[unknown, number, RegExp?]> = [
      [{ group_id: 'g', messages: [good] }, 200],
      [{ group_id: 'g', messages: [{ ...good, message_id: 'm2', unknown_field: 1 }], extra: true }, 200],
      [{ group_id: 'g', messages: [{ ...good, sender_id: undefined }] }, 422, /sender_id is required for group add/],
      [{ group_id: 'g', messages: [{ ...good, role: undefined }] }, 422, /role/],
      [{ group_id: 'g', messages: [{ ...good, timestamp: undefined }] }, 422, /timestamp/],
      [{ group_id: 'g', messages: [{ ...good, timestamp: '2023-05-08' }] }, 422, /timestamp/],
      [{ group_id: 'g', messages: [{ ...good, role: 'system' }] }, 422, /Must be 'user' or 'assistant'/],
      [{ group_id: 'g', messages: [{ ...good, content: '' }] }, 422, /must not be empty/],
      [{ group_id: 'g', messages: [] }, 422],
      [{ group_id: 'g', messages: Array.from({ length: 501 }, () => good) }, 422],
      [{ group_id: 'gen_x', messages: [good] }, 422, /reserved prefix/],
      [{ messages: [good] }, 422, /group_id/],
    ];
    for (const [body, status, message] of cases) {
      const r = await post('/group', body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      const reply = (await r.json()) as { code?: string; message?: string };
      if (status === 422) expect(reply).toMatchObject({ code: 'HTTP_ERROR', message: message ?? expect.any(String) });
    }
    expect(server.applied).toEqual(['g m1', 'g m2']);
  });

  it('refuses searches, listings and deletes that upstream refuses (rrf is documented but not accepted)', async () => {
    const search = { query: 'q', filters: { group_id: 'g' } };
    expect((await post('/search', search)).status).toBe(200);
    expect((await post('/search', { ...search, method: 'rrf' })).status).toBe(422);
    expect((await post('/search', { ...search, memory_types: ['atomic_fact'] })).status).toBe(422);
    expect((await post('/search', { ...search, top_k: 0 })).status).toBe(422);
    expect((await post('/search', { ...search, top_k: 101 })).status).toBe(422);
    expect((await post('/search', { query: 'q', filters: { session_id: 's' } })).status).toBe(422);
    expect((await post('/search', { filters: { group_id: 'g' } })).status).toBe(422);
    expect((await post('/get', { memory_type: 'episodic_memory', filters: { group_id: 'g' } })).status).toBe(200);
    expect((await post('/get', { memory_type: 'episodic_memory', filters: { group_id: 'g' }, page_size: 101 })).status).toBe(422);
    expect((await post('/get', { memory_type: 'raw_message', filters: { group_id: 'g' } })).status).toBe(422);
    expect((await post('/delete', {})).status).toBe(422);
    expect((await post('/delete', { memory_id: 'x', group_id: 'g' })).status).toBe(422);
    expect((await post('/delete', { group_id: 'g' })).status).toBe(204);
  });
});

describe('evermemos', () => {
  it('finds a lost add among pending raw messages, or among episodes stamped within its span once a boundary consumed it', async () => {
    const service = new EverMemosService(server.url, undefined, transport(), OPTS);
    const first = call();
    await service.addOnce(first);
    expect(await service.findAdd(first)).toEqual(['D1:1', 'D1:2']);
    const never = call({ key: 'conv-x#1', messages: [msg(5, { indexInSession: 5 })] });
    expect(await service.findAdd(never)).toEqual([]);
    // A window limit of 3: the next add's boundary turns the window (D1:1-D1:3) into an episode stamped D1:3's time.
    await service.addOnce(call({ key: 'conv-x#1', messages: [msg(2, { indexInSession: 2 })] }));
    await service.addOnce(call({ key: 'conv-x#2', messages: [msg(3, { indexInSession: 3 })] }));
    expect(server.episodes).toHaveLength(1);
    expect(await service.findAdd(first)).toEqual([]);
    const consumed = call({ key: 'conv-x#1', messages: [msg(2, { indexInSession: 2 })] });
    expect(await service.findAdd(consumed)).toEqual([server.episodes[0]!.id]);
  });

  it('flushes before any search; searches as -S method / top_k say; purge flushes, then soft-deletes', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'rawrag-evermemos-'));
    const episode: Episode = {
      id: 'conv-x',
      meta: { speakers: ['Caroline', 'Melanie'] },
      turns: Array.from({ length: 5 }, (_, i) => ({
        id: `D1:${i + 1}`,
        session: 'session_1',
        date: '1:56 pm on 8 May, 2023',
        speaker: i % 2 ? 'Melanie' : 'Caroline',
        text: i === 2 ? 'I adopted a dog named Rex' : `small talk ${i}`,
        captions: [],
      })),
    };
    const ep = ingest(
      episode,
      5,
      { ...DEFAULT_POLICY, chunking: 'turn', serialisation: 'plain' },
      { tokenizer: 'cl100k_base', size: 256, stride: 224 },
    );
    const cfg = RunConfigSchema.parse({
      benchmark: 'locomo',
      system: 'evermemos',
      evermemos: { url: server.url, method: 'hybrid', top_k: 3 },
    });
    const session = new ProviderSession({
      noCache: true,
      timeoutMs: 2000,
      retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
      env: {},
    });
    const ctx: SourceContext = { cfg, benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY };
    const source = await evermemos.create(cfg, session, { runDir });
    const opened = await source.open(ep, ctx);
    const paths = server.requests.map((r) => r.path);
    expect(paths.filter((p) => p === '/api/v1/memories/group')).toHaveLength(5);
    expect(paths.lastIndexOf('/api/v1/memories/group')).toBeLessThan(paths.indexOf('/api/v1/memories/group/flush'));
    expect([...server.windows.values()].every((w) => w.length === 0)).toBe(true);
    const q: Question = {
      id: 'q1',
      episode: 'conv-x',
      type: 'single-hop',
      typeId: 1,
      text: 'What is the dog called?',
      gold: 'Rex',
      acceptable: ['Rex'],
      questionDate: null,
      evidence: ['D1:3'],
      options: null,
      visibleTurns: null,
    };
    const evidence = await opened.evidenceFor(q, baseItem(q, 'locomo'), ctx);
    expect(JSON.stringify(evidence)).toMatch(/Conversation between Caroline and Melanie: [^"]*Rex/);
    const search = server.requests.find((r) => r.path === '/api/v1/memories/search')!;
    expect(search.body).toEqual({
      query: 'What is the dog called?',
      method: 'hybrid',
      memory_types: ['episodic_memory'],
      top_k: 3,
      filters: { group_id: expect.stringMatching(/^rawrag-.*-conv-x$/) },
    });
    expect(server.searchesBeforeReady).toBe(0);
    await source.close?.();

    // Messages a killed ingest left accumulated: the purge's flush turns them into episodes its delete removes.
    const service = new EverMemosService(server.url, undefined, transport(), OPTS);
    await service.addOnce(call({ owner: 'rawrag-t-1-conv-y' }));
    expect(server.totalHeld()).toBeGreaterThan(0);
    for (const owner of new Set(server.episodes.map((e) => e.group_id).concat('rawrag-t-1-conv-y'))) {
      expect((await service.deleteOwner(owner)).join(' ')).toMatch(/soft delete/);
      expect(await service.list(owner)).toEqual([]);
    }
    expect(server.totalHeld()).toBe(0);
  });
});
