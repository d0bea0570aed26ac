/**
 * Nemori's own code (nemori-ai/nemori@d2a6dff6, installed from its checkout) behind
 * integrations/sidecars/nemori.py, on a private PostgreSQL (the machine's postgresql-15, initdb under
 * the sidecar's state folder) and Qdrant in local mode: `rawrag run locomo --system nemori --limit 20`
 * against the loopback OpenAI-compatible API, which answers Nemori's own prompts in the JSON its
 * generators parse (tests/helpers/responders/nemori.ts). Asserts what the library stored (episodes
 * and semantic memories in PostgreSQL, vectors in Qdrant) and returned, then purges. Not run (with
 * the reason) where the environment or PostgreSQL is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { evidenceReader, ingestLog, locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';
import { nemoriResponder } from '../helpers/responders/nemori.js';
import { locomo } from '../../src/datasets/locomo/index.js';
import { notRun, offlineEnv, RealSidecar, seedTiktoken } from './sidecar-harness.js';

const PG = existsSync('/usr/lib/postgresql') || spawnSync('pg_ctl', ['--version']).status === 0;
const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const why = notRun('nemori') ?? (PG ? null : 'no PostgreSQL (apt-get install postgresql-15)');
if (why) console.log(`nemori: not run on its real library: ${why}`);

describe.skipIf(why !== null)('Nemori, the real library', () => {
  let api: FakeApi;
  let sidecar: RealSidecar;

  beforeAll(async () => {
    const reader = evidenceReader(ds.questions);
    // Nemori probes the embedding's dimension and sizes its Qdrant collections to it.
    api = await new FakeApi({ dim: 256, chat: (b) => nemoriResponder(b) ?? reader(b) }).start();
    const tiktoken = await seedTiktoken(join(tempDir('rawrag-tiktoken-'), 'cache'));
    sidecar = await new RealSidecar('nemori', [], offlineEnv(api.url, tiktoken, { DATABASE_URL: '', DSN: '' })).start();
  });
  afterAll(async () => {
    await sidecar?.stop();
    await api?.close();
  });

  it('rawrag run locomo --limit 20: 0 errors; Nemori stored episodes and semantic memories from its own prompts in PostgreSQL and Qdrant; purge empties it', async () => {
    const out = join(tempDir('rawrag-real-run-'), 'nemori');
    const args = locomoRunArgs({ system: 'nemori', out, peer: api, chatOnly: true, cache: tempDir('rawrag-real-cache-'), limit: 20 });
    const r = await rawragInProcess([...args, '-S', `url=${sidecar.url}`], loopbackEnv({ openai: 'sk-real-tier-0123456789' }));
    expect(r.code, `${r.stderr}\n--- sidecar ---\n${sidecar.stderr.slice(-5000)}`).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.errors).toBe(0);
    expect(summary.n).toBe(20);

    // Nemori's own prompts reached the API (segmentation, episodes, prediction-correction), with the script's models.
    const chats = api.byPath('/v1/chat/completions');
    const prompts = chats.map((q) => JSON.stringify(q.body.messages));
    const count = (marker: string) => prompts.filter((p) => p.includes(marker)).length;
    // (Batch segmentation runs only when 20 messages wait at once; with the script's buffer of 1 it may not.)
    expect(count('Boundary detection reason:')).toBeGreaterThan(0);
    expect(count('knowledge-based episode prediction system') + count('Extract HIGH-VALUE, PERSISTENT')).toBeGreaterThan(0);
    const own = chats.filter((q) => nemoriResponder(q.body) !== null);
    expect(own.length).toBeGreaterThan(0);
    expect(new Set(own.map((q) => q.body.model))).toEqual(new Set(['openai/gpt-4.1-mini']));
    const embeds = api.byPath('/v1/embeddings');
    expect(embeds.length).toBeGreaterThan(0);
    expect(new Set(embeds.map((e) => e.body.model))).toEqual(new Set(['google/gemini-embedding-001']));

    // What the library holds (its PostgreSQL stores, read through them): episodes it parsed from the
    // JSON answers (not its fallback), each with the turns of its source messages; semantic memories.
    const owner = ingestLog(out).find((l) => l.type === 'add')!.owner as string;
    const held = (await sidecar.call('/list', { owner })).memories as Array<{ id: string; memory: string; turn_ids: string[] }>;
    const episodes = held.filter((m) => m.memory.startsWith('Episode: '));
    const semantic = held.filter((m) => m.memory.startsWith('Statement: '));
    expect(episodes.length).toBeGreaterThan(0);
    expect(episodes.length + semantic.length).toBe(held.length);
    expect(episodes.every((m) => m.turn_ids.length > 0)).toBe(true);
    expect(semantic.length).toBeGreaterThan(0);
    // Their vectors in Qdrant's local-mode folder, not a server.
    expect(existsSync(join(sidecar.state, 'qdrant', 'collection', 'nemori_episodes'))).toBe(true);
    expect(existsSync(join(sidecar.state, 'postgres', 'data', 'PG_VERSION'))).toBe(true);
    console.log(
      `nemori (real library): ${chats.length} chat requests (${count('segmentation expert')} segmentation, ` +
        `${count('Boundary detection reason:')} episode, ${count('prediction system')} prediction, ${count('comparing original')} extraction, ` +
        `${count('merge decision')} merge decision), ${embeds.length} embedding requests; ` +
        `held ${episodes.length} episodes and ${semantic.length} semantic memories`,
    );

    // What it returned: a question searched through the library, answered from what it holds.
    expect(readItems(out).filter((i) => i.error)).toEqual([]);
    const searched = (await sidecar.call('/search', { owner, query: ds.questions[0]!.text, limit: 30 })).results as Array<{ id: string }>;
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
