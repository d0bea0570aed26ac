/**
 * Mem0's own library (mem0ai, behind integrations/sidecars/mem0.py's REST routes), installed by
 * `rawrag systems install mem0` and started for you by `rawrag run`: LoCoMo through the CLI against
 * the loopback API, Mem0's own extraction prompts answered there as Mem0 parses them, what the
 * library stored and returned checked, then `rawrag memory purge` empties it. Then the loopback
 * stand-in (tests/helpers/fake-mem0.ts, what the rest of the suite runs Mem0 against) and the real
 * library are sent the same calls, and their replies compared where rawrag reads them.
 */
import { describe, expect } from 'vitest';
import { FakeMem0 } from '../helpers/fake-mem0.js';
import { realLibrary } from './real-library.js';

const real = realLibrary('mem0');

async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status, `${method} ${path}`).toBe(200);
  return res.json();
}

/** The calls rawrag's mem0 client makes (src/systems/mem0/client.ts), in order: an add, searches, the lost-add lookup, a listing, a delete. */
async function sameCalls(url: string, owner: string) {
  const messages = [
    { role: 'user', content: 'Caroline: I adopted a dog named Rex' },
    { role: 'assistant', content: 'Melanie: Rex is a lovely dog name' },
  ];
  const metadata = { rawrag_add: `${owner}#0`, timestamp: '1:56 pm on 8 May, 2023' };
  const add = await call(url, 'POST', '/memories', { messages, user_id: owner, metadata });
  const search = await call(url, 'POST', '/search', {
    query: 'Caroline: I adopted a dog named Rex',
    filters: { user_id: owner },
    top_k: 30,
  });
  const none = await call(url, 'POST', '/search', { query: 'anything at all', filters: { user_id: `${owner}-none` }, top_k: 30 });
  const lookup = await call(url, 'POST', '/search', {
    query: 'Rex',
    filters: { user_id: owner, rawrag_add: `${owner}#0` },
    top_k: 100,
    threshold: 0,
  });
  const list = await call(url, 'GET', `/memories?user_id=${encodeURIComponent(owner)}&top_k=1000`);
  await call(url, 'DELETE', `/memories?user_id=${encodeURIComponent(owner)}`);
  const after = await call(url, 'GET', `/memories?user_id=${encodeURIComponent(owner)}&top_k=1000`);
  return { add, search, none, lookup, list, after };
}

