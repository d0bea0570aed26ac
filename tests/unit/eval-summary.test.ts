/** summary.json's per-type rows: accuracy and the judge's runs one by one. */
import { describe, expect, it } from 'vitest';
import { summarise } from '../../src/reader-judge/summary.js';
import type { ItemRecord } from '../../src/core/item.js';

function item(
  id: string,
  votes: number[] | null,
  score: number | null = votes ? votes.reduce((a, b) => a + b, 0) / votes.length : null,
  type = 'single-hop',
): ItemRecord {
  return {
    id,
    benchmark: 'locomo',
    episode: 'e',
    type,
    type_id: 4,
    question: 'q',
    question_date: null,
    gold: 'g',
    acceptable: [],
    gold_evidence: [],
    retrieved: [],
    evidence_turns: [],
    evidence_tokens: 0,
    coverage: null,
    coverage_at_k: {},
    answer: 'a',
    score,
    metrics: {},
    details: votes === null ? {} : { judge: { votes } },
    timings: {},
    error: null,
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

import { denominatorLine, denominators, failedAsWrong, withoutFailed } from '../../src/scoring/denominators.js';
import { countLabels, summariseLocomo } from '../../src/benchmarks/locomo/summary.js';
import { paperComparisonLine } from '../../src/benchmarks/paper-rows.js';
import { summariseMeme } from '../../src/benchmarks/meme/summary.js';
import { summarisePersonamem } from '../../src/benchmarks/personamem/summary.js';
import { summariseMab } from '../../src/benchmarks/memoryagentbench/summarise.js';

const failed = (id: string, stage: string, type = 'single-hop'): ItemRecord => ({
  ...item(id, null, null, type),
  answer: null,
  error: { stage, message: 'x' },
});

describe('summary: failed items never make a run look better', () => {
  it('accuracy over all N beside accuracy over scored items, and failures by stage', () => {
    const s = summarise([item('a', [1, 1, 1]), item('b', [1, 1, 1]), failed('c', 'read'), failed('d', 'judge'), failed('e', 'read')]);
    expect(s.overall.accuracy).toBe(1);
    expect(s.overall.accuracy_all_n).toBeCloseTo(2 / 5, 12);
    expect(s.errors).toBe(3);
    expect(s.errors_by_stage).toEqual({ judge: 1, read: 2 });
    // Without failures the two agree.
    const clean = summarise([item('a', [1, 1, 1]), item('b', [0, 0, 0])]);
    expect(clean.overall.accuracy_all_n).toBe(clean.overall.accuracy);
  });

  it('denominators: the headline over all N (failed = 0) and over the not-failed, with the official one named', () => {
    const items = [item('a', [1]), item('b', [0]), failed('c', 'retrieve')];
    const mean = (its: ItemRecord[]) => its.reduce((s, i) => s + (i.score ?? 0), 0) / its.length;
    const d = denominators(items, mean, 'scored');
    expect(d).toEqual({
      n: 3,
      failed: 1,
      errors_by_stage: { retrieve: 1 },
      headline_all_n: 1 / 3,
      headline_scored: 0.5,
      official: 'scored',
    });
    expect(failedAsWrong(items)[2]).toMatchObject({ error: null, score: 0 });
    expect(withoutFailed(items).map((i) => i.id)).toEqual(['a', 'b']);
    expect(denominatorLine(d)).toBe(
      'headline over all 3 (failed count 0): 33.33; over the 2 not failed (official): 50.00; failed: 1 (retrieve 1)',
    );
  });

  it('every benchmark summary reports both (MEME, PersonaMem-v2: failed = wrong officially; MemoryAgentBench: left out officially)', () => {
    const meme = (id: string, task: string, score: number | null, err = false): ItemRecord => ({
      ...item(id, score === null ? null : [score], score, task),
      meta: { phase: 'after', task, entity: id },
      ...(err ? { error: { stage: 'read', message: 'x' }, score: null } : {}),
    });
    const m = summariseMeme([meme('1', 'ER', 1), meme('2', 'ER', null, true), ...['Agg', 'Tr'].map((t) => meme(t, t, 1))]);
    expect(m.denominators).toMatchObject({ n: 4, failed: 1, official: 'all_n' });
    expect(m.tasks.find((t) => t.task === 'ER')!.accuracy).toBe(0.5);

    const pm = (id: string, score: number | null, err = false): ItemRecord => ({
      ...item(id, null, score),
      meta: { protocol: 'verl', pref_type: 'x' },
      error: err ? { stage: 'read', message: 'x' } : null,
    });
    const p = summarisePersonamem([pm('a', 1), pm('b', 0), pm('c', null, true), pm('d', 1)]);
    expect(p.overall.accuracy).toBeCloseTo(2 / 4, 12); // official: every row
    expect(p.denominators).toMatchObject({ headline_all_n: 0.5, headline_scored: 2 / 3, official: 'all_n', errors_by_stage: { read: 1 } });

    const mab = (id: string, score: number | null, err = false): ItemRecord => ({
      ...item(id, null, score, 'ruler_qa1_197K'),
      type_id: 'AR',
      error: err ? { stage: 'judge', message: 'x' } : null,
    });
    const s = summariseMab([mab('a', 1), mab('b', 1), mab('c', null, true)]);
    expect(s.denominators).toMatchObject({ n: 3, failed: 1, headline_scored: 100, official: 'scored' });
    expect((s.denominators as { headline_all_n: number }).headline_all_n).toBeCloseTo(200 / 3, 10);
  });
});

describe('LoCoMo judge labels (Mem0: label == "CORRECT" exactly)', () => {
  const judged = (id: string, raws: string[], score: number): ItemRecord => ({
    ...item(
      id,
      raws.map(() => score),
      score,
    ),
    details: { judge: { votes: raws.map(() => score), runs: raws.map((raw) => ({ verdict: score, raw })) } },
  });
  it('counts replies whose label is not exactly CORRECT or WRONG, and prints them', () => {
    const items = [
      judged('a', ['{"label": "CORRECT"}', '{"label":"correct"}', '{"label": "WRONG"}'], 1 / 3),
      judged('b', ['{"label": "Correct"}', '{"label": "correct"}', 'no json'], 0),
    ];
    const c = countLabels(items);
    expect(c).toEqual({ replies: 5, CORRECT: 1, WRONG: 1, other: { correct: 2, Correct: 1 }, other_total: 3 });
    const s = summariseLocomo(items);
    expect(s.tables.at(-1)!.title).toMatch(/other than exactly CORRECT \/ WRONG .*: 3 of 5 replies/);
    expect(s.tables.at(-1)!.rows).toEqual([
      ['"correct"', 2],
      ['"Correct"', 1],
    ]);
    expect(s.denominators.official).toBe('all_n');
  });
});

describe("the paper's figure beside the run's", () => {
  it('for a paper row, with the all-N figure when failures move it', () => {
    const summary = { overall: { accuracy: 0.8831, accuracy_all_n: 0.87 } };
    expect(paperComparisonLine('locomo', 'gpt-4o-mini', 'openai', summary)).toBe(
      'paper (RAW-RAG, openai retriever, reader gpt-4o-mini): 89.07 — accuracy, 1,540 questions; this run: 88.31 (over all questions, failed count 0: 87.00); strongest other system in the paper: MemMachine 88.12',
    );
    const mab = { benchmark_summary: { overall: { score: 48.5 }, denominators: { headline_all_n: 48.5 } } };
    expect(paperComparisonLine('memoryagentbench', 'gpt-4o-mini', 'openai', mab)).toMatch(
      /: 48\.32 — four-competency macro, 2,071 questions; this run: 48\.50; strongest/,
    );
  });
  it("says when the retriever is not the paper's, and says nothing for other runs", () => {
    expect(paperComparisonLine('locomo', 'gpt-4o-mini', 'local', {})).toBe(
      "paper (RAW-RAG, reader gpt-4o-mini): 89.07 with the openai retriever, 89.13 with the qwen3 retriever; this run used the local retriever, so its figure is not the paper's row",
    );
    expect(paperComparisonLine('beam', 'gpt-4o-mini', 'openai', {})).toBeNull();
    expect(paperComparisonLine('locomo', null, 'openai', {})).toBeNull();
  });
});
