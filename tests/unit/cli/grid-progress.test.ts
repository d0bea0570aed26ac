/**
 * Issue 43 item 4 (a grid's total known from the start): the grid's bar is fed the cells' progress
 * events as they come; its total is every cell's planned selection from the first event on, so the
 * percentage never goes backwards when a later cell starts.
 */
import { describe, expect, it } from 'vitest';
import { GridProgress } from '../../../src/cli/grid-progress.js';

/** Progress events as two cells of 4 and 6 questions report them, the second starting after the first ends. */
const EVENTS: Array<[string, number, number]> = [
  ['a', 0, 4],
  ['a', 1, 4],
  ['a', 2, 4],
  ['a', 4, 4],
  ['b', 0, 6],
  ['b', 3, 6],
  ['b', 6, 6],
];

describe('grid progress', () => {
  it('the total is every cell planned from the first event, the percentage never goes backwards', () => {
    const g = new GridProgress(
      new Map([
        ['a', 4],
        ['b', 6],
      ]),
    );
    const seen = EVENTS.map(([cell, done, total]) => g.update(cell, done, total));
    expect(new Set(seen.map((s) => s.total))).toEqual(new Set([10]));
    const pct = seen.map((s) => s.done / s.total);
    for (let i = 1; i < pct.length; i++) expect(pct[i]).toBeGreaterThanOrEqual(pct[i - 1]!);
    expect(seen.at(-1)).toMatchObject({ done: 10, total: 10 });
  });

  it('without the plan (the old behaviour) the total grew and the percentage fell: the test would fail', () => {
    const g = new GridProgress(new Map());
    const seen = EVENTS.map(([cell, done, total]) => g.update(cell, done, total));
    expect(seen[3]!.done / seen[3]!.total).toBe(1);
    expect(seen[4]!.done / seen[4]!.total).toBeLessThan(1);
  });

  it('sums errors and money over the cells; an unknown cost makes the sum unknown', () => {
    const g = new GridProgress(
      new Map([
        ['a', 2],
        ['b', 2],
      ]),
    );
    g.update('a', 1, 2, { errors: 1, costUsd: 0.5 });
    expect(g.update('b', 1, 2, { errors: 2, costUsd: 0.25 }).info).toEqual({ errors: 3, costUsd: 0.75 });
    expect(g.update('b', 2, 2, { costUsd: null }).info).toEqual({ errors: 1, costUsd: null });
  });
});

describe("grid progress by phase: each phase's total planned for every cell from the start", () => {
  const figures = (phase: 'ingest' | 'answer', done: number, total: number) => ({
    phase,
    done,
    total,
    unit: phase === 'ingest' ? 'turns' : 'questions',
    rate_per_s: null,
    eta_s: null,
  });

  it("a 2-cell grid's phase totals on its first line are those on its last", () => {
    const plan = { questions: 4, phases: { ingest: 419, answer: 4 } };
    const g = new GridProgress(
      new Map([
        ['a', plan],
        ['b', plan],
      ]),
    );
    const seen = [
      g.update('a', 0, 4),
      g.update('a', 0, 4, { phases: [figures('ingest', 419, 419)] }),
      g.update('a', 4, 4, { phases: [figures('ingest', 419, 419), figures('answer', 4, 4)] }),
      g.update('b', 0, 4),
      g.update('b', 4, 4, { phases: [figures('ingest', 419, 419), figures('answer', 4, 4)] }),
    ];
    const totals = (s: (typeof seen)[number]) => s.info.phases!.map((p) => [p.phase, p.total]);
    expect(totals(seen[0]!)).toEqual([
      ['ingest', 838],
      ['answer', 8],
    ]);
    for (const s of seen) expect(totals(s)).toEqual(totals(seen.at(-1)!));
    expect(seen.at(-1)!.info.phases!.map((p) => p.done)).toEqual([838, 8]);
    // Cell b not started: a's ingest is done, the grid's is half done, its time left unknown (no rate yet).
    expect(seen[2]!.info.phases![0]).toMatchObject({ done: 419, total: 838, eta_s: null });
  });
});
