/**
 * A grid's progress as one bar: questions done over questions planned in every cell. Each cell's
 * total is known before the first cell starts (its selection, counted up front), so the total does
 * not grow as cells start and the percentage never goes backwards; a cell whose selection could
 * not be counted up front (its data missing: it will fail) adds its total when it reports.
 */
import type { ProgressInfo } from '../pipeline/run.js';
import { PHASES, PHASE_UNITS, type PhaseFigures } from '../core/phases.js';

/**
 * The cells' phases as one: done and total summed over the cells that reported, their rates added
 * (cells run at once), the time left at that rate, the money summed (unknown when any is).
 */
export function mergePhases(cells: ReadonlyArray<readonly PhaseFigures[] | undefined>): PhaseFigures[] {
  const out: PhaseFigures[] = [];
  for (const phase of PHASES) {
    const each = cells.flatMap((c) => (c ?? []).filter((p) => p.phase === phase));
    if (each.length === 0) continue;
    const done = each.reduce((n, p) => n + p.done, 0);
    const total = each.reduce((n, p) => n + p.total, 0);
    const running = each.filter((p) => p.done < p.total);
    const rates = running.map((p) => p.rate_per_s);
    const rate = running.length && rates.every((r) => r !== null) ? rates.reduce<number>((a, r) => a + r!, 0) : null;
    const costs = each.filter((p) => p.cost_usd !== undefined).map((p) => p.cost_usd!);
    out.push({
      phase,
      done,
      total,
      unit: PHASE_UNITS[phase],
      rate_per_s: rate,
      eta_s: done >= total ? 0 : rate ? (total - done) / rate : null,
      ...(costs.length ? { cost_usd: costs.some((c) => c === null) ? null : costs.reduce<number>((a, c) => a + c!, 0) } : {}),
    });
  }
  return out;
}

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
        ...(all.some((p) => p.info.phases) ? { phases: mergePhases(all.map((p) => p.info.phases)) } : {}),
        ...(costs.some((c) => c !== undefined)
          ? { costUsd: costs.some((c) => c === null) ? null : costs.reduce<number>((s, c) => s + (c ?? 0), 0) }
          : {}),
      },
    };
  }
}
