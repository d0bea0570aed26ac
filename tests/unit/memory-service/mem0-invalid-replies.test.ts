/**
 * Issue 42, item 1: a Mem0 reply that is empty, `null`, or lacks its list on add or search is a
 * broken reply, retried like a 5xx (an add first looked for on the service), so the item succeeds;
 * an empty results list is a valid search. Against the loopback Mem0 (tests/helpers/fake-mem0.ts),
 * requests over HTTP.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
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
import type { RecordedRequest } from '../../helpers/loopback-server.js';

const EPISODE: Episode = {
  id: 'conv-x',
  meta: { speakers: ['Caroline', 'Melanie'] },
  turns: [
    { id: 'D1:1', session: '1', date: '1:56 pm on 8 May, 2023', speaker: 'Caroline', text: 'I adopted a dog named Rex', captions: [] },
    { id: 'D1:2', session: '1', date: '1:56 pm on 8 May, 2023', speaker: 'Melanie', text: 'Rex sounds lovely', captions: [] },
    { id: 'D2:1', session: '2', date: '2:00 pm on 15 May, 2023', speaker: 'Caroline', text: 'I live in Berlin now', captions: [] },
    { id: 'D2:2', session: '2', date: '2:00 pm on 15 May, 2023', speaker: 'Melanie', text: 'Berlin is cold', captions: [] },
  ],
};
const ep = (): IngestedEpisode =>
  ingest(
    EPISODE,
    EPISODE.turns.length,
    { ...DEFAULT_POLICY, chunking: 'turn', serialisation: 'plain' },
    { tokenizer: 'cl100k_base', size: 256, stride: 224 },
  );
const QUESTION: Question = {
  id: 'conv-x:q0',
  episode: 'conv-x',
  type: 'single-hop',
  typeId: 1,
  text: 'Where does Caroline live?',
  gold: 'Berlin',
  acceptable: ['Berlin'],
  questionDate: null,
  evidence: ['D2:1'],
  options: null,
  visibleTurns: null,
};

let server: FakeMem0;
let runDir: string;
beforeEach(() => {
  runDir = mkdtempSync(join(tmpdir(), 'rawrag-mem0-invalid-'));
});
afterEach(async () => server.close());

const session = (env: Record<string, string> = {}) =>
  new ProviderSession({ noCache: true, timeoutMs: 2000, retry: { maxRetries: 3, baseDelayMs: 2, maxDelayMs: 20 }, env });

async function answer(api: 'oss' | 'platform', env: Record<string, string> = {}) {
  const cfg = RunConfigSchema.parse({
    benchmark: 'locomo',
    system: 'mem0',
    mem0: { url: server.url, api, owners: 'per-episode', top_k: 10 },
  });
  const ctx: SourceContext = { cfg, benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY };
  const source = await mem0.create(cfg, session(env), { runDir });
  const opened = await source.open(ep(), ctx);
  const item = baseItem(QUESTION, 'locomo');
  const evidence = await opened.evidenceFor(QUESTION, item, ctx);
  return { item, evidence };
}

/** A 200 with this body, once, for the matching request. */
const once200 = (body: string, match: (r: RecordedRequest) => boolean) =>
  server.inject({ kind: 'status', status: 200, headers: { 'content-type': 'application/json' }, body, match });

const BROKEN: Array<[string, string]> = [
  ['an empty body', ''],
  ['null', 'null'],
  ['a reply missing its results list', '{"message":"ok"}'],
];

describe('Mem0 open-source server: a broken 200 reply is retried like a 5xx', () => {
  beforeEach(async () => {
    server = await new FakeMem0().start();
  });

  it.each(BROKEN)('%s once on an add: the add is sent again (after looking for it), the episode indexes', async (_, body) => {
    once200(body, (r) => r.path === '/memories' && r.method === 'POST');
    const { item, evidence } = await answer('oss');
    expect(server.adds().map((r) => r.fault)).toEqual(['status 200', null, null]);
    expect(server.performed).toEqual(['conv-x#0', 'conv-x#1']);
    expect(item.error ?? null).toBeNull();
    expect(evidence.blocks.map((b) => b.text).join('\n')).toContain('Berlin');
  });

  it.each(BROKEN)('%s once on a search: searched again, the item succeeds', async (_, body) => {
    once200(body, (r) => r.path === '/search');
    const { item, evidence } = await answer('oss');
    expect(server.requests.filter((r) => r.path === '/search').map((r) => r.fault)).toEqual(['status 200', null]);
    expect(item.error ?? null).toBeNull();
    expect(evidence.blocks.map((b) => b.text).join('\n')).toContain('Berlin');
  });

  it('an empty results list is a valid search: not retried', async () => {
    once200('{"results":[]}', (r) => r.path === '/search');
    const { evidence } = await answer('oss');
    expect(server.requests.filter((r) => r.path === '/search')).toHaveLength(1);
    expect(evidence.blocks.map((b) => b.text).join('\n')).not.toContain('Berlin');
  });
});

describe('Mem0 platform: a broken 200 reply is retried like a 5xx', () => {
  const KEY = { MEM0_API_KEY: 'm0-platform-key-abcdef' };
  beforeEach(async () => {
    server = await new FakeMem0({ apiKey: KEY.MEM0_API_KEY, eventPolls: 1 }).start();
  });

  it.each(BROKEN)('%s once on an add and once on a search: the item succeeds', async (_, body) => {
    once200(body, (r) => r.path === '/v3/memories/add/');
    once200(body, (r) => r.path === '/v3/memories/search/');
    const { item, evidence } = await answer('platform', KEY);
    expect(server.adds().map((r) => r.fault)).toEqual(['status 200', null, null]);
    expect(server.requests.filter((r) => r.path === '/v3/memories/search/').map((r) => r.fault)).toEqual(['status 200', null]);
    expect(item.error ?? null).toBeNull();
    expect(evidence.blocks.map((b) => b.text).join('\n')).toContain('Berlin');
  });
});
