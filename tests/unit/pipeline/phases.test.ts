/**
 * Issue 43.4, progress by phase: the tally a run's pipeline counts its phases in (ingest, index,
 * answer, judge), the share of an episode's turns a source's own units stand for, the money per
 * phase from the provider roles, the progress line drawn from them, and a grid's phases merged.
 */
import { describe, expect, it } from 'vitest';
import { costByPhase, EpisodeIngest, itemPhases, PhaseTally } from '../../../src/pipeline/phases.js';
import { mergePhases, GridProgress } from '../../../src/cli/grid-progress.js';
import { phasesText, progressBar } from '../../../src/cli/progress.js';
import type { ItemStage } from '../../../src/reader-judge/stage.js';

describe('PhaseTally', () => {
  it('lists the planned phases in flow order, whatever order they were planned or counted in', () => {
    const t = new PhaseTally(
      () => undefined,
      () => 0,
    );
    t.plan('judge', 4);
    t.plan('answer', 4);
    t.plan('ingest', 100);
    t.plan('index', 2);
    t.add('answer');
    expect(t.figures().map((f) => [f.phase, f.done, f.total, f.unit])).toEqual([
      ['ingest', 0, 100, 'turns'],
      ['index', 0, 2, 'episodes'],
      ['answer', 1, 4, 'questions'],
      ['judge', 0, 4, 'questions'],
    ]);
  });

  it('gives no rate or ETA at first, then a steady one; a finished phase has 0 s left; done never passes total', () => {
    let now = 0;
    const changes: number[] = [];
    const t = new PhaseTally(
      () => changes.push(now),
      () => now,
    );
    t.plan('ingest', 100);
    now = 1000;
    t.add('ingest', 2);
    expect(t.figures()[0]).toMatchObject({ done: 2, rate_per_s: null, eta_s: null });
    for (let s = 2; s <= 10; s++) {
      now = s * 1000;
      t.add('ingest', 2); // 2 turns a second
    }
    const f = t.figures()[0]!;
    expect(f.rate_per_s).toBeCloseTo(2, 1);
    expect(f.eta_s).toBeCloseTo((100 - 20) / 2, 0);
    t.add('ingest', 500);
    expect(t.figures()[0]).toMatchObject({ done: 100, total: 100, eta_s: 0 });
    expect(changes.length).toBe(11);
  });

  it('puts each provider role’s money on its phase; unknown prices stay unknown; roles that sent nothing are absent', () => {
    const costs = costByPhase({
      extract: { cost_usd_spent: 0.5, requests: 10 },
      embed: { cost_usd_spent: 0.01, requests: 2 },
      rerank: { cost_usd_spent: null, requests: 1 },
      reader: { cost_usd_spent: 0.2, requests: 4 },
      judge: { cost_usd_spent: 0, requests: 0 },
    });
    expect(costs).toEqual({ ingest: 0.5, index: 0.01, answer: null });
    const t = new PhaseTally(
      () => undefined,
      () => 0,
    );
    t.plan('ingest', 10);
    t.plan('judge', 1);
    expect(t.figures(costs).map((f) => f.cost_usd)).toEqual([0.5, undefined]);
  });

  it('an item passes answer, then the phases its stages name (an LLM judge)', () => {
    const stage = (phases?: ItemStage['phases']): ItemStage => ({ name: 's', run: async () => undefined, ...(phases ? { phases } : {}) });
    expect(itemPhases([stage(['judge']), stage(), stage(['answer'])])).toEqual(['answer', 'judge']);
    expect(itemPhases([stage()])).toEqual(['answer']);
  });
});

describe('EpisodeIngest', () => {
  it("counts a source's own units as the same share of the episode's turns, the rest when it is open, then the episode as indexed", () => {
    const t = new PhaseTally(
      () => undefined,
      () => 0,
    );
    t.plan('ingest', 419);
    t.plan('index', 1);
    const e = new EpisodeIngest(t, 419);
    e.report(0, 19);
    e.report(5, 19); // 5 of 19 batches: 110 of 419 turns
    e.report(3, 19); // a late, smaller report never takes turns back
    expect(t.figures()[0]!.done).toBe(110);
    expect(t.figures()[1]!.done).toBe(0);
    e.finish();
    expect(t.figures().map((f) => f.done)).toEqual([419, 1]);
  });
});

describe('the progress line by phase', () => {
  const phases = [
    { phase: 'ingest' as const, done: 120, total: 419, unit: 'turns', rate_per_s: 3.21, eta_s: 93, cost_usd: 0.0123 },
    { phase: 'index' as const, done: 0, total: 1, unit: 'episodes', rate_per_s: null, eta_s: null },
    { phase: 'answer' as const, done: 0, total: 80, unit: 'questions', rate_per_s: null, eta_s: null },
  ];

  it('shows the phases that started, with rate, ETA and money', () => {
    expect(phasesText(phases)).toBe('ingest 120/419 turns 3.2/s ETA 1m 33s $0.0123');
    expect(
      phasesText([
        { ...phases[0]!, done: 419, cost_usd: null },
        { ...phases[1]!, done: 1 },
      ]),
    ).toBe('ingest 419/419 turns $ unknown | index 1/1 episodes');
  });

  it('a plain progress line carries them during an ingest that answers nothing yet', () => {
    const out: string[] = [];
    let t = 0;
    const bar = progressBar('locomo', true, { stream: { write: (s: string) => out.push(s), isTTY: false }, now: () => t, intervalS: 10 });
    bar.update(0, 80, { errors: 0, phases });
    t = 11_000;
    bar.update(0, 80, { errors: 0, phases });
    expect(out).toEqual(['locomo: 0/80 questions (0.0%) | ETA — | ingest 120/419 turns 3.2/s ETA 1m 33s $0.0123 | 0 errors\n']);
  });
});

describe("a grid's phases", () => {
  it('sums the cells, adds the running cells’ rates, and keeps the grid’s question total fixed from the start', () => {
    const cell = (done: number, total: number, rate: number | null, cost: number | null) => [
      { phase: 'answer' as const, done, total, unit: 'questions', rate_per_s: rate, eta_s: null, cost_usd: cost },
    ];
    expect(mergePhases([cell(10, 20, 2, 0.1), cell(5, 10, 1, 0.2), undefined])).toEqual([
      { phase: 'answer', done: 15, total: 30, unit: 'questions', rate_per_s: 3, eta_s: 5, cost_usd: expect.closeTo(0.3, 10) },
    ]);
    expect(mergePhases([cell(10, 20, null, null), cell(10, 10, 1, 0.2)])[0]).toMatchObject({
      rate_per_s: null,
      eta_s: null,
      cost_usd: null,
    });
    const g = new GridProgress(
      new Map([
        ['a', 20],
        ['b', 10],
      ]),
    );
    const first = g.update('a', 10, 20, { phases: cell(10, 20, 2, 0.1) });
    const second = g.update('b', 0, 10, { phases: cell(0, 10, null, null) });
    expect([first.total, second.total]).toEqual([30, 30]);
    expect(second.done / second.total).toBeGreaterThanOrEqual(first.done / first.total);
    expect(second.info.phases).toMatchObject([{ phase: 'answer', done: 10, total: 30 }]);
  });
});
