/**
 * `--system mem0` as Mem0 runs it, against loopback Mem0 peers of each flavour (tests/helpers/fake-mem0.ts):
 * Mem0's own LoCoMo protocol by default (two mirrored owners, `Name: text`, two messages per add,
 * the session date as metadata `timestamp`, Mem0's custom instructions, both owners searched with
 * top_k 30, two labelled memory lists); a 2.x server's add-only replies named as such in the
 * summary; replies read leniently (extra keys and unknown shapes kept); the platform's event
 * polling resumed on its recorded ticket (never re-added), a FAILED event sent again, a queued
 * delete waited for; an old server's capped listing looked past with a filtered search.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeMem0, type FakeMem0Options } from '../../helpers/fake-mem0.js';
import { ROOT } from '../../helpers/cli.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { mem0 } from '../../../src/systems/mem0/index.js';
import { ossAddOutcome } from '../../../src/systems/mem0/replies.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { ingest } from '../../../src/retrieval/chunk.js';
import type { IngestedEpisode } from '../../../src/core/ingested-episode.js';
import { DEFAULT_POLICY } from '../../../src/core/policy.js';
import { baseItem } from '../../../src/core/item.js';
import { getBenchmark } from '../../../src/benchmarks/registry.js';
import type { Episode, Question } from '../../../src/core/schema.js';
import type { SourceContext } from '../../../src/core/evidence-source.js';
import { INGEST_LOG_FILE } from '../../../src/systems/memory-service/ingest-log.js';
import { BadReplyError } from '../../../src/providers/errors.js';

function episode(turns?: Episode['turns']): Episode {
  const s = (n: number, date: string, a: string, b: string) => [
    { id: `D${n}:1`, session: String(n), date, speaker: 'Caroline', text: a, captions: [] },
    { id: `D${n}:2`, session: String(n), date, speaker: 'Melanie', text: b, captions: ['a photo of a lake'] },
  ];
  return {
    id: 'conv-x',
    meta: { speakers: ['Caroline', 'Melanie'] },
    turns: turns ?? [
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
  id: 'conv-x:q1',
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
const start = async (o: FakeMem0Options = {}) => (server = await new FakeMem0(o).start());
beforeEach(() => {
  runDir = mkdtempSync(join(tmpdir(), 'rawrag-mem0p-'));
});
afterEach(async () => server?.close());

const config = (extra: Record<string, unknown> = {}) =>
  RunConfigSchema.parse({ benchmark: 'locomo', system: 'mem0', mem0: { url: server.url, ...extra } });
const session = (env: Record<string, string> = {}) =>
  new ProviderSession({ noCache: true, timeoutMs: 2000, retry: { maxRetries: 3, baseDelayMs: 2, maxDelayMs: 20 }, env });
const ctx = (cfg: ReturnType<typeof config>): SourceContext => ({ cfg, benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY });
const logLines = () =>
  readFileSync(join(runDir, INGEST_LOG_FILE), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const PLATFORM_KEY = { MEM0_API_KEY: 'm0-platform-key-abcdef' };

describe("Mem0's own protocol by default, against a 2.x server", () => {
  it('two mirrored owners, Name: text without captions, two messages per add, session date and instructions; both owners searched (top 30), two labelled lists', async () => {
    await start();
    const cfg = config();
    expect(cfg.mem0).toMatchObject({ owners: 'per-speaker', top_k: 30, batch: 2, instructions: 'mem0-eval', captions: false });
    const source = await mem0.create(cfg, session(), { runDir });
    const opened = await source.open(ep(), ctx(cfg));
    const adds = server.adds();
    const owners = [...new Set(adds.map((a) => a.body.user_id as string))];
    expect(owners.map((o) => o.replace(/^.*~/, ''))).toEqual(['caroline', 'melanie']);
    const of = (o: string) => adds.filter((a) => a.body.user_id === o);
    expect(of(owners[0]!).map((a) => a.body.metadata.rawrag_add)).toEqual(['conv-x~caroline#0', 'conv-x~caroline#1', 'conv-x~caroline#2']);
    expect(of(owners[0]!)[0]!.body.messages).toEqual([
      { role: 'user', content: 'Caroline: I adopted a dog named Rex last week' },
      { role: 'assistant', content: 'Melanie: Rex sounds lovely' },
    ]);
    expect(of(owners[1]!)[0]!.body.messages).toEqual([
      { role: 'assistant', content: 'Caroline: I adopted a dog named Rex last week' },
      { role: 'user', content: 'Melanie: Rex sounds lovely' },
    ]);
    expect(of(owners[1]!)[2]!.body.metadata).toMatchObject({ timestamp: '9:10 am on 22 May, 2023', turn_ids: ['D3:1', 'D3:2'] });
    expect(adds[0]!.body.prompt).toBe(readFileSync(join(ROOT, 'configs/prompts/mem0-custom-instructions.txt'), 'utf8'));
    const q = question('Where does Caroline live?', ['D3:1']);
    const item = baseItem(q, 'locomo');
    const evidence = await opened.evidenceFor(q, item, ctx(cfg));
    const searches = server.requests.filter((r) => r.path === '/search');
    expect(searches.map((r) => [r.body.filters.user_id, r.body.top_k])).toEqual([
      [owners[0], 30],
      [owners[1], 30],
    ]);
    expect(evidence.blocks.map((b) => b.text.split('\n')[0])).toEqual([
      "Memories of Caroline recalled by Mem0 (from Caroline's own store; most relevant first; each dated by the conversation it came from):",
      "Memories of Melanie recalled by Mem0 (from Melanie's own store; most relevant first; each dated by the conversation it came from):",
    ]);
    expect(evidence.blocks[0]!.text).toContain('- [9:10 am on 22 May, 2023] Caroline: I live in Berlin since my new job');
    expect(item.coverage?.all).toBe(true);
  });

  it('a 2.x server returns only ADD (a repeated text dropped silently): the summary says the service is add-only, the probe note is kept', async () => {
    await start();
    const cfg = config({ owners: 'per-episode' });
    const repeated = episode();
    repeated.turns.push({
      id: 'D4:1',
      session: '4',
      date: '1 June, 2023',
      speaker: 'Caroline',
      text: 'I live in Berlin since my new job',
      captions: [],
    });
    const source = await mem0.create(cfg, session(), { runDir });
    await source.open(ep(repeated), ctx(cfg));
    const service = source.report!().service as { acknowledged: { adds: number; events: Record<string, number> } };
    expect(service.acknowledged).toMatchObject({ adds: 4, events: { ADD: 6, UPDATE: 0, DELETE: 0, NONE: 0 } });
    const lines = mem0.summaryLines!({ service });
    expect(lines.join('\n')).toContain(
      'ADD-ONLY: Mem0 returned only ADD events in 4 adds: it behaves as an add-only service (its version could not be read), so its UPDATE+DELETE share is 0 % by construction, not a measurement',
    );
    expect(source.notes!.join('\n')).toMatch(/does not report its mem0ai version; mem0ai >= 2\.0 .* is add-only/);
    expect(logLines().find((l) => l.type === 'probe')).toMatchObject({ version: null, add_only: null });
  });
});

describe("Mem0's replies, read leniently", () => {
  it('extra keys stay on the event, what is not an event is kept unread, a reply without results is refused', () => {
    const outcome = ossAddOutcome({
      results: [
        { id: 'm1', memory: 'Caroline: hi', event: 'ADD', actor_id: null, role: 'user' },
        { id: 'm2', data: { memory: 'x' }, event: 'add' },
        { type: 'entity_link', entity: 'Caroline' },
        { id: 7, memory: 'odd id', event: 'ADD' },
      ],
      relations: [],
    });
    expect(outcome.events).toEqual([
      { id: 'm1', event: 'ADD', memory: 'Caroline: hi', previous: null, extra: { actor_id: null, role: 'user' } },
      { id: 'm2', event: 'ADD', memory: 'x', previous: null },
    ]);
    expect(outcome.unread).toEqual([
      { relations: [] },
      { type: 'entity_link', entity: 'Caroline' },
      { id: 7, memory: 'odd id', event: 'ADD' },
    ]);
    expect(() => ossAddOutcome({ memories_added: 2 })).toThrow(BadReplyError);
  });
});

describe("Mem0's platform (v3)", () => {
  it('an event result of an unknown shape is kept in the ingest log; the probe says add-only v3', async () => {
    await start({ apiKey: PLATFORM_KEY.MEM0_API_KEY });
    server.oddResult = true;
    const cfg = config({ api: 'platform', owners: 'per-episode' });
    const source = await mem0.create(cfg, session(PLATFORM_KEY), { runDir });
    await source.open(ep(), ctx(cfg));
    const adds = logLines().filter((l) => l.type === 'add');
    expect(adds).toHaveLength(3);
    expect(adds[0].unread).toEqual([{ type: 'entity_link', entity: 'Caroline', memory_ids: [] }]);
    expect(adds[0].events.map((e: { event: string }) => e.event)).toEqual(['ADD', 'ADD']);
    expect(logLines().find((l) => l.type === 'probe')).toMatchObject({ version: 'platform v3 API', add_only: true });
    const lines = mem0.summaryLines!({ service: source.report!().service });
    expect(lines.join('\n')).toContain('ADD-ONLY: Mem0 platform v3 API is add-only (the service says so)');
  });

  it('a wait that outlasts -S readyTimeout fails the add but keeps its ticket: the next run waits on the same event, nothing is added twice', async () => {
    await start({ apiKey: PLATFORM_KEY.MEM0_API_KEY, eventPolls: 1_000_000, processMs: 3_600_000 });
    const cfg = config({ api: 'platform', owners: 'per-episode', readyTimeout: 0.2 });
    const first = await mem0.create(cfg, session(PLATFORM_KEY), { runDir });
    const err = await first.open(ep(), ctx(cfg)).catch((e: Error) => e);
    expect(String(err)).toMatch(/Mem0's add event [0-9a-f-]+ \(conv-x#0\): still RUNNING after 0 s: the add was accepted and is recorded/);
    const accepted = logLines().filter((l) => l.type === 'accepted');
    expect(accepted).toEqual([expect.objectContaining({ key: 'conv-x#0', ticket: expect.any(String) })]);
    expect(server.adds()).toHaveLength(1);
    // The platform finishes its work in the background; the next run asks for the same event.
    server.eventPolls = 0;
    const second = await mem0.create(cfg, session(PLATFORM_KEY), { runDir });
    await second.open(ep(), ctx(cfg));
    expect(server.adds()).toHaveLength(3);
    expect(server.performed).toEqual(['conv-x#0', 'conv-x#1', 'conv-x#2']);
    expect(server.requests.some((r) => r.path === `/v1/event/${accepted[0].ticket}/`)).toBe(true);
    expect(logLines().find((l) => l.type === 'add' && l.key === 'conv-x#0').events).toHaveLength(2);
    expect(second.report!().service).toMatchObject({ this_run: { adds_sent: 2 } });
  });

  it('a FAILED event stored nothing: the add is sent again', async () => {
    await start({ apiKey: PLATFORM_KEY.MEM0_API_KEY });
    server.failEvents = 1;
    const cfg = config({ api: 'platform', owners: 'per-episode' });
    await (await mem0.create(cfg, session(PLATFORM_KEY), { runDir })).open(ep(), ctx(cfg));
    expect(server.adds().map((a) => a.body.metadata.rawrag_add)).toEqual(['conv-x#0', 'conv-x#0', 'conv-x#1', 'conv-x#2']);
    expect(server.performed).toEqual(['conv-x#0', 'conv-x#1', 'conv-x#2']);
  });

  it('a purge right after the run waits for the queued delete; one that outlasts -S deleteTimeout says the delete is still queued', async () => {
    await start({ apiKey: PLATFORM_KEY.MEM0_API_KEY, deleteListings: 2 });
    const cfg = config({ api: 'platform', owners: 'per-episode' });
    await (await mem0.create(cfg, session(PLATFORM_KEY), { runDir })).open(ep(), ctx(cfg));
    writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ schema: 'rawrag.run/2', system: cfg.system, benchmark: 'locomo', setting: 'test', config: cfg }));
    process.env.MEM0_API_KEY = PLATFORM_KEY.MEM0_API_KEY;
    try {
      expect(server.totalHeld()).toBe(6);
      const out = await mem0.store!.purge(runDir, 'conv-x', {});
      expect(out).toMatch(/purged rawrag-.*-conv-x \(episode conv-x\) on http:.*: verified, 0 memories left/);
      expect(server.requests.filter((r) => r.path === '/v3/memories/').length).toBeGreaterThanOrEqual(3);
      expect(server.totalHeld()).toBe(0);
      // A delete that stays queued longer than the purge waits.
      await (await mem0.create(cfg, session(PLATFORM_KEY), { runDir })).open(ep(), ctx(cfg));
      const slow = config({ api: 'platform', owners: 'per-episode', deleteTimeout: 0.3 });
      await server.close();
      const port = Number(new URL(server.url).port);
      const held = [...server.memories.values()];
      server = new FakeMem0({ apiKey: PLATFORM_KEY.MEM0_API_KEY, deleteListings: 1_000_000, deleteMs: 3_600_000 });
      for (const m of held) server.memories.set(m.id, m);
      await server.start(port);
      const err = await mem0.store!.purge(runDir, 'conv-x', { config: slow }).catch((e: Error) => e);
      expect(String(err)).toMatch(
        /Mem0 delete of 'rawrag-.*-conv-x': still holding 6 memories after 0 s: the delete may still be queued on the service/,
      );
    } finally {
      delete process.env.MEM0_API_KEY;
    }
  });
});

describe("an open-source server from before 2026-06-24 (GET /memories without top_k: the library's default 20)", () => {
  it('a lost reply past the capped listing is found by a search filtered on the add key, not sent again', async () => {
    await start({ listDefault: 20 });
    const cfg = config({ owners: 'per-episode' });
    const long = episode(
      Array.from({ length: 40 }, (_, i) => ({
        id: `D1:${i + 1}`,
        session: '1',
        date: '8 May, 2023',
        speaker: i % 2 ? 'Melanie' : 'Caroline',
        text: `fact number ${i} is about topic ${i * 7}`,
        captions: [],
      })),
    );
    await (await mem0.create(cfg, session(), { runDir })).open(ep(long), ctx(cfg));
    expect(server.memories.size).toBe(40);
    // A kill after conv-x#19 was done but before it was recorded.
    const path = join(runDir, INGEST_LOG_FILE);
    const kept = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => !l.includes('"conv-x#19"') && !l.includes('"complete"'));
    writeFileSync(path, kept.join('\n') + '\n');
    const resumed = await mem0.create(cfg, session(), { runDir });
    await resumed.open(ep(long), ctx(cfg));
    expect(server.performed).toHaveLength(20);
    const filtered = server.requests.filter((r) => r.path === '/search' && r.body.filters.rawrag_add === 'conv-x#19');
    expect(filtered).toHaveLength(1);
    expect(filtered[0]!.body).toMatchObject({ threshold: 0, filters: { user_id: expect.any(String), rawrag_add: 'conv-x#19' } });
    const service = resumed.report!().service as { this_run: object; requests: { capped_listings: number } };
    expect(service.this_run).toMatchObject({ adds_sent: 0, adds_recovered: 1 });
    expect(service.requests.capped_listings).toBeGreaterThanOrEqual(1);
    expect(logLines().find((l) => l.key === 'conv-x#19' && l.type === 'add')).toMatchObject({
      recovered: true,
      found: [expect.any(String), expect.any(String)],
    });
  });
});
