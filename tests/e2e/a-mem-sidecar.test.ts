/**
 * `--system a-mem` is the paper's A-MEM (WujiangXu/AgenticMemory memory_layer.py, issue 40 item 5),
 * checked against its stand-in (tests/fixtures/sidecars/memory_layer.py, which does what
 * memory_layer.py does: LLM-built keywords, context and tags at add, the raw line format):
 * - by default the sidecar drives memory_layer's AgenticMemorySystem, and what it holds carries the
 *   keywords the LLM wrote for each note; a search returns memory_layer's raw lines, each mapped to
 *   its turn;
 * - agiresearch's library stays an option: `-S library=agiresearch` (its sidecar started with
 *   `--library agiresearch`) runs the maintained package, labelled 'A-MEM (agiresearch)'.
 * The same calls against the real memory_layer.py run in the real-library tier (tests/real/a-mem.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { evidenceReader, locomoRunArgs, loopbackEnv } from '../helpers/loopback-run.js';
import { requirePython, SidecarPeer } from '../helpers/sidecar-peer.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

requirePython();

const OWNER = 'conv-amem-1';
const turn = (id: string, speaker: string, text: string) => ({ role: 'user', content: `${speaker}: ${text}`, speaker, text, turn_id: id });
const ADD = {
  owner: OWNER,
  add_id: 'a1',
  messages: [
    turn('D1:1', 'Caroline', 'I went to a support group yesterday.'),
    turn('D1:2', 'Melanie', 'I painted a sunrise last weekend.'),
  ],
  turn_ids: ['D1:1', 'D1:2'],
  session: 'session_1',
  date: '1:56 pm on 8 May, 2023',
  timestamp: 1683554160,
  speakers: ['Caroline', 'Melanie'],
};

async function post(url: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

describe("A-MEM sidecar: the paper's memory_layer.py by default", () => {
  let peer: SidecarPeer;
  beforeAll(async () => {
    peer = await new SidecarPeer('a-mem').start();
  });
  afterAll(async () => {
    await peer?.close();
  });

  it("holds each turn as a note whose keywords, context and tags the LLM wrote; a search returns memory_layer's raw lines mapped to their turns", async () => {
    expect((await post(peer.sidecarUrl, '/add', ADD)).status).toBe(200);
    for (let i = 0; i < 200 && !(await post(peer.sidecarUrl, '/ready', { owner: OWNER })).json.ready; i++)
      await new Promise((r) => setTimeout(r, 50));
    const calls = peer.calls();
    expect(calls.find((c) => c.call === 'AgenticMemorySystem')).toMatchObject({ scope: 'memory_layer', model_name: 'all-MiniLM-L6-v2' });
    expect(calls.filter((c) => c.call === 'add_note').map((c) => c.keywords)).toEqual([
      ['went', 'support', 'group'],
      ['painted', 'sunrise', 'last'],
    ]);
    const list = await post(peer.sidecarUrl, '/list', { owner: OWNER });
    expect(list.status, JSON.stringify(list.json)).toBe(200);
    expect(list.json.memories.map((m: { memory: string; turn_ids: string[] }) => [m.memory, m.turn_ids])).toEqual([
      [
        "talk start time:1:56 pm on 8 May, 2023memory content: Speaker Carolinesays : I went to a support group yesterday.memory context: Generalmemory keywords: ['went', 'support', 'group']memory tags: []",
        ['D1:1'],
      ],
      [
        "talk start time:1:56 pm on 8 May, 2023memory content: Speaker Melaniesays : I painted a sunrise last weekend.memory context: Generalmemory keywords: ['painted', 'sunrise', 'last']memory tags: []",
        ['D1:2'],
      ],
    ]);
    const hits = await post(peer.sidecarUrl, '/search', { owner: OWNER, query: 'When was the sunrise painted?', limit: 5 });
    expect(hits.status, JSON.stringify(hits.json)).toBe(200);
    expect(hits.json.results[0]).toMatchObject({ turn_ids: ['D1:2'], date: '1:56 pm on 8 May, 2023' });
    expect(hits.json.results[0].memory).toMatch(/^talk start time:1:56 pm on 8 May, 2023memory content: Speaker Melaniesays : /);
    // The keyword prompt went through the script's second controller; memory_layer saw its keywords.
    const find = peer.calls().find((c) => c.call === 'find_related_memories_raw')!;
    expect(find).toMatchObject({ k: 10 });
    expect(find.query).toContain('sunrise');
    expect(peer.totalHeld()).toBe(2);
    const del = await post(peer.sidecarUrl, '/delete', { owner: OWNER });
    expect(del.json.deleted).toBe(2);
    expect(peer.totalHeld()).toBe(0);
  });
});

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });

describe("A-MEM's agiresearch library, an option", () => {
  const api = new FakeApi({ chat: evidenceReader(ds.questions) });
  let peer: SidecarPeer;
  beforeAll(async () => {
    await api.start();
    peer = await new SidecarPeer('a-mem', ['--library', 'agiresearch']).start();
  });
  afterAll(async () => {
    await peer?.close();
    await api.close();
  });

  it("-S library=agiresearch runs agiresearch/A-mem behind a sidecar started with --library agiresearch, labelled 'A-MEM (agiresearch)'", async () => {
    const out = join(tempDir('rawrag-amem-agi-'), 'run');
    const env = loopbackEnv({ openai: 'sk-test-AMEMAGI0123456789' });
    const args = locomoRunArgs({
      system: 'a-mem',
      out,
      peer: api,
      chatOnly: true,
      cache: tempDir('rawrag-amem-cache-'),
      limit: 3,
      extra: ['-S', `url=${peer.url}`, '-S', 'library=agiresearch'],
    });
    const r = await rawragInProcess(args, env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).errors).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).system).toBe('A-MEM (agiresearch)');
    expect(peer.calls().find((c) => c.call === 'AgenticMemorySystem')).toMatchObject({ scope: 'chroma:memories' });
    expect(peer.calls().some((c) => c.scope === 'memory_layer')).toBe(false);
  }, 300_000);
});
