import { describe, expect, it } from 'vitest';
import { memeBeforeAfterRule } from '../../../src/benchmarks/meme/before-after-rule.js';
import type { StatItem } from '../../../src/stats/load.js';

const item = (
  id: string,
  phase: 'before' | 'after',
  task: string,
  entity: string,
  votes: number[] | null,
  extra: Partial<StatItem> = {},
): StatItem => ({
  id,
  episode: 'pl_1',
  type: task,
  coverage: null,
  error: null,
  meta: { phase, task, entity },
  votes,
  score: votes ? votes.reduce((a, b) => a + b, 0) / votes.length : null,
  ...extra,
});

describe("stats: MEME's before/after rule", () => {
  it('keeps a Del/Cas/Abs after-pass only where the before-question passed, run by run', () => {
    const items = [
      item('pl_1:before:0', 'before', 'Del', 'car', [1, 1, 0]),
      item('pl_1:after:0', 'after', 'Del', 'car', [1, 1, 1]),
      item('pl_1:before:1', 'before', 'Cas', 'job', [0, 0, 0]),
      item('pl_1:after:1', 'after', 'Cas', 'job', [1, 1, 1]),
      item('pl_1:after:2', 'after', 'Abs', 'nobefore', [1, 1, 1]),
      item('pl_1:after:3', 'after', 'Tr', 'job', [1, 0, 1]),
    ];
    const { items: out, note } = memeBeforeAfterRule(items);
    const byId = new Map(out.map((i) => [i.id, i]));
    expect(byId.get('pl_1:after:0')!.votes).toEqual([1, 1, 0]);
    expect(byId.get('pl_1:after:0')!.score).toBeCloseTo(2 / 3, 12);
    expect(byId.get('pl_1:after:1')!.score).toBe(0);
    expect(byId.get('pl_1:after:2')!.votes).toEqual([0, 0, 0]);
    // Tracking is not filtered; before-questions are untouched.
    expect(byId.get('pl_1:after:3')).toBe(items[5]);
    expect(byId.get('pl_1:before:0')).toBe(items[0]);
    expect(note).toMatch(/applied to 3 /);
  });

  it('ER before-questions count as failed (judge.py records them so)', () => {
    const out = memeBeforeAfterRule([
      item('pl_1:before:0', 'before', 'ER', 'x', [1]),
      item('pl_1:after:0', 'after', 'Del', 'x', [1]),
    ]).items;
    expect(out[1]!.score).toBe(0);
  });

  it('leaves items without MEME meta alone and says so', () => {
    const plain = [{ ...item('a', 'after', 'Del', 'x', [1]), meta: null }];
    const r = memeBeforeAfterRule(plain);
    expect(r.items).toBe(plain);
    expect(r.note).toMatch(/no item carries MEME meta/);
  });
});
