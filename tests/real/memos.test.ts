/**
 * MemOS's own API server (MemoryOS, memos.api.server_api:app behind integrations/sidecars/memos.py),
 * installed by `rawrag systems install memos` and started for you by `rawrag run`: LoCoMo through the
 * CLI against the loopback API, MemOS's own extraction prompt answered there as MemOS parses it, what
 * the server stored and returned checked, then `rawrag memory purge` empties it. Then the loopback
 * stand-in (tests/helpers/fake-memos.ts) and the real server are sent the same calls, and their
 * replies compared where rawrag reads them.
 */
import { describe, expect } from 'vitest';
import { FakeMemos } from '../helpers/fake-memos.js';
import { realLibrary } from './real-library.js';

const real = realLibrary('memos');

const post = async (url: string, path: string, body: unknown) =>
  (await (await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as any;
const listing = (url: string, owner: string) =>
  post(url, '/product/get_memory', { mem_cube_id: owner, user_id: owner, include_tool_memory: false, include_skill_memory: false, page: 1, page_size: 2 });

/** The same calls, in order: an add (sync), a search that finds it, one for an unknown owner, a listing, a delete by user. */
async function sameCalls(url: string, owner: string) {
  const messages = [
    { role: 'user', content: 'Caroline: I adopted a dog named Rex', chat_time: '2023-05-08T13:56:00+00:00' },
    { role: 'assistant', content: 'Melanie: Rex is a lovely dog name', chat_time: '2023-05-08T13:56:00+00:00' },
  ];
  const add = await post(url, '/product/add', { user_id: owner, mem_cube_id: owner, async_mode: 'sync', info: { rawrag_add: `${owner}#0` }, messages });
  const search = await post(url, '/product/search', {
    query: 'Caroline: I adopted a dog named Rex',
    user_id: owner,
    mem_cube_id: owner,
    top_k: 20,
    mode: 'fast',
    include_preference: true,
    pref_top_k: 6,
  });
  const none = await post(url, '/product/search', { query: 'anything at all', user_id: `${owner}-none`, mem_cube_id: `${owner}-none`, top_k: 20 });
  const list = await listing(url, owner);
  const del = await post(url, '/product/delete_memory', { user_id: owner, writable_cube_ids: [owner] });
  const after = await listing(url, owner);
  return { add, search, none, list, del, after };
}

describe('memos: MemOS’s own API server (MemoryOS)', () => {
  real.test('rawrag run locomo --system memos --reader gpt-4o-mini --limit 20: 0 errors, stored by MemOS, purged', async () => {
    // The loopback API's embeddings are not semantic: few question-memory pairs reach MemOS's default
    // 0.45 relativity (a fresh install here answered none), so the run sets a low one (-S relativity).
    const run = await real.runLocomo({ limit: 20, args: ['-S', 'relativity=0.05'] });
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(run.manifest.status).toBe('complete');
    expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
    expect(run.items.filter((i) => i.error)).toEqual([]);
    expect(run.manifest.retriever.library).toMatchObject({ name: 'MemoryOS', version: '2.0.32', script: 'integrations/sidecars/memos.py' });
    expect(run.manifest.retriever.library.source).toMatch(/^package index \(MemoryOS\[tree-mem,mem-reader,mem-scheduler\]==2\.0\.32 /);
    expect(run.result.stderr).toMatch(/started for you: MemoryOS 2\.0\.32/);

    // MemOS's own extraction prompt reached the loopback API (one per add: 2 speakers x 214 adds), its embedder too.
    const extractions = real.api.answeredBy('memos');
    expect(extractions.length).toBeGreaterThanOrEqual(400);
    expect(extractions[0]!.body.messages[0].content).toMatch(/^You are a memory extraction expert\./);
    expect(extractions[0]!.body.model).toBe('gpt-4o-mini');
    const embeds = real.api.byPath('/v1/embeddings');
    expect(embeds.length).toBeGreaterThan(400);
    expect(embeds[0]!.body.model).toBe('text-embedding-3-small');

    // What the server stored, through its own listing: the extracted memories, rawrag's metadata kept in info.
    const shown = await real.cli(['memory', 'show', run.dir, '--json']);
    const owners = (JSON.parse(shown.stdout) as Array<{ owner: string }>).map((o) => o.owner);
    expect(owners).toHaveLength(2);
    const stored = await real.withStarted(async (url) => Promise.all(owners.map((o) => listing(url, o))));
    for (const reply of stored) {
      expect(reply.message).toBe('Memories retrieved successfully');
      const nodes = reply.data.text_mem[0].memories as any[];
      // One memory per turn (the responder's extraction), every turn of conv-26 in each speaker's store.
      expect(nodes.length).toBe(419);
      expect(nodes[0].metadata.info.rawrag_add).toMatch(/^conv-26~/);
      expect(['UserMemory', 'LongTermMemory']).toContain(nodes[0].metadata.memory_type);
    }
    const texts = new Set(stored.flatMap((r) => (r.data.text_mem[0].memories as any[]).map((m) => m.memory as string)));
    expect(texts.has('Caroline: Hey Mel! Good to see you! How have you been?')).toBe(true);

    // What it returned: the reader was asked 20 times; a search passing MemOS's 0.45 relativity gave evidence.
    const readerAsks = real.api.byPath('/v1/chat/completions').filter((r) => JSON.stringify(r.body.messages).includes('# Question'));
    expect(readerAsks.length).toBe(20);
    expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBeGreaterThan(0);

    // rawrag memory purge empties the server's store (started again for the purge).
    const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
    expect(purge.code, purge.stderr).toBe(0);
    expect(purge.stdout.match(/verified, 0 memories left/g)).toHaveLength(2);
    const left = await real.withStarted(async (url) => Promise.all(owners.map(async (o) => (await listing(url, o)).data.text_mem[0].memories.length)));
    expect(left).toEqual([0, 0]);
  });

  real.test('the loopback stand-in answers the same calls as the real server, where rawrag reads them', async () => {
    const fake = await new FakeMemos().start();
    try {
      const stand = await sameCalls(fake.url, 'cmp-owner');
      const got = await real.withStarted((url) => sameCalls(url, 'cmp-owner'));
      for (const r of [stand, got]) {
        // add (sync): the extracted memories, one per message here.
        expect(r.add.message).toBe('Memory added successfully');
        expect(r.add.data.map((d: any) => Object.keys(d).sort())).toEqual([
          ['cube_id', 'memory', 'memory_id', 'memory_type'],
          ['cube_id', 'memory', 'memory_id', 'memory_type'],
        ]);
        expect(r.add.data.map((d: any) => d.memory_type)).toEqual(['UserMemory', 'LongTermMemory']);
        // search: one text_mem group of nodes {id, memory, metadata{relativity, info}}; no pref_string without preferences.
        expect(Object.keys(r.search.data).sort()).toEqual(['act_mem', 'para_mem', 'pref_mem', 'pref_note', 'skill_mem', 'text_mem', 'tool_mem']);
        const hit = r.search.data.text_mem[0].memories[0];
        expect(hit.memory).toBe('Caroline: I adopted a dog named Rex');
        expect(typeof hit.metadata.relativity).toBe('number');
        expect(hit.metadata.info).toEqual({ rawrag_add: 'cmp-owner#0' });
        // nothing found: an empty text_mem list.
        expect(r.none.data.text_mem).toEqual([]);
        // the listing ignores page_size (postgres store): both memories on a page of 2, in pref_mem too.
        expect(r.list.data.text_mem[0].memories).toHaveLength(2);
        expect(r.list.data.pref_mem[0].memories.map((m: any) => m.id).sort()).toEqual(r.list.data.text_mem[0].memories.map((m: any) => m.id).sort());
        // a delete by user answers failure, having deleted.
        expect(r.del.data).toEqual({ status: 'failure' });
        expect(r.after.data.text_mem[0].memories).toEqual([]);
      }
    } finally {
      await fake.close();
    }
  });
});
