/** summary.json's per-type rows: accuracy and the judge's runs one by one. */
import { describe, expect, it } from 'vitest';
import { summarise } from '../../src/eval/summary.js';
import type { ItemRecord } from '../../src/datasets/item.js';

function item(id: string, votes: number[] | null, score: number | null = votes ? votes.reduce((a, b) => a + b, 0) / votes.length : null, type = 'single-hop'): ItemRecord {
  return {
    id, benchmark: 'locomo', episode: 'e', type, type_id: 4, question: 'q', question_date: null, gold: 'g', acceptable: [], gold_evidence: [],
    retrieved: [], evidence_turns: [], evidence_tokens: 0, coverage: null, coverage_at_k: {}, answer: 'a', score, metrics: {},
    details: votes === null ? {} : { judge: { votes } }, timings: {}, error: null,
  };
}

describe('summary: judge runs', () => {
  it('gives each run its own accuracy, their mean (= the accuracy) and their sample SD', () => {
    const s = summarise([item('a', [1, 0, 1]), item('b', [1, 1, 1]), item('c', [0, 0, 1])]);
    const jr = s.overall.judge_runs!;
    expect(jr.runs).toBe(3);
    expect(jr.accuracy.map((a) => a * 3)).toEqual([2, 1, 3]);
    expect(jr.mean).toBeCloseTo(2 / 3, 12);
    expect(jr.mean).toBeCloseTo(s.overall.accuracy!, 12);
    expect(jr.sd).toBeCloseTo(1 / 3, 12);
  });

  it('an item scored by a metric (no votes) counts with its score in every run', () => {
    const jr = summarise([item('a', [1, 0]), item('m', [], 0.5)]).overall.judge_runs!;
    expect(jr.accuracy).toEqual([0.75, 0.25]);
  });

  it('is null with a single run, with unequal numbers of votes, or with nothing judged', () => {
    expect(summarise([item('a', [1]), item('b', [0])]).overall.judge_runs).toBeNull();
    expect(summarise([item('a', [1, 0, 1]), item('b', [1, 1])]).overall.judge_runs).toBeNull();
    expect(summarise([item('a', null, null)]).overall.judge_runs).toBeNull();
  });

  it('is computed per type too', () => {
    const s = summarise([item('a', [1, 1], undefined, 'temporal'), item('b', [0, 1], undefined, 'multi-hop')]);
    expect(s.by_type.find((r) => r.type === 'temporal')!.judge_runs!.accuracy).toEqual([1, 1]);
    expect(s.by_type.find((r) => r.type === 'multi-hop')!.judge_runs!.accuracy).toEqual([0, 1]);
  });
});
