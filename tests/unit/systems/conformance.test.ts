/**
 * The contract every registered system keeps, checked in process against one loopback
 * OpenAI-compatible server (embeddings, extraction, reader, judge): it opens episodes and answers
 * questions with evidence that maps to real source turns, reports what its calls cost, resumes
 * without sending anything again, and never shows a turn the question cannot see (MEME's
 * visibility horizons). A system added to the registry without a fixture here fails the suite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeExtractor, isExtractionRequest } from '../../helpers/fake-extractor.js';
import { isIngestRequest, withIngest } from '../../helpers/fake-ingest.js';
import type { RecordedRequest } from '../../helpers/fake-api.js';
import { FakeMem0 } from '../../helpers/fake-mem0.js';
import { FakeMemMachine } from '../../helpers/fake-memmachine.js';
import { FakeMemos } from '../../helpers/fake-memos.js';
import { FakeEverMemos } from '../../helpers/fake-evermemos.js';
import { FakeMemuCloud } from '../../helpers/fake-memu.js';
import { FakeZepCloud } from '../../helpers/fake-zep.js';
import { FakeSupermemory } from '../../helpers/fake-supermemory.js';
import { FakeLetta } from '../../helpers/fake-letta.js';
// @ts-expect-error a plain .mjs example without type declarations
import { startShim } from '../../../docs/examples/memory-shim.mjs';
import { tempDir } from '../../helpers/cli.js';
import { SidecarPeer } from '../../helpers/sidecar-peer.js';
import { listSystems, RunConfigSchema } from '../../../src/systems/registry.js';
import { executeRun } from '../../../src/pipeline/run.js';
import { loadRunInputs } from '../../../src/pipeline/plan.js';
import { RunDir } from '../../../src/run-files/run-dir.js';
import { fromRoot } from '../../../src/util/paths.js';
import type { TransportOptions } from '../../../src/providers/transport.js';

// The memory services run against their loopback peers: a Mem0 server, and the documented protocol shim.
const mem0Server = await new FakeMem0().start();
const SIDECAR_SYSTEMS = ['simplemem', 'nemori', 'memoryos', 'a-mem', 'recmem', 'emem', 'cognee', 'langmem'];
const shim: Server = await startShim(0);
const memmachineServer = await new FakeMemMachine().start();
const memosServer = await new FakeMemos().start();
const evermemosServer = await new FakeEverMemos().start();
const memuServer = await new FakeMemuCloud({ key: 'memu-test-conformance' }).start();
// The hosted APIs beyond the paper's twelve (Zep's open-source engine runs in the real-library tier).
const zepServer = await new FakeZepCloud({ key: 'zep-test-conformance' }).start();
const supermemoryServer = await new FakeSupermemory({ key: 'sm-test-conformance' }).start();
// Letta's V1 server's REST API (its real server runs in the real-library tier).
const lettaServer = await new FakeLetta().start();
// The sidecar systems run against their sidecars in front of their libraries' stand-ins (tests/helpers/sidecar-peer.ts).
const sidecars = await Promise.all(SIDECAR_SYSTEMS.map((name) => new SidecarPeer(name).start()));

/** Per system: the config that runs it here (a system's own section, the retriever it embeds with). */
const FIXTURES: Record<string, Record<string, unknown>> = {
  'raw-rag': {},
  'agentic-memory': { retrieval: { retriever: 'openai' } },
  'raw-rag-facts': {},
  'raw-rag-summaries': {},
  'raw-rag-graph': {},
  mem0: { mem0: { url: mem0Server.url } },
  http: { http: { url: `http://127.0.0.1:${(shim.address() as AddressInfo).port}` } },
  memmachine: { memmachine: { url: memmachineServer.url } },
  memos: { memos: { url: memosServer.url } },
  evermemos: { evermemos: { url: evermemosServer.url } },
  // MemU's hosted API (its key from MEMU_API_KEY below), its tasks polled every 10 ms here.
  memu: { memu: { url: memuServer.url, poll_interval: 0.01, lost_wait: 1 } },
  zep: { zep: { api: 'cloud', url: `${zepServer.url}/api/v2` } },
  supermemory: { supermemory: { url: supermemoryServer.url } },
  letta: { letta: { url: lettaServer.url } },
  // Evidence chosen with gold knowledge from the raw history.
  'store-oracle': { oracle: { store: 'raw' } },
  ...Object.fromEntries(SIDECAR_SYSTEMS.map((name, i) => [name, { [name]: { url: sidecars[i]!.url } }])),
};

