/**
 * MemU's wire formats and settings, without a service: the whole-conversation call (`batch:
 * 'episode'`) the shared plan makes for it, each message dated as EverMemOS's LoCoMo loader dates it
 * (30 s apart, squeezed into 90 % of the gap to the next session, `isoformat() + "Z"`), the bodies of
 * EverMemOS's adapter, MemOS's client and memU-server, the defaults that follow `api` and `protocol`,
 * and the settings refused (per-speaker stores on a server whose retrieve takes no owner; the hosted
 * API without a key).
 */
import { describe, expect, it } from 'vitest';
import type { Episode } from '../../../src/core/schema.js';
import type { IngestedEpisode } from '../../../src/core/ingested-episode.js';
import { planEpisode, unixSeconds } from '../../../src/systems/memory-service/plan.js';
import { MemuSchema, resolveMemu, type MemuConfig } from '../../../src/systems/memu/index.js';
import {
  evermemosMemorize,
  evermemosTimes,
  memosMemorize,
  naiveIso,
  relatedMemory,
  serverMemorize,
} from '../../../src/systems/memu/wire.js';

function episode(): Episode {
  const turn = (n: number, i: number, date: string, speaker: string, text: string, captions: string[] = []) => ({
    id: `D${n}:${i}`,
    session: `session_${n}`,
    date,
    speaker,
    text,
    captions,
  });
  return {
    id: 'conv-x',
    meta: { speakers: ['Caroline', 'Melanie'] },
    turns: [
      turn(1, 1, '1:56 pm on 8 May, 2023', 'Caroline', 'I adopted a dog'),
      turn(1, 2, '1:56 pm on 8 May, 2023', 'Melanie', 'Lovely', ['a photo of a lake']),
      turn(1, 3, '1:56 pm on 8 May, 2023', 'Caroline', 'He is called Rex'),
      // One minute later: three turns 30 s apart would not fit in 90 % of the gap (54 s): squeezed to 27 s.
      turn(2, 1, '1:57 pm on 8 May, 2023', 'Melanie', 'I moved to Berlin'),
      turn(2, 2, '1:57 pm on 8 May, 2023', 'Caroline', 'Cold there'),
      turn(3, 1, '9:10 am on 22 May, 2023', 'Caroline', 'Only me'),
    ],
  };
}

const ingested = (e = episode()): IngestedEpisode => ({ episode: e, visibleTurns: e.turns.length }) as unknown as IngestedEpisode;
const settings = (over: Record<string, unknown> = {}) => resolveMemu(MemuSchema.parse(over) as unknown as MemuConfig);

describe("batch 'episode': the whole conversation in one call per store", () => {
  const plan = planEpisode(ingested(), 'run-1', { owners: 'per-speaker', batch: 'episode' });

  it('one call per speaker, every turn in order, mirrored roles, each message with its own session and date', () => {
    expect(plan.owners.map((o) => o.calls.length)).toEqual([1, 1]);
    const [caroline, melanie] = plan.owners.map((o) => o.calls[0]!);
    expect(caroline!.turnIds).toEqual(episode().turns.map((t) => t.id));
    expect(caroline!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'user']);
    expect(melanie!.messages.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant', 'assistant']);
    expect(caroline!.messages.map((m) => m.session)).toEqual([
      'session_1',
      'session_1',
      'session_1',
      'session_2',
      'session_2',
      'session_3',
    ]);
    expect(caroline!.messages.map((m) => m.indexInSession)).toEqual([0, 1, 2, 0, 1, 0]);
    expect(caroline!.date).toBe('1:56 pm on 8 May, 2023');
  });

  it("dates messages as EverMemOS's loader: 30 s apart, squeezed into 90 % of the gap to the next session", () => {
    const call = plan.owners[0]!.calls[0]!;
    const s1 = unixSeconds('1:56 pm on 8 May, 2023')!;
    const s2 = unixSeconds('1:57 pm on 8 May, 2023')!;
    const s3 = unixSeconds('9:10 am on 22 May, 2023')!;
    expect(evermemosTimes(call)).toEqual([s1, s1 + 27, s1 + 54, s2, s2 + 30, s3]);
    expect(naiveIso(s1 + 27)).toBe('2023-05-08T13:56:27');
    expect(naiveIso(s1 + 0.5)).toBe('2023-05-08T13:56:00.500000');
  });

  it("writes EverMemOS's memorize body: name, time + Z, caption before the text, the store's speaker as user_name, the first day", () => {
    const body = evermemosMemorize(plan.owners[1]!.calls[0]!, { id: 'evaluation_agent_04', name: 'Memory Evaluation Assistant' });
    expect(body).toMatchObject({ user_name: 'Melanie', agent_id: 'evaluation_agent_04', session_date: '2023-05-08' });
    expect((body.conversation as unknown[])[1]).toEqual({
      role: 'user',
      content: 'Melanie: [Melanie shared an image: a photo of a lake] Lovely',
      name: 'Melanie',
      time: '2023-05-08T13:56:27Z',
    });
  });

  it("writes memU-server's memorize body: content {text}, created_at as its README writes it", () => {
    const body = serverMemorize(plan.owners[0]!.calls[0]!, 'evaluation_agent_04');
    expect((body.conversation as unknown[])[0]).toEqual({
      role: 'user',
      content: { text: 'Caroline: I adopted a dog' },
      created_at: '2023-05-08 13:56:00',
    });
    expect(Object.keys(body)).toEqual(['conversation', 'user_id', 'agent_id']);
  });
});

