/**
 * EMem's sidecar against the stand-in that does what the real library (KevinSRR/EMem@f83c0b9a) does
 * (tests/fixtures/sidecars/emem): the three failures the real library showed (issue 40, items 1-3).
 * - EMem raises ValueError unless SUPPORT_JSON_SCHEMA is set: the sidecar sets it as the authors'
 *   run script does, so a sidecar started without it still feeds the library;
 * - the embedding model is the one the authors' runs use, text-embedding-3-small;
 * - `structuring_results_dict` exists only after EMem's first retrieval: /list and /delete right
 *   after indexing (before any search) show and remove what the library saved.
 * The same calls against the real library run in the real-library tier (tests/real/emem.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requirePython, SidecarPeer } from '../helpers/sidecar-peer.js';

requirePython();

const OWNER = 'conv-emem-1';
const turn = (id: string, speaker: string, text: string) => ({ role: 'user', content: `${speaker}: ${text}`, speaker, text, turn_id: id });
const ADDS = [
  {
    owner: OWNER,
    add_id: 'a1',
    messages: [turn('D1:1', 'Caroline', 'I went to a support group yesterday.'), turn('D1:2', 'Melanie', 'That sounds great, Caroline!')],
    turn_ids: ['D1:1', 'D1:2'],
    session: 'session_1',
    date: '1:56 pm on 8 May, 2023',
    timestamp: 1683554160,
    speakers: ['Caroline', 'Melanie'],
  },
  {
    owner: OWNER,
    add_id: 'a2',
    messages: [turn('D2:1', 'Melanie', 'I painted a sunrise last weekend.')],
    turn_ids: ['D2:1'],
    session: 'session_2',
    date: '1:14 pm on 25 May, 2023',
    timestamp: 1685020440,
    speakers: ['Caroline', 'Melanie'],
  },
];

async function post(url: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

async function untilReady(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await post(url, '/ready', { owner: OWNER });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    if (r.json.ready) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('the sidecar never became ready');
}

describe('EMem sidecar (issue 40, items 1-3)', () => {
  let peer: SidecarPeer;
  const saved = process.env.SUPPORT_JSON_SCHEMA;

  beforeAll(async () => {
    delete process.env.SUPPORT_JSON_SCHEMA; // as a user's shell has it: unset
    peer = await new SidecarPeer('emem').start();
  });
  afterAll(async () => {
    await peer?.close();
    if (saved !== undefined) process.env.SUPPORT_JSON_SCHEMA = saved;
  });

  it('feeds EMem with SUPPORT_JSON_SCHEMA unset in its environment (set to true as run_emem_locomo.sh does), with text-embedding-3-small', async () => {
    for (const a of ADDS) expect((await post(peer.sidecarUrl, '/add', a)).status).toBe(200);
    await untilReady(peer.sidecarUrl);
    const made = peer.calls().filter((c) => c.call === 'EMem');
    expect(made.length).toBeGreaterThan(0);
    expect(made[0]).toMatchObject({ support_json_schema: true, embedding_model_name: 'text-embedding-3-small' });
    expect(peer.calls().filter((c) => c.call === 'index_conversation')).toHaveLength(1);
  });

  it('/list right after indexing (before any retrieval) shows the EDUs EMem saved; /delete removes them', async () => {
    expect(peer.calls().some((c) => c.call === 'retrieve_structuring_conversation_enhanced_v2')).toBe(false);
    const list = await post(peer.sidecarUrl, '/list', { owner: OWNER });
    expect(list.status, JSON.stringify(list.json)).toBe(200);
    expect(list.json.memories.map((m: { memory: string }) => m.memory)).toEqual([
      '[Source conversation date: 1:56 pm on 8 May, 2023 - Source speakers: Caroline] "Caroline: I went to a support group yesterday."',
      '[Source conversation date: 1:56 pm on 8 May, 2023 - Source speakers: Melanie] "Melanie: That sounds great, Caroline!"',
      '[Source conversation date: 1:14 pm on 25 May, 2023 - Source speakers: Melanie] "Melanie: I painted a sunrise last weekend."',
    ]);
    expect(peer.totalHeld()).toBe(3);
    const del = await post(peer.sidecarUrl, '/delete', { owner: OWNER });
    expect(del.status, JSON.stringify(del.json)).toBe(200);
    expect(del.json.deleted).toBe(3);
    expect(del.json.removed.join(' ')).toMatch(/3 EMem EDUs/);
    expect(peer.totalHeld()).toBe(0);
  });
});