const MEME = fromRoot('tests', 'fixtures', 'meme', 'meme_fixture.json');
const LONGMEMEVAL = fromRoot('tests', 'fixtures', 'longmemeval', 'longmemeval_oracle.sample.json');
const quiet = { log: () => {} };
let server: FakeExtractor;
let transport: Partial<TransportOptions>;
let root: string;

beforeAll(async () => {
  // The RAW-RAG variants' ingest LLM is scripted too (tests/helpers/fake-ingest.ts).
  server = await new FakeExtractor({ chat: withIngest() }).start();
  root = tempDir();
  transport = {
    cacheDir: join(root, 'cache'),
    env: {
      OPENAI_API_KEY: 'sk-test-conformance',
      OPENAI_BASE_URL: `${server.url}/v1`,
      COHERE_API_KEY: 'co-test',
      COHERE_BASE_URL: server.url,
      RAWRAG_RETRY_BASE_MS: '1',
      MEMU_API_KEY: 'memu-test-conformance',
      ZEP_API_KEY: 'zep-test-conformance',
      SUPERMEMORY_API_KEY: 'sm-test-conformance',
    },
  };
});
afterAll(async () => {
  await server.close();
  await mem0Server.close();
  await memmachineServer.close();
  await memosServer.close();
  await evermemosServer.close();
  await memuServer.close();
  await zepServer.close();
  await supermemoryServer.close();
  await lettaServer.close();
  await Promise.all(sidecars.map((p) => p.close()));
  shim.close();
});

it('every registered system has a conformance fixture', () => {
  expect(
    listSystems()
      .map((s) => s.name)
      .filter((n) => !(n in FIXTURES)),
  ).toEqual([]);
});