it("writes MemOS's memorize body per session: no caption, time null, conversation_text null, user_name = user_id, ISO UTC session_date", () => {
  const plan = planEpisode(ingested(), 'run-1', { owners: 'per-speaker', batch: 'session' });
  const call = plan.owners[0]!.calls[0]!;
  const body = memosMemorize(call, { id: 'assistant_001', name: 'assistant_001' });
  expect(plan.owners[0]!.calls).toHaveLength(3);
  expect(body).toMatchObject({ conversation_text: null, user_name: call.owner, session_date: '2023-05-08T13:56:00+00:00' });
  expect((body.conversation as unknown[])[1]).toEqual({ role: 'assistant', content: 'Melanie: Lovely', time: null });
});

it('reads a related memory as EverMemOS shows it: content with its category, the day it happened, the similarity', () => {
  const m = relatedMemory({
    memory: { memory_id: 'm1', category: 'activities', content: 'Caroline adopted a dog', happened_at: '2023-05-08T13:56:00' },
    similarity_score: 0.8,
  });
  expect(m).toMatchObject({
    id: 'm1',
    memory: 'Caroline adopted a dog (Category: activities)',
    date: '2023-05-08',
    score: 0.8,
    turnIds: [],
  });
  expect(relatedMemory({ memory: {} })).toBeNull();
});

describe('settings', () => {
  it("the defaults follow the API and the protocol: EverMemOS's, MemOS's, memU-server's", () => {
    expect(settings()).toMatchObject({
      owners: 'per-speaker',
      batch: 'episode',
      prefix: '/api/v0/memory',
      agent_id: 'evaluation_agent_04',
      agent_name: 'Memory Evaluation Assistant',
      min_similarity: 0.3,
      categories: true,
      poll_interval: 15,
      top_k: 20,
      readyTimeout: 4800,
    });
    expect(settings({ protocol: 'memos' })).toMatchObject({
      owners: 'per-speaker',
      batch: 'session',
      prefix: '/api/v2/memory',
      agent_id: 'assistant_001',
      min_similarity: 0.1,
      categories: false,
      poll_interval: 2,
    });
    expect(settings({ api: 'server' })).toMatchObject({ owners: 'per-episode', batch: 'episode', poll_interval: 2 });
    // An explicit option wins over the protocol's default.
    expect(settings({ protocol: 'memos', batch: 'episode', min_similarity: 0.5 })).toMatchObject({ batch: 'episode', min_similarity: 0.5 });
  });

  it('refuses unknown options and a prefix that is not a path', () => {
    expect(MemuSchema.safeParse({ top_kk: 3 }).success).toBe(false);
    expect(MemuSchema.safeParse({ prefix: 'api/v0' }).success).toBe(false);
    expect(MemuSchema.safeParse({ api: 'local' }).success).toBe(false);
  });
});