describe('mem0: the real mem0ai library', () => {
  real.test('rawrag run locomo --system mem0 --reader gpt-4o-mini --limit 20: 0 errors, stored by Mem0, purged', async () => {
    const run = await real.runLocomo({ limit: 20 });
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(run.manifest.status).toBe('complete');
    expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
    expect(run.items.filter((i) => i.error)).toEqual([]);
    // The run records the library it started: name, version, where it came from.
    expect(run.manifest.retriever.library).toMatchObject({ name: 'mem0ai', version: '2.2.1', source: 'package index (mem0ai==2.2.1)' });
    expect(run.result.stderr).toMatch(/started for you: mem0ai 2\.2\.1/);

    // Mem0's own additive extraction prompt reached the loopback API, asking for JSON.
    const extractions = real.api.answeredBy('mem0');
    expect(extractions.length).toBeGreaterThan(100);
    expect(extractions[0]!.body.response_format).toEqual({ type: 'json_object' });
    expect(extractions[0]!.body.messages[0].content).toContain('You are a Memory Extractor');
    expect(extractions[0]!.body.model).toBe('gpt-4o-mini');
    // Its embedder asked for text-embedding-3-small (no `dimensions`: the library's default).
    const embeds = real.api.byPath('/v1/embeddings');
    expect(embeds.length).toBeGreaterThan(0);
    expect(embeds[0]!.body.model).toBe('text-embedding-3-small');

    // What the library stored: its own get_all, through the REST route, with rawrag's metadata kept.
    const owners: string[] = [...new Set(run.items.map((i) => i.episode as string))];
    expect(owners).toEqual(['conv-26']);
    const shown = await real.cli(['memory', 'show', run.dir, '--json']);
    const ownerIds = (JSON.parse(shown.stdout) as Array<{ owner: string }>).map((o) => o.owner);
    expect(ownerIds).toHaveLength(2);
    const stored = await real.withStarted(async (url) =>
      Promise.all(
        ownerIds.map(
          async (o) => ((await (await fetch(`${url}/memories?user_id=${encodeURIComponent(o)}&top_k=1000`)).json()) as any).results,
        ),
      ),
    );
    for (const memories of stored) {
      expect(memories.length).toBeGreaterThan(300);
      expect(memories[0].metadata.rawrag_add).toMatch(/^conv-26~/);
      expect(memories[0].user_id).toMatch(/conv-26~/);
    }
    const texts = new Set(stored.flat().map((m: any) => m.memory as string));
    expect(texts.has('Caroline: Hey Mel! Good to see you! How have you been?')).toBe(true);

    // What it returned: searches gave memories whose turns are the evidence the reader was shown.
    expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBeGreaterThan(15);
    const readerAsks = real.api.byPath('/v1/chat/completions').filter((r) => JSON.stringify(r.body.messages).includes('# Question'));
    expect(readerAsks.length).toBe(20);
    expect(readerAsks.some((r) => [...texts].some((t) => JSON.stringify(r.body.messages).includes(t.slice(0, 40))))).toBe(true);

    // rawrag memory purge empties the library's store (started again for the purge).
    const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
    expect(purge.code, purge.stderr).toBe(0);
    expect(purge.stdout.match(/verified, 0 memories left/g)).toHaveLength(2);
    const left = await real.withStarted(async (url) =>
      Promise.all(
        ownerIds.map(async (o) => ((await (await fetch(`${url}/memories?user_id=${encodeURIComponent(o)}`)).json()) as any).results.length),
      ),
    );
    expect(left).toEqual([0, 0]);
  });

  real.test('the loopback stand-in answers the same calls as the real library, where rawrag reads them', async () => {
    const fake = await new FakeMem0().start();
    try {
      const stand = await sameCalls(fake.url, 'cmp-owner');
      const got = await real.withStarted((url) => sameCalls(url, 'cmp-owner'));
      for (const [who, r] of [
        ['stand-in', stand],
        ['mem0ai', got],
      ] as const) {
        // add (2.x, additive): one ADD per message, its text as the memory.
        expect(
          r.add.results.map((e: any) => [e.event, e.memory]),
          who,
        ).toEqual([
          ['ADD', 'Caroline: I adopted a dog named Rex'],
          ['ADD', 'Melanie: Rex is a lovely dog name'],
        ]);
        for (const e of r.add.results) expect(typeof e.id, who).toBe('string');
        // search: the memory the query repeats first, scored, with the add's metadata.
        expect(r.search.results[0], who).toMatchObject({
          memory: 'Caroline: I adopted a dog named Rex',
          metadata: { rawrag_add: 'cmp-owner#0' },
        });
        expect(typeof r.search.results[0].score, who).toBe('number');
        // nothing for an unknown owner; the lost-add lookup (metadata filter, threshold 0) finds both.
        expect(r.none.results, who).toEqual([]);
        expect(r.lookup.results.map((m: any) => m.memory).sort(), who).toEqual([
          'Caroline: I adopted a dog named Rex',
          'Melanie: Rex is a lovely dog name',
        ]);
        // listing: both, each with its owner and the add's metadata; after the delete, none.
        expect(r.list.results.map((m: any) => [m.memory, m.user_id, m.metadata.rawrag_add]).sort(), who).toEqual([
          ['Caroline: I adopted a dog named Rex', 'cmp-owner', 'cmp-owner#0'],
          ['Melanie: Rex is a lovely dog name', 'cmp-owner', 'cmp-owner#0'],
        ]);
        expect(r.after.results, who).toEqual([]);
      }
    } finally {
      await fake.close();
    }
  });
});
