import { describe, expect, it } from 'vitest';
import { realPass, runsOf, summariseMeme } from '../../../src/benchmarks/meme/summary.js';
import type { ItemRecord } from '../../../src/core/item.js';

let n = 0;
function item(
  episode: string,
  phase: 'before' | 'after',
  task: string,
  entity: string,
  votes: number[] | null,
  extra: Partial<ItemRecord> = {},
): ItemRecord {
  const score = votes === null ? null : votes.length ? votes.reduce((a, b) => a + b, 0) / votes.length : null;
  return {
    id: `${episode}:${phase}:${n++}`,
    benchmark: 'meme',
    episode,
    type: phase === 'after' ? task : `${task} (before)`,
    type_id: task,
    question: 'q',
    question_date: null,
    gold: 'g',
    acceptable: ['g'],
    gold_evidence: [],
    retrieved: [],
    evidence_turns: [],
    evidence_tokens: 0,
    coverage: null,
    coverage_at_k: {},
    answer: 'a',
    score,
    metrics: {},
    details: votes ? { judge: { model: 'm', runs: [], votes } } : {},
    meta: { phase, task, entity },
    timings: {},
    error: null,
    ...extra,
  };
}

describe('MEME summary: the before/after pass rule (judge.py trivial-pass filter) and the six-task headline', () => {
  it('counts Del/Cas/Abs after-passes only when the same entity passed before, over the full after denominator', () => {
    const items = [
      // Cas: real, trivial, knew_but_failed, never_knew (four entities in one episode)
      item('e1', 'before', 'Cas', 'c1', [1, 1, 1]),
      item('e1', 'after', 'Cas', 'c1', [1, 1, 1]),
      item('e1', 'before', 'Cas', 'c2', [0, 0, 0]),
      item('e1', 'after', 'Cas', 'c2', [1, 1, 1]),
      item('e1', 'before', 'Cas', 'c3', [1, 1, 1]),
      item('e1', 'after', 'Cas', 'c3', [0, 0, 0]),
      item('e1', 'before', 'Cas', 'c4', [0, 0, 0]),
      item('e1', 'after', 'Cas', 'c4', [0, 0, 0]),
      // Same entity name in another episode: pairs stay inside their episode.
      item('e2', 'before', 'Cas', 'c1', [0, 0, 0]),
      item('e2', 'after', 'Cas', 'c1', [1, 1, 1]),
    ];
    const s = summariseMeme(items);
    const cas = s.tasks.find((t) => t.task === 'Cas')!;
    expect(cas.n).toBe(5);
    expect(cas.accuracy).toBeCloseTo(1 / 5); // only e1/c1 is real
    expect(cas.raw_accuracy).toBeCloseTo(3 / 5);
    expect(cas.pass_types).toEqual({ real: 1, trivial: 2, knew_but_failed: 1, never_knew: 1 });
    expect(cas.before_accuracy).toBeCloseTo(2 / 5);
  });

  it('applies the rule judge run by judge run, then averages', () => {
    // Run 1: after pass & before pass; run 2: after pass, before fail; run 3: after fail.
    expect(realPass([1, 1, 0], [1, 0, 1])).toBeCloseTo(1 / 3);
    expect(realPass([1, 1, 1], null)).toBe(0);
    expect(realPass([1, 1], [1, 0, 0])).toBeCloseTo(1 / 3); // run counts differ: product of means
    const s = summariseMeme([item('e', 'before', 'Abs', 'x', [1, 0, 1]), item('e', 'after', 'Abs', 'x', [1, 1, 0])]);
    expect(s.tasks.find((t) => t.task === 'Abs')!.accuracy).toBeCloseTo(1 / 3);
  });

  it('keeps ER, Agg and Tr raw; counts unscored after-questions as failures; takes the unweighted mean of six tasks', () => {
    const items = [
      item('e', 'after', 'ER', 'er', null, { score: 1, details: { judge: { model: null, runs: [], votes: [] } } }),
      item('e', 'after', 'ER', 'er2', null, { score: 0 }),
      item('e', 'after', 'Agg', 'a', [1, 1, 1]),
      item('e', 'after', 'Tr', 't', [1, 0, 0]),
      item('e', 'after', 'Tr', 't2', null, { score: null }),
      item('e', 'before', 'Del', 'd', [1, 1, 1]),
      item('e', 'after', 'Del', 'd', [1, 1, 1]),
      item('e', 'before', 'Cas', 'c', [1, 1, 1]),
      item('e', 'after', 'Cas', 'c', [0, 0, 0]),
      item('e', 'before', 'Abs', 'b', [1, 1, 1]),
      item('e', 'after', 'Abs', 'b', [1, 1, 1]),
    ];
    const s = summariseMeme(items);
    const acc = Object.fromEntries(s.tasks.map((t) => [t.task, t.accuracy]));
    expect(acc.ER).toBeCloseTo(0.5);
    expect(acc.Agg).toBe(1);
    expect(acc.Tr).toBeCloseTo(1 / 3 / 2); // 1/3 over a denominator of 2 (one unscored)
    expect(acc).toMatchObject({ Del: 1, Cas: 0, Abs: 1 });
    expect(s.overall).toBeCloseTo((0.5 + 1 + 1 / 6 + 1 + 0 + 1) / 6);
    expect(s.tasks_missing).toEqual([]);
    expect(s.tables[0]!.rows).toHaveLength(6);
  });

  it('records ER before-questions as not passed in before_map, and a missing before-question as not passed', () => {
    // An ER before-question on the same entity key as a Del after-question: judge.py stores False.
    const s = summariseMeme([
      item('e', 'before', 'ER', 'k', null, { score: null }),
      item('e', 'after', 'Del', 'k', [1, 1, 1]),
      item('e', 'after', 'Abs', 'orphan', [1, 1, 1]),
    ]);
    expect(s.tasks.find((t) => t.task === 'Del')!.accuracy).toBe(0);
    const abs = s.tasks.find((t) => t.task === 'Abs')!;
    expect(abs.accuracy).toBe(0);
    expect(abs.before_missing).toBe(1);
  });

  it('has no overall until all six tasks are scored (a coverage-only run reports none)', () => {
    const s = summariseMeme([item('e', 'after', 'Agg', 'a', null, { score: null })]);
    expect(s.overall).toBeNull();
    expect(s.tasks_missing).toEqual(['ER', 'Agg', 'Tr', 'Del', 'Cas', 'Abs']);
    expect(runsOf(item('e', 'after', 'Agg', 'a', [1], { error: { stage: 'judge', message: 'x' } }))).toBeNull();
  });
});
