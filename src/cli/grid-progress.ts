/**
 * A grid's progress as one bar: questions done over questions planned in every cell, and each
 * phase (ingest, index, answer, judge) done over what every cell plans for it. Each cell's totals
 * are known before the first cell starts (its selection counted, its phases planned as its run
 * will plan them: src/pipeline/estimate.ts `phases`), so no total grows as cells start and no
 * percentage goes backwards; a cell that could not be planned up front (its data missing: it will
 * fail) adds its totals when it reports.
 */
import type { ProgressInfo } from '../pipeline/run.js';
import { PHASES, PHASE_UNITS, type Phase, type PhaseFigures } from '../core/phases.js';

/** One cell's plan: its selection's question count and, when known, each phase's total (what is left to do). */
export interface CellPlan {
  questions: number;
  phases?: Partial<Record<Phase, number>>;
}

/**
 * The cells' phases as one: done and total summed over the cells that reported, their rates added
 * (cells run at once), the time left at that rate, the money summed (unknown when any is).
 * `waiting`: the phase totals planned up front for cells that have not reported those phases yet,
 * added to the totals only (nothing done, no rate of their own).
 */
export function mergePhases(
  cells: ReadonlyArray<readonly PhaseFigures[] | undefined>,
  waiting: ReadonlyArray<Partial<Record<Phase, number>>> = [],
): PhaseFigures[] {
  const out: PhaseFigures[] = [];
  for (const phase of PHASES) {
    const each = cells.flatMap((c) => (c ?? []).filter((p) => p.phase === phase));
    const planned = waiting.reduce((n, w) => n + (w[phase] ?? 0), 0);
    if (each.length === 0 && planned === 0) continue;
    const done = each.reduce((n, p) => n + p.done, 0);
    const total = each.reduce((n, p) => n + p.total, planned);
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
  /** Each cell's planned phase totals, by cell name. */
  private readonly plans = new Map<string, Partial<Record<Phase, number>>>();

  /** `planned`: each cell's question count or plan, by cell name (null: not known before it runs). */
  constructor(planned: ReadonlyMap<string, number | CellPlan | null>) {
    for (const [name, plan] of planned) {
      if (plan === null) continue;
      const p = typeof plan === 'number' ? { questions: plan } : plan;
      this.each.set(name, { done: 0, total: p.questions, info: {} });
      if (p.phases) this.plans.set(name, p.phases);
    }
  }

  /** A cell's report; returns the grid's figures to draw. */
  update(cell: string, done: number, total: number, info: ProgressInfo = {}): { done: number; total: number; info: ProgressInfo } {
    const planned = this.each.get(cell)?.total;
    // A resumed cell reports its whole selection, as planned; never less than planned.
    this.each.set(cell, { done, total: Math.max(total, planned ?? 0), info });
    const all = [...this.each.values()];
    const costs = all.map((p) => p.info.costUsd);
    // A cell's own phases once it reports them (its run plans them alike); its plan for those it has not reported.
    const waiting = [...this.plans].map(([name, plan]) => {
      const reported = new Set((this.each.get(name)?.info.phases ?? []).map((p) => p.phase));
      return Object.fromEntries(Object.entries(plan).filter(([phase]) => !reported.has(phase as Phase)));
    });
    const hasPhases = all.some((p) => p.info.phases) || waiting.some((w) => Object.keys(w).length > 0);
    return {
      done: all.reduce((s, p) => s + p.done, 0),
      total: all.reduce((s, p) => s + p.total, 0),
      info: {
        errors: all.reduce((s, p) => s + (p.info.errors ?? 0), 0),
        ...(hasPhases
          ? {
              phases: mergePhases(
                all.map((p) => p.info.phases),
                waiting,
              ),
            }
          : {}),
        ...(costs.some((c) => c !== undefined)
          ? { costUsd: costs.some((c) => c === null) ? null : costs.reduce<number>((s, c) => s + (c ?? 0), 0) }
          : {}),
      },
    };
  }
}
