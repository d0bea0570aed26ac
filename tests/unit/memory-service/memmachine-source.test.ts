/**
 * The MemMachine system against a loopback MemMachine server (tests/helpers/fake-memmachine.ts,
 * written from MemMachine@18f12112's REST API v2): the vendor's ingest protocol on the wire (a
 * project first, batches of 10 per session, producer, timestamps one second apart, captions, string
 * metadata), its search depth and the options that change it, the evidence as the vendor's helper
 * reads it (long-term then short-term episodes, dated as it dates them, then the summary), exact
 * per-episode coverage, a re-ingest after a purge waiting for the queued delete, and the peer's
 * request validation as pydantic does it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeMemMachine, type FakeMemMachineOptions } from '../../helpers/fake-memmachine.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { memmachine } from '../../../src/systems/memmachine/index.js';
import { projectIdOf, vendorDate } from '../../../src/systems/memmachine/wire.js';
import { MemMachineService } from '../../../src/systems/memmachine/client.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { ingest } from '../../../src/retrieval/chunk.js';
import type { IngestedEpisode } from '../../../src/core/ingested-episode.js';
import { DEFAULT_POLICY } from '../../../src/core/policy.js';
import { baseItem } from '../../../src/core/item.js';
import { getBenchmark } from '../../../src/benchmarks/registry.js';
import type { Episode, Question } from '../../../src/core/schema.js';
import type { SourceContext } from '../../../src/core/evidence-source.js';
import { isoUtc, planEpisode, runTag } from '../../../src/systems/memory-service/plan.js';
import { Secrets } from '../../../src/providers/secrets.js';

/** Session 1: 23 turns (calls of 10, 10, 3); session 2: 2 turns, the second with an image. */
function episode(id = 'conv-x'): Episode {
  const one = Array.from({ length: 23 }, (_, i) => ({
    id: `D1:${i + 1}`,
    session: 'session_1',
    date: '1:56 pm on 8 May, 2023',
    speaker: i % 2 ? 'Melanie' : 'Caroline',
    text: i === 4 ? 'I adopted a dog named Rex last week' : `small talk number ${i} about the weather`,
    captions: [],
  }));
  const two = [
    {
      id: 'D2:1',
      session: 'session_2',
      date: '9:10 am on 22 May, 2023',
      speaker: 'Caroline',
      text: 'I moved to Berlin for my new job',
      captions: [],
    },
    {
      id: 'D2:2',
      session: 'session_2',
      date: '9:10 am on 22 May, 2023',
      speaker: 'Melanie',
      text: 'Look at this',
      captions: ['a photo of a lake'],
    },
  ];
  return { id, meta: { speakers: ['Caroline', 'Melanie'] }, turns: [...one, ...two] };
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

let server: FakeMemMachine;
let runDir: string;
const start = async (o: FakeMemMachineOptions = {}) => (server = await new FakeMemMachine(o).start());
beforeEach(async () => {
  runDir = mkdtempSync(join(tmpdir(), 'rawrag-memmachine-'));
});
afterEach(async () => server?.close());

const config = (extra: Record<string, unknown> = {}) =>
  RunConfigSchema.parse({ benchmark: 'locomo', system: 'memmachine', memmachine: { url: server.url, ...extra } });
const session = () =>
  new ProviderSession({ noCache: true, timeoutMs: 2000, retry: { maxRetries: 3, baseDelayMs: 2, maxDelayMs: 20 }, env: {} });
const ctx = (cfg: ReturnType<typeof config>): SourceContext => ({ cfg, benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY });
const owner = () => `rawrag-${runTag(runDir)}-conv-x`;

describe('wire formats', () => {
  it("dates an episode as the vendor's helper does, and maps every owner to a distinct valid project id", () => {
    expect(vendorDate('2023-05-08T13:56:00+00:00')).toBe('Monday, May 08, 2023 at 01:56 PM');
    expect(vendorDate('2023-05-22T00:05:09+02:00')).toBe('Monday, May 22, 2023 at 12:05 AM');
    expect(vendorDate('2023-05-22T12:00:00Z')).toBe('Monday, May 22, 2023 at 12:00 PM');
    expect(vendorDate('not a date')).toBe('not a date');
    expect(isoUtc(1683554160)).toBe('2023-05-08T13:56:00+00:00');
    expect(projectIdOf('rawrag-main-1a2b3c4d-conv-26')).toBe('rawrag-main-1a2b3c4d-conv-26');
    const ids = ['rawrag-a.b-1a2b3c4d-conv-26', 'rawrag-a_b-1a2b3c4d-conv-26', 'rawrag-x-1-conv-26~caroline', 'rawrag-x-1-conv-26@40'].map(
      projectIdOf,
    );
    for (const id of ids) expect(id).toMatch(/^[\p{L}\p{N}_:-]+$/u);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('memmachine', () => {
  it("ingests as restapiv2_locomo_ingest.py does, searches as restapiv2_locomo_search.py does, and shows what the vendor's helper shows", async () => {
    // A short-term memory of 300 characters: most episodes are evicted into its summary.
    await start({ stmCapacity: 300 });
    const cfg = config();
    const source = await memmachine.create(cfg, session(), { runDir });
    const opened = await source.open(ep(), ctx(cfg));
    const project = projectIdOf(owner());
    // The reachability probe, then the project, then the adds: 10, 10, 3 (session 1), 2 (session 2).
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/' });
    expect(server.requests[1]!.path).toBe('/api/v2/health');
    expect(server.requests[2]).toMatchObject({ path: '/api/v2/projects', body: { org_id: 'universal', project_id: project } });
    const adds = server.adds();
    expect(adds.map((a) => a.body.messages.length)).toEqual([10, 10, 3, 2]);
    expect(adds.every((a) => a.body.org_id === 'universal' && a.body.project_id === project)).toBe(true);
    expect(adds.every((a) => JSON.stringify(a.body.types) === '["episodic"]')).toBe(true);
    expect(adds[0]!.body.messages[1]).toEqual({
      producer: 'Melanie',
      timestamp: '2023-05-08T13:56:01+00:00',
      content: 'small talk number 1 about the weather',
      metadata: {
        locomo_session_id: 'session_1',
        source_timestamp: '2023-05-08T13:56:01+00:00',
        source_speaker: 'Melanie',
        rawrag_add: 'conv-x#0',
        turn_ids: '["D1:2"]',
        session: 'session_1',
        date: '1:56 pm on 8 May, 2023',
      },
    });
    // Seconds count on within the session across calls; the next session starts again at its own time.
    expect(adds[2]!.body.messages[2].timestamp).toBe('2023-05-08T13:56:22+00:00');
    expect(adds[3]!.body.messages[1]).toMatchObject({
      timestamp: '2023-05-22T09:10:01+00:00',
      content: 'Look at this [Attached a photo of a lake]',
    });

    const q = question('When did Caroline adopt the dog named Rex?', ['D1:5']);
    const item = baseItem(q, 'locomo');
    const evidence = await opened.evidenceFor(q, item, ctx(cfg));
    const search = server.requests.find((r) => r.path === '/api/v2/memories/search')!;
    expect(search.body).toEqual({
      org_id: 'universal',
      project_id: project,
      query: q.text,
      top_k: 50,
      expand_context: 0,
      types: ['episodic'],
    });
    const text = evidence.blocks[0]!.text;
    expect(text).toContain('- [Monday, May 08, 2023 at 01:56 PM] Caroline: I adopted a dog named Rex last week');
    // Long-term episodes first, the short-term ones after them, the summary last.
    const lines = text.split('\n');
    expect(lines.indexOf('- [Monday, May 22, 2023 at 09:10 AM] Melanie: Look at this [Attached a photo of a lake]')).toBeGreaterThan(
      lines.findIndex((l) => l.includes('I adopted a dog')),
    );
    expect(text).toMatch(/\n<WORKING MEMORY SUMMARY>\nEarlier in the conversation: [^\n]+\n<\/WORKING MEMORY SUMMARY>$/);
    // Each episode is one message: its turn is known exactly (rawrag's own record of the add's reply).
    const hits = item.details.service as { owners: Array<{ hits: Array<{ memory: string; turns: string[] }>; appendix?: string }> };
    expect(hits.owners[0]!.appendix).toContain('WORKING MEMORY SUMMARY');
    for (const h of hits.owners[0]!.hits) expect(h.turns).toHaveLength(1);
    expect(hits.owners[0]!.hits.find((h) => h.memory.startsWith('I adopted'))!.turns).toEqual(['D1:5']);
    expect(item.coverage).toEqual({ all: true, any: true });
    expect(source.report!().service).toMatchObject({ acknowledged: { adds: 4, complete: 1, events: { ADD: 25 } }, top_k: 50, batch: 10 });
  });

  it('-S top_k=30 -S expand_context=3 searches as the in-process script does: neighbours come with each match', async () => {
    await start();
    const cfg = config({ top_k: 30, expand_context: 3 });
    const opened = await (await memmachine.create(cfg, session(), { runDir })).open(ep(), ctx(cfg));
    const q = question('adopted dog Rex', ['D1:5']);
    const item = baseItem(q, 'locomo');
    await opened.evidenceFor(q, item, ctx(cfg));
    const search = server.requests.find((r) => r.path === '/api/v2/memories/search')!;
    expect(search.body).toMatchObject({ top_k: 30, expand_context: 3 });
    // The match D1:5 with three episodes either side, all shown.
    for (const t of ['D1:2', 'D1:3', 'D1:4', 'D1:5', 'D1:6', 'D1:7', 'D1:8']) expect(item.evidence_turns).toContain(t);
  });

  it('needs no readiness wait: an episodic add is searchable once acknowledged', async () => {
    await start();
    const cfg = config();
    const source = await memmachine.create(cfg, session(), { runDir });
    const opened = await source.open(ep(), ctx(cfg));
    const q = question('Where did Caroline move for her new job?', ['D2:1']);
    const item = baseItem(q, 'locomo');
    await opened.evidenceFor(q, item, ctx(cfg));
    expect(item.evidence_turns).toContain('D2:1');
    // Nothing but projects, adds and searches went to the server: no flush, no polling.
    expect(new Set(server.requests.map((r) => r.path))).toEqual(
      new Set(['/', '/api/v2/health', '/api/v2/projects', '/api/v2/memories', '/api/v2/memories/list', '/api/v2/memories/search']),
    );
  });

  it("a purge deletes the project (queued); a re-ingest waits until the server's worker has removed it, then creates it again", async () => {
    await start({ deleteDelayMs: 400 });
    const transport = { timeoutMs: 2000, retry: { maxRetries: 2, baseDelayMs: 2, maxDelayMs: 10 }, concurrency: 2, secrets: new Secrets() };
    const service = new MemMachineService(server.url, undefined, transport, { org: 'universal', expandContext: 0, deleteTimeoutMs: 5000 });
    const calls = planEpisode(ep(), 'run', { owners: 'per-episode', batch: 10 }).owners[0]!.calls;
    await service.addOnce(calls[0]!);
    expect((await service.list(calls[0]!.owner)).length).toBe(10);
    await service.deleteOwner(calls[0]!.owner);
    // Marked deleted, its episodes still there until the worker runs.
    expect((await service.list(calls[0]!.owner)).length).toBe(10);
    await service.addOnce(calls[1]!);
    const paths = server.requests.map((r) => `${r.path} ${r.fault ?? ''}`.trim());
    const creates = server.requests.filter((r) => r.path === '/api/v2/projects');
    expect(creates.length).toBeGreaterThanOrEqual(3);
    expect(paths).toContain('/api/v2/projects/get');
    const listed = await service.list(calls[0]!.owner);
    expect(listed.map((m) => m.addKey)).toEqual(Array(10).fill(calls[1]!.key));
    // Deleting a project that does not exist is no error: nothing to delete.
    await service.deleteOwner('rawrag-never-created');
  });

  it('refuses a project that stays in deletion past deleteTimeout, naming the option', async () => {
    await start({ deleteDelayMs: 60_000 });
    const transport = { timeoutMs: 2000, retry: { maxRetries: 1, baseDelayMs: 2, maxDelayMs: 10 }, concurrency: 2, secrets: new Secrets() };
    const service = new MemMachineService(server.url, undefined, transport, { org: 'universal', expandContext: 0, deleteTimeoutMs: 300 });
    const [first, second] = planEpisode(ep(), 'run', { owners: 'per-episode', batch: 10 }).owners[0]!.calls;
    await service.addOnce(first!);
    await service.deleteOwner(first!.owner);
    await expect(service.addOnce(second!)).rejects.toThrow(
      /still being deleted after \d+ s: a delete of this project is still queued.*deleteTimeout/,
    );
  });
});

describe('the loopback server validates requests as the upstream pydantic models do', () => {
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}/api/v2${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('422 for a missing or mistyped field, extra fields ignored, SafeId enforced', async () => {
    await start();
    const bad = await post('/memories', { project_id: 'p', messages: [{ content: 'x', metadata: { turn_ids: ['D1:1'] } }] });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: { message: string } }).detail.message).toMatch(/messages\.0\.metadata\.turn_ids/);
    expect((await post('/memories', { project_id: 'p', messages: [{ producer: 'A' }] })).status).toBe(422);
    expect((await post('/memories', { project_id: 'p', messages: [] })).status).toBe(422);
    expect((await post('/memories', { project_id: 'has~tilde', messages: [{ content: 'x' }] })).status).toBe(422);
    expect((await post('/memories', { project_id: 'p', messages: [{ content: 'x', timestamp: 'yesterday' }] })).status).toBe(422);
    expect((await post('/memories', { project_id: 'p', messages: [{ content: 'x', mood: 'extra' }], also: 'extra' })).status).toBe(200);
    expect((await post('/memories/search', { project_id: 'p' })).status).toBe(422);
    expect((await post('/projects', { org_id: 'o' })).status).toBe(422);
    expect((await post('/projects', { org_id: 'o', project_id: 'q' })).status).toBe(201);
    expect((await post('/projects', { org_id: 'o', project_id: 'q' })).status).toBe(409);
    expect((await post('/projects/delete', { org_id: 'o', project_id: 'nope' })).status).toBe(404);
  });
});
