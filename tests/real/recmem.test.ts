/**
 * RecMem's own code (CaiusDai/RecMem@a84252f6, from a checkout as its authors run it) behind
 * integrations/sidecars/recmem.py: `rawrag run locomo --system recmem --limit 20` against the
 * loopback OpenAI-compatible API, which answers RecMem's own prompts in the JSON RecMem parses
 * (tests/helpers/responders/recmem.ts). Asserts what the library stored (its three Qdrant layers, as
 * its own list_memories reads them) and returned, then purges. Not run (with the reason) where the
 * environment or the checkout is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { evidenceReader, ingestLog, locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';
import { recmemResponder } from '../helpers/responders/recmem.js';
import { locomo } from '../../src/datasets/locomo/index.js';
import { notRun, offlineEnv, RealSidecar, seedTiktoken, SOURCES_DIR } from './sidecar-harness.js';

const CHECKOUT = join(SOURCES_DIR, 'RecMem');
const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const why = notRun('recmem', CHECKOUT);
if (why) console.log(`recmem: not run on its real library: ${why}`);

describe.skipIf(why !== null)('RecMem, the real library', () => {
  let api: FakeApi;
  let sidecar: RealSidecar;

  beforeAll(async () => {
    const reader = evidenceReader(ds.questions);
    // RecMem embeds with dimensions=1536 into 1536-d Qdrant collections.
    api = await new FakeApi({ dim: 1536, chat: (b) => recmemResponder(b) ?? reader(b) }).start();
    const tiktoken = await seedTiktoken(join(tempDir('rawrag-tiktoken-'), 'cache'));
    sidecar = await new RealSidecar('recmem', ['--source', CHECKOUT], offlineEnv(api.url, tiktoken)).start();
  });
  afterAll(async () => {
    await sidecar?.stop();
    await api?.close();
  });

  it('rawrag run locomo --limit 20: 0 errors; RecMem stored raw, episodic and semantic memories from its own prompts; purge empties it', async () => {
    const out = join(tempDir('rawrag-real-run-'), 'recmem');
    const args = locomoRunArgs({ system: 'recmem', out, peer: api, chatOnly: true, cache: tempDir('rawrag-real-cache-'), limit: 20 });
    const r = await rawragInProcess([...args, '-S', `url=${sidecar.url}`], loopbackEnv({ openai: 'sk-real-tier-0123456789' }));
    expect(r.code, `${r.stderr}\n--- sidecar ---\n${sidecar.stderr.slice(-5000)}`).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.errors).toBe(0);
    expect(summary.n).toBe(20);

    // RecMem's own prompts reached the API, and it embedded with its model and dimensions.
    const prompts = api.byPath('/v1/chat/completions').map((q) => JSON.stringify(q.body.messages));
    expect(prompts.some((p) => p.includes('You are an Episodic Memory Constructor'))).toBe(true);
    expect(prompts.some((p) => p.includes('You are a Semantic Memory Extractor'))).toBe(true);
    const embeds = api.byPath('/v1/embeddings');
    expect(embeds.length).toBeGreaterThan(0);
    expect(embeds.every((e) => e.body.model === 'text-embedding-3-small' && e.body.dimensions === 1536)).toBe(true);

    // What the library holds: raw messages as add_memory wrote them, episodes and facts it parsed from the JSON answers.
    const owner = ingestLog(out).find((l) => l.type === 'add')!.owner as string;
    const held = (await sidecar.call('/list', { owner })).memories as Array<{ id: string; memory: string; turn_ids: string[] }>;
    const raw = held.filter((m) => m.id.startsWith('raw-'));
    const episodic = held.filter((m) => m.id.startsWith('episodic-'));
    const semantic = held.filter((m) => m.id.startsWith('semantic-'));
    expect(raw.length).toBeGreaterThan(0);
    expect(raw[0]!.memory).toMatch(/^\[Message Timestamp\]: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \[Message\]: \[[A-Z][a-z]+\]: /);
    expect(raw.every((m) => m.turn_ids.length > 0)).toBe(true);
    expect(episodic.length).toBeGreaterThan(0);
    expect(episodic.every((m) => m.memory.startsWith('Episode: '))).toBe(true);
    expect(semantic.length).toBeGreaterThan(0);
    expect(semantic.every((m) => m.memory.startsWith('Fact: '))).toBe(true);

    const kinds = ['Episodic Memory Constructor', 'Episodic Memory Merger', 'Semantic Memory Extractor'];
    console.log(
      `recmem (real library): ${embeds.length} embeddings, ` +
        kinds.map((k) => `${prompts.filter((p) => p.includes(k)).length} '${k}' prompts`).join(', ') +
        `; held ${raw.length} raw, ${episodic.length} episodic, ${semantic.length} semantic memories`,
    );

    // What it returned: each question's search answered from those memories (the items' evidence).
    const items = readItems(out);
    expect(items.filter((i) => i.error)).toEqual([]);
    const searched = (await sidecar.call('/search', { owner, query: ds.questions[0]!.text, limit: 25 })).results as Array<{ id: string }>;
    expect(searched.length).toBeGreaterThan(0);
    const heldIds = new Set(held.map((m) => m.id));
    expect(searched.every((m) => heldIds.has(m.id))).toBe(true);

    // Purge: rawrag memory purge, then the library holds nothing of the owner.
    const p = await rawragInProcess(
      ['memory', 'purge', out, '--owner', owner.replace(/@.*$/, '')],
      loopbackEnv({ openai: 'sk-real-tier-0123456789' }),
    );
    expect(p.code, p.stderr).toBe(0);
    expect((await sidecar.call('/list', { owner })).memories).toEqual([]);
  }, 1_800_000);
});