describe.each(Object.keys(FIXTURES))('system %s', (name) => {
  const cfgOf = (benchmark: string, extra: Record<string, unknown> = {}) =>
    RunConfigSchema.parse({ benchmark, system: name, reader: { model: 'gpt-4o-mini' }, ...FIXTURES[name], ...extra });

  it('answers with evidence that maps to source turns, reports its cost, and resumes without sending anything', async () => {
    // LongMemEval's oracle histories (a few sessions each): every service's LoCoMo run, a whole
    // conversation ingested, is the memory-service conformance suite's (tests/e2e/memory-services.test.ts).
    const cfg = cfgOf('longmemeval', { data: LONGMEMEVAL, limit: 5 });
    const out = join(root, name, 'longmemeval');
    const run = await executeRun({ cfg, out, transport }, quiet);
    expect(run.manifest.status).toBe('complete');
    const { dataset } = await loadRunInputs(cfg);
    const turnIds = new Set(dataset.episodes.flatMap((e) => e.turns.map((t) => t.id)));
    const items = new RunDir(out).readItems();
    expect(items).toHaveLength(5);
    for (const item of items) {
      expect(item.error).toBeNull();
      expect(item.answer).not.toBeNull();
      expect(item.score).not.toBeNull();
      for (const t of item.evidence_turns) expect(turnIds.has(t), `${item.id}: ${t}`).toBe(true);
      // Coverage is computed from the turns shown wherever the question has gold evidence (absent, never 0 %, for a system that cannot map memories to turns).
      if (noCoverage(run.summary)) expect(item.coverage).toBeNull();
      else expect(item.coverage).not.toBeNull();
      expect(item.details.reader).toMatchObject({ model: 'gpt-4o-mini' });
    }
    // Every reader and judge call is accounted for, sent or answered by the cache (the same judge
    // request as another system's is a cache hit), with its cost known from the registry prices.
    const usage = (run.summary as { usage?: Record<string, { requests: number; cache_hits: number; cost_usd_spent: number | null }> })
      .usage;
    for (const role of ['reader', 'judge']) {
      const u = usage?.[role];
      expect(u, `${role}: ${JSON.stringify(usage)}`).toBeDefined();
      expect(u!.requests + u!.cache_hits).toBeGreaterThan(0);
      expect(u!.cost_usd_spent).not.toBeNull();
    }

    const sent = server.api.requests.length;
    const again = await executeRun({ cfg, out, transport }, quiet);
    expect(again.manifest.status).toBe('complete');
    expect(server.api.requests.length).toBe(sent);
  });

  it("charges each question its own episode's ingest work: the items' ingest requests add up to what was sent", async () => {
    // Questions of several episodes, so episodes are built concurrently, on a cache of its own (every call sent):
    // LongMemEval's oracle histories, a few sessions each (LoCoMo's would ingest four whole conversations per system).
    const cfg = cfgOf('longmemeval', { data: LONGMEMEVAL, limit: 3 });
    const out = join(root, name, 'longmemeval-episodes');
    const isIngest = (r: RecordedRequest) => isExtractionRequest(r) || isIngestRequest(r);
    const before = server.api.requests.filter(isIngest).length;
    const run = await executeRun({ cfg, out, transport: { ...transport, cacheDir: join(root, name, 'cache-episodes') } }, quiet);
    expect(run.manifest.status).toBe('complete');
    const sent = server.api.requests.filter(isIngest).length - before;
    const items = new RunDir(out).readItems();
    expect(new Set(items.map((i) => i.episode)).size).toBeGreaterThan(1);
    const charged = items.reduce(
      (s, i) => s + Object.entries(i.timings).reduce((t, [k, v]) => t + (/^ingest_.*requests$/.test(k) ? v : 0), 0),
      0,
    );
    expect(charged).toBeCloseTo(sent, 1);
  });

  it('shows no turn beyond the question’s visibility horizon (MEME)', async () => {
    // No judge: the loopback's default reply is no MEME verdict, and the horizon is about what the reader is shown.
    // The first episode's first six questions: five see its first 52 turns of 61, one all of them.
    const cfg = cfgOf('meme', { data: MEME, judge: { model: 'none' }, limit: 6 });
    const out = join(root, name, 'meme');
    const run = await executeRun({ cfg, out, transport }, quiet);
    expect(run.manifest.status).toBe('complete');
    const { dataset, questions } = await loadRunInputs(cfg);
    const turnsOf = (q: (typeof questions)[number]) => dataset.episodes.find((e) => e.id === q.episode)!.turns.length;
    expect(questions.some((q) => q.visibleTurns != null && q.visibleTurns < turnsOf(q))).toBe(true);
    const items = new Map(new RunDir(out).readItems().map((i) => [i.id, i]));
    let checked = 0;
    // A system that cannot map memories to turns shows none: what its service was given must stay within each owner's horizon.
    if (noCoverage(run.summary)) checked += givenWithinHorizons(out, dataset);
    for (const q of questions) {
      const ep = dataset.episodes.find((e) => e.id === q.episode)!;
      const visible = new Set(ep.turns.slice(0, q.visibleTurns ?? ep.turns.length).map((t) => t.id));
      const item = items.get(q.id)!;
      for (const t of item.evidence_turns) expect(visible.has(t), `${q.id} shows ${t}`).toBe(true);
      checked += item.evidence_turns.length;
    }
    expect(checked).toBeGreaterThan(0);
  });
});

/** The run's service says it cannot map memories to turns (coverage absent). */
function noCoverage(summary: unknown): boolean {
  return Boolean((summary as { service?: { no_coverage?: string } }).service?.no_coverage);
}

/** Turns a memory service was given (its ingest log), each checked to lie within its owner's visibility horizon (`@<turns>`). */
function givenWithinHorizons(runDir: string, dataset: { episodes: Array<{ id: string; turns: Array<{ id: string }> }> }): number {
  let n = 0;
  for (const line of readFileSync(join(runDir, 'service-ingest.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())) {
    const l = JSON.parse(line) as { type: string; owner: string; episode: string; turns?: string[] };
    if (l.type !== 'add') continue;
    const ep = dataset.episodes.find((e) => e.id === l.episode)!;
    const horizon = Number(/@(\d+)$/.exec(l.owner)?.[1] ?? ep.turns.length);
    const visible = new Set(ep.turns.slice(0, horizon).map((t) => t.id));
    for (const t of l.turns ?? []) expect(visible.has(t), `${l.owner} was given ${t}`).toBe(true);
    n += l.turns?.length ?? 0;
  }
  return n;
}
