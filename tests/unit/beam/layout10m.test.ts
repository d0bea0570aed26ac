/**
 * The BEAM 10M layout, on CONSTRUCTED fixtures (no real 10M file could be had here; spec §3.2):
 * `chats/10M/<n>/plan-<k>/chat.json` (each plan prefers its chat_trunecated.json), message ids
 * global across plans, and the conversation-level chat as a list of {"plan-<k>": batches}.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beam } from '../../../src/benchmarks/beam/index.js';
import { ABILITIES } from '../../../src/benchmarks/beam/format.js';
import { tempDir } from '../../helpers/cli.js';

/** One batch of `pairs` user/assistant exchanges, ids from `firstId`, anchored on its first user message. */
function batch(n: number, firstId: number, pairs: number, anchor: string, tag: string) {
  return {
    batch_number: n,
    time_anchor: null,
    turns: Array.from({ length: pairs }, (_, p) => [
      {
        role: 'user',
        id: firstId + 2 * p,
        ...(p === 0 ? { time_anchor: anchor } : {}),
        index: `${n},${p + 1}`,
        question_type: 'main_question',
        content: `${tag} question ${p}`,
      },
      { role: 'assistant', id: firstId + 2 * p + 1, content: `${tag} answer ${p}` },
    ]),
  };
}

function probing(ids: number[]) {
  return Object.fromEntries(
    ABILITIES.map((a) => [
      a,
      [0, 1].map((i) => ({
        question: `${a} question ${i}?`,
        difficulty: 'easy',
        rubric: [`${a} rubric ${i}`],
        source_chat_ids: [ids[i % ids.length]],
        ...(a === 'abstention' ? { ideal_response: 'No information.' } : {}),
        ...(a === 'contradiction_resolution' ? { ideal_answer: 'Both were said.' } : {}),
        ...(a === 'summarization' ? { ideal_summary: 'A summary.' } : {}),
        ...(a === 'instruction_following' || a === 'preference_following' ? { expected_compliance: 'Complies.' } : {}),
        ...(['event_ordering', 'information_extraction', 'knowledge_update', 'multi_session_reasoning', 'temporal_reasoning'].includes(a)
          ? { answer: 'An answer.' }
          : {}),
        ...(i === 1 ? { plan_reference: 'Plan 1' } : {}),
      })),
    ]),
  );
}

const write = (file: string, v: unknown) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify(v));
};

describe('BEAM 10M per-plan layout (constructed)', () => {
  it("concatenates plans in numeric order, prefers each plan's truncated chat, keeps global ids", async () => {
    const root = tempDir('rawrag-beam10m-');
    const conv = join(root, 'chats', '10M', '1');
    write(join(conv, 'plan-0', 'chat.json'), [batch(1, 0, 2, 'March-01-2024', 'p0b1'), batch(2, 4, 1, 'April-02-2024', 'p0b2')]);
    write(join(conv, 'plan-1', 'chat.json'), [batch(1, 6, 3, 'June-01-2024', 'p1-full')]);
    write(join(conv, 'plan-1', 'chat_trunecated.json'), [batch(1, 6, 2, 'June-01-2024', 'p1')]);
    write(join(conv, 'plan-10', 'chat.json'), [batch(1, 10, 1, 'December-24-2024', 'p10')]);
    write(join(conv, 'probing_questions', 'probing_questions.json'), probing([1, 11]));

    const ds = await beam.load({ path: root, options: { size: '10M' } });
    const ep = ds.episodes[0]!;
    expect(ep.id).toBe('10M/1');
    expect(ep.meta).toMatchObject({
      size: '10M',
      chat_files: ['plan-0/chat.json', 'plan-1/chat_trunecated.json', 'plan-10/chat.json'],
      batches: 4,
      messages: 12,
    });
    expect(ep.turns.map((t) => t.id)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
    expect([...new Set(ep.turns.map((t) => t.session))]).toEqual(['plan-0/batch-1', 'plan-0/batch-2', 'plan-1/batch-1', 'plan-10/batch-1']);
    expect(ep.turns.map((t) => t.date)).toEqual([
      ...Array(4).fill('March-01-2024'),
      ...Array(2).fill('April-02-2024'),
      ...Array(4).fill('June-01-2024'),
      ...Array(2).fill('December-24-2024'),
    ]);
    expect(ep.turns[6]!.text).toBe('p1 question 0'); // the truncated plan-1 chat, not the full one
    expect(ds.questions).toHaveLength(20);
    expect(ds.questions.map((q) => q.evidence[0])).toEqual(Array(10).fill(['1', '11']).flat());
    expect(ds.questions[1]!.meta!.plan_reference).toBe('Plan 1');
    expect(ds.warnings).toEqual([]);
  });

  it('reads a conversation-level chat keyed by plan ({"plan-k": batches} list or object)', async () => {
    for (const shape of ['list', 'object'] as const) {
      const root = tempDir('rawrag-beam10m-');
      const conv = join(root, '10M', '3');
      const plans = { 'plan-1': [batch(1, 4, 1, 'May-05-2024', 'b')], 'plan-0': [batch(1, 0, 2, 'May-01-2024', 'a')] };
      write(join(conv, 'chat_trunecated.json'), shape === 'list' ? [{ 'plan-0': plans['plan-0'] }, { 'plan-1': plans['plan-1'] }] : plans);
      write(join(conv, 'probing_questions', 'probing_questions.json'), probing([0]));
      const ds = await beam.load({ path: join(root, '10M'), options: { size: '10M' } });
      expect(ds.episodes[0]!.turns.map((t) => `${t.session}:${t.id}`)).toEqual([
        'plan-0/batch-1:0',
        'plan-0/batch-1:1',
        'plan-0/batch-1:2',
        'plan-0/batch-1:3',
        'plan-1/batch-1:4',
        'plan-1/batch-1:5',
      ]);
    }
  });

  it('rejects ids repeated across plans, naming the plan file and place', async () => {
    const root = tempDir('rawrag-beam10m-');
    const conv = join(root, 'chats', '10M', '2');
    write(join(conv, 'plan-0', 'chat.json'), [batch(1, 0, 2, 'March-01-2024', 'a')]);
    write(join(conv, 'plan-1', 'chat.json'), [batch(1, 2, 1, 'March-09-2024', 'b')]);
    write(join(conv, 'probing_questions', 'probing_questions.json'), probing([0]));
    await expect(beam.load({ path: root, options: { size: '10M' } })).rejects.toThrow(
      /plan-1\/chat\.json: \[0\]\.turns\[0\]\[0\]\.id: message id 2 appears twice/,
    );
  });

  it('rejects a plan key that is not plan-<k>', async () => {
    const root = tempDir('rawrag-beam10m-');
    const conv = join(root, '10M', '4');
    write(join(conv, 'chat.json'), [{ planA: [batch(1, 0, 1, 'May-01-2024', 'a')] }]);
    write(join(conv, 'probing_questions', 'probing_questions.json'), probing([0]));
    await expect(beam.load({ path: conv, options: {} })).rejects.toThrow(/4\/chat\.json: .*plan-<k>/);
  });
});
