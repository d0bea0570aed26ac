/**
 * The one progress interface of a run (src/core/phases.ts): the pipeline plans each phase's total
 * before the first request and counts work as it is done; the tally turns the counts into
 * done/total, a smoothed rate and the time left per phase, and the money each phase's requests
 * cost (by the provider role that spent it). `rawrag run`'s progress line and the manifest's
 * `progress` (what `rawrag view` shows) are both drawn from it.
 */
import { PHASES, PHASE_UNITS, type Phase, type PhaseFigures } from '../core/phases.js';
import type { ItemStage } from '../reader-judge/stage.js';
import type { Role } from '../providers/usage.js';
import { EtaEstimator } from '../util/eta.js';

/** Which phase a provider role's requests belong to. */
export const ROLE_PHASE: Readonly<Record<Role, Phase>> = {
  extract: 'ingest',
  embed: 'index',
  rerank: 'answer',
  reader: 'answer',
  judge: 'judge',
};

/** USD spent per phase from a session's per-role usage (`cost_usd_spent`, null when a price is unknown); phases that sent nothing are absent. */
export function costByPhase(
  roles: Record<string, { cost_usd_spent: number | null; requests: number } | undefined>,
): Partial<Record<Phase, number | null>> {
  const out: Partial<Record<Phase, number | null>> = {};
  for (const [role, u] of Object.entries(roles)) {
    const phase = ROLE_PHASE[role as Role];
    if (!phase || !u || u.requests === 0) continue;
    const before = out[phase];
    out[phase] = before === null || u.cost_usd_spent === null ? null : (before ?? 0) + u.cost_usd_spent;
  }
  return out;
}

/** The phases an item passes through after its evidence: `answer`, then whatever its stages add (`judge`). */
export function itemPhases(stages: readonly ItemStage[]): Phase[] {
  const own = new Set<Phase>(['answer', ...stages.flatMap((s) => s.phases ?? [])]);
  return PHASES.filter((p) => own.has(p));
}

/**
 * Each phase's total for these index groups (a resume's: what is left): turns to ingest and
 * episodes to index over the groups, and the questions for each phase an item passes. The
 * pipeline plans its tally with it before the first episode opens, and a grid plans every cell
 * with it before the first cell starts (src/pipeline/estimate.ts), so both count alike.
 */
export function phaseTotals(
  groups: ReadonlyArray<{ episode: string; visibleTurns?: number | null; questions: readonly unknown[] }>,
  turnsOf: (episode: string) => number | undefined,
  itemPhaseList: readonly Phase[],
): Partial<Record<Phase, number>> {
  const questions = groups.reduce((n, g) => n + g.questions.length, 0);
  const out: Partial<Record<Phase, number>> = {
    ingest: groups.reduce((n, g) => n + (g.visibleTurns ?? turnsOf(g.episode) ?? 0), 0),
    index: groups.length,
  };
  for (const phase of itemPhaseList) out[phase] = questions;
  // A phase with nothing to do is not planned (as PhaseTally.plan leaves it out).
  for (const phase of PHASES) if (out[phase] === 0) delete out[phase];
  return out;
}

interface Count {
  done: number;
  total: number;
  eta: EtaEstimator;
}

export class PhaseTally {
  private readonly counts = new Map<Phase, Count>();

  constructor(
    /** Called after every change (the caller throttles what it draws or writes). */
    private readonly onChange: () => void = () => undefined,
    /** Clock in ms (tests). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Adds `total` units to a phase's plan (phases are planned before their first unit is done). */
  plan(phase: Phase, total: number): void {
    if (total <= 0) return;
    const c = this.count(phase);
    c.total += total;
    c.eta.observe(c.done, this.now());
  }

  /** `n` units of a phase done. */
  add(phase: Phase, n = 1): void {
    if (n <= 0) return;
    const c = this.count(phase);
    c.done = Math.min(c.total, c.done + n);
    c.eta.observe(c.done, this.now());
    this.onChange();
  }

  /** Each planned phase in order, with its rate, time left and money (when the caller knows it). */
  figures(costs: Partial<Record<Phase, number | null>> = {}): PhaseFigures[] {
    const t = this.now();
    return PHASES.filter((p) => this.counts.has(p)).map((phase) => {
      const c = this.counts.get(phase)!;
      const finished = c.done >= c.total;
      return {
        phase,
        done: c.done,
        total: c.total,
        unit: PHASE_UNITS[phase],
        rate_per_s: c.eta.rateAt(c.done, t),
        eta_s: finished ? 0 : c.eta.eta(c.done, c.total, t),
        ...(phase in costs ? { cost_usd: costs[phase]! } : {}),
      };
    });
  }

  private count(phase: Phase): Count {
    let c = this.counts.get(phase);
    if (!c) this.counts.set(phase, (c = { done: 0, total: 0, eta: new EtaEstimator() }));
    return c;
  }
}

/**
 * One episode's ingest in turns: a source reports how far it has got in its own units (batches,
 * adds), counted here as the same share of the episode's turns; what it did not report is counted
 * when the episode is open (or failed to open), and the episode then counts as indexed.
 */
export class EpisodeIngest {
  private counted = 0;

  constructor(
    private readonly tally: PhaseTally | undefined,
    private readonly turns: number,
  ) {}

  report(done: number, total: number): void {
    if (total <= 0) return;
    this.to(Math.floor((this.turns * Math.min(done, total)) / total));
  }

  /** The episode is open (or could not be): the rest of its turns are ingested, and it is indexed. */
  finish(): void {
    this.to(this.turns);
    this.tally?.add('index');
  }

  private to(target: number): void {
    if (target <= this.counted) return;
    this.tally?.add('ingest', target - this.counted);
    this.counted = target;
  }
}
