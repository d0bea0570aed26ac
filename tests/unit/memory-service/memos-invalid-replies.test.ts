/**
 * Issue 42, item 1, for MemOS: a 200 reply that is empty, `null`, carries another message than the
 * call's success message, or lacks its list (an add's `data`, a search's `data.text_mem`) is a broken
 * reply, retried like a 5xx (an add first looked for on the service), so the item succeeds; an empty
 * list is valid. Against the loopback MemOS (tests/helpers/fake-memos.ts), requests over HTTP.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeMemos } from '../../helpers/fake-memos.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { memos } from '../../../src/systems/memos/index.js';
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

let server: FakeMemos;
let runDir: string;
beforeEach(() => {
  runDir = mkdtempSync(join(tmpdir(), 'rawrag-memos-invalid-'));
});
afterEach(async () => server.close());

const session = (env: Record<string, string> = {}) =>
  new ProviderSession({ noCache: true, timeoutMs: 2000, retry: { maxRetries: 3, baseDelayMs: 2, maxDelayMs: 20 }, env });

async function answer() {
  const cfg = RunConfigSchema.parse({ benchmark: 'locomo', system: 'memos', memos: { url: server.url, owners: 'per-episode', top_k: 10 } });
  const ctx: SourceContext = { cfg, benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY };
  const source = await memos.create(cfg, session(), { runDir });
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
  ['a reply with another message', '{"code":200,"message":"ok","data":[]}'],
];
/** Each call's success message, with its list left out: a missing field. */
const MISSING: Record<string, string> = {
  '/product/add': '{"code":200,"message":"Memory added successfully","data":null}',
  '/product/search': '{"code":200,"message":"Search completed successfully","data":{"pref_string":""}}',
};

describe('MemOS server API: a broken 200 reply is retried like a 5xx (issue 42 item 1)', () => {
  beforeEach(async () => {
    server = await new FakeMemos().start();
  });

  it.each([...BROKEN, ['a reply without its data list', MISSING['/product/add']!]])(
    '%s once on an add: the add is sent again (after looking for it), the episode indexes',
    async (_, body) => {
      once200(body, (r) => r.path === '/product/add');
      const { item, evidence } = await answer();
      expect(server.requests.filter((r) => r.path === '/product/add').map((r) => r.fault)).toEqual(['status 200', null, null]);
      // The lost add was looked for on the service (a listing) before it was sent again, and written once.
      expect(server.requests.some((r) => r.path === '/product/get_memory')).toBe(true);
      expect(server.appliedTwice()).toEqual([]);
      expect(server.applied).toHaveLength(2);
      expect(item.error ?? null).toBeNull();
      expect(evidence.blocks.map((b) => b.text).join('\n')).toContain('Berlin');
    },
  );

  it.each([...BROKEN, ['a reply without data.text_mem', MISSING['/product/search']!]])(
    '%s once on a search: searched again, the item succeeds',
    async (_, body) => {
      once200(body, (r) => r.path === '/product/search');
      const { item, evidence } = await answer();
      expect(server.requests.filter((r) => r.path === '/product/search').map((r) => r.fault)).toEqual(['status 200', null]);
      expect(item.error ?? null).toBeNull();
      expect(evidence.blocks.map((b) => b.text).join('\n')).toContain('Berlin');
    },
  );

  it('an empty text_mem list is a valid search: not retried', async () => {
    once200('{"code":200,"message":"Search completed successfully","data":{"text_mem":[],"pref_string":""}}', (r) => r.path === '/product/search');
    const { item, evidence } = await answer();
    expect(server.requests.filter((r) => r.path === '/product/search')).toHaveLength(1);
    expect(item.error ?? null).toBeNull();
    expect(evidence.blocks.map((b) => b.text).join('\n')).not.toContain('Berlin');
  });

  it('an empty memory list is a valid add (nothing extracted): not retried', async () => {
    once200('{"code":200,"message":"Memory added successfully","data":[]}', (r) => r.path === '/product/add');
    await answer();
    expect(server.requests.filter((r) => r.path === '/product/add').map((r) => r.fault)).toEqual(['status 200', null]);
  });
});
