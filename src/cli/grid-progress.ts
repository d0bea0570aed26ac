/**
 * A grid's progress as one bar: questions done over questions planned in every cell. Each cell's
 * total is known before the first cell starts (its selection, counted up front), so the total does
 * not grow as cells start and the percentage never goes backwards; a cell whose selection could
 * not be counted up front (its data missing: it will fail) adds its total when it reports.
 */
import type { ProgressInfo } from '../pipeline/run.js';

export class GridProgress {
  private readonly each = new Map<string, { done: number; total: number; info: ProgressInfo }>();

  /** `planned`: each cell's question count, by cell name (null: not known before it runs). */
  constructor(planned: ReadonlyMap<string, number | null>) {
    for (const [name, total] of planned) if (total !== null) this.each.set(name, { done: 0, total, info: {} });
  }

  /** A cell's report; returns the grid's figures to draw. */
  update(cell: string, done: number, total: number, info: ProgressInfo = {}): { done: number; total: number; info: ProgressInfo } {
    const planned = this.each.get(cell)?.total;
    // A resumed cell reports its whole selection, as planned; never less than planned.
    this.each.set(cell, { done, total: Math.max(total, planned ?? 0), info });
    const all = [...this.each.values()];
    const costs = all.map((p) => p.info.costUsd);
    return {
      done: all.reduce((s, p) => s + p.done, 0),
      total: all.reduce((s, p) => s + p.total, 0),
      info: {
        errors: all.reduce((s, p) => s + (p.info.errors ?? 0), 0),
        ...(costs.some((c) => c !== undefined)
          ? { costUsd: costs.some((c) => c === null) ? null : costs.reduce<number>((s, c) => s + (c ?? 0), 0) }
          : {}),
      },
    };
  }
}
