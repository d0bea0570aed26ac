/**
 * The calibration figures, from a calibration run's items: per probe kind and question type, the
 * share the judge accepted (an answer is accepted when the majority of its judge runs say so, i.e.
 * item score >= 0.5) with a Wilson 95 % interval; agreement with the user's labels (Cohen's
 * kappa); and how far a score from this judge can be trusted (docs/judging.md):
 *
 *   observed = a·t + f·(1 − t)   (t = true accuracy, a = gold acceptance, f = false-accept rate),
 *
 * so a score overstates the truth by at most f (all answers wrong) and understates it by at most
 * 1 − a (all right): `trusted_to` = max(f_high, 1 − a_low), the Wilson bounds of the worst kind.
 */
import type { ItemRecord } from '../core/item.js';
import { cohenKappa } from '../stats/cohen.js';
import { wilson } from '../stats/intervals.js';
import type { ProbeKind } from './probes.js';

export interface Rate {
  n: number;
  accepted: number;
  /** accepted / n; null when n = 0. */
  rate: number | null;
  ci95: { low: number; high: number } | null;
  /** Mean of the item scores (the acceptance averaged over judge runs). */
  mean_runs: number | null;
}

export interface KindRates {
  gold: Rate;
  false_accept: { specific: Rate; vague: Rate };
}

export interface CalibrationFigures {
  benchmark: string;
  judge: { model: string | null; protocol: string | null; runs: number };
  seed: number;
  questions: number;
  overall: KindRates;
  by_type: Array<{ type: string; type_id: number | string | null } & KindRates>;
  labels: null | { n: number; agreement: number | null; kappa: number | null; accepted_correct: Rate; accepted_wrong: Rate };
  trust: {
    overstates_by: number | null;
    understates_by: number | null;
    trusted_to: number | null;
    worst_kind: 'specific' | 'vague' | null;
  };
  /** Probes the judge did not score (errors), by kind. */
  failed: Record<string, number>;
}

interface ProbeMeta {
  kind: ProbeKind;
  of: string;
  label: number | null;
}

const probeOf = (i: ItemRecord) => (i.meta?.calibration as ProbeMeta | undefined) ?? null;
const scored = (i: ItemRecord) => !i.error && i.score !== null;

export function rate(items: ItemRecord[]): Rate {
  const ok = items.filter(scored);
  const accepted = ok.filter((i) => i.score! >= 0.5).length;
  return {
    n: ok.length,
    accepted,
    rate: ok.length ? accepted / ok.length : null,
    ci95: ok.length ? wilson(accepted, ok.length) : null,
    mean_runs: ok.length ? ok.reduce((s, i) => s + i.score!, 0) / ok.length : null,
  };
}

function kindRates(items: ItemRecord[]): KindRates {
  const of = (k: ProbeKind) => items.filter((i) => probeOf(i)?.kind === k);
  return { gold: rate(of('gold')), false_accept: { specific: rate(of('specific')), vague: rate(of('vague')) } };
}

export function calibrationFigures(
  items: ItemRecord[],
  ctx: { benchmark: string; typeOrder: string[]; judge: CalibrationFigures['judge']; seed: number },
): CalibrationFigures {
  const probes = items.filter((i) => probeOf(i));
  const types = [...new Set(probes.filter((i) => probeOf(i)!.kind !== 'label').map((i) => i.type))].sort(
    (a, b) => rank(a, ctx.typeOrder) - rank(b, ctx.typeOrder) || a.localeCompare(b),
  );
  const labelled = probes.filter((i) => probeOf(i)!.kind === 'label');
  const labelledOk = labelled.filter(scored);
  const k = cohenKappa(
    labelledOk.map((i) => i.score! >= 0.5),
    labelledOk.map((i) => probeOf(i)!.label === 1),
  );
  const overall = kindRates(probes);
  const fa = overall.false_accept;
  const worst =
    fa.specific.ci95 && fa.vague.ci95
      ? fa.vague.ci95.high >= fa.specific.ci95.high
        ? 'vague'
        : 'specific'
      : fa.vague.ci95
        ? 'vague'
        : fa.specific.ci95
          ? 'specific'
          : null;
  const over = worst ? fa[worst].ci95!.high : null;
  const under = overall.gold.ci95 ? 1 - overall.gold.ci95.low : null;
  const failed: Record<string, number> = {};
  for (const i of probes) if (i.error) failed[probeOf(i)!.kind] = (failed[probeOf(i)!.kind] ?? 0) + 1;
  return {
    benchmark: ctx.benchmark,
    judge: ctx.judge,
    seed: ctx.seed,
    questions: new Set(probes.filter((i) => probeOf(i)!.kind === 'gold').map((i) => probeOf(i)!.of)).size,
    overall,
    by_type: types.map((t) => {
      const group = probes.filter((i) => i.type === t);
      return { type: t, type_id: group[0]?.type_id ?? null, ...kindRates(group) };
    }),
    labels: labelled.length
      ? {
          n: k.n,
          agreement: k.agreement,
          kappa: k.kappa,
          accepted_correct: rate(labelled.filter((i) => probeOf(i)!.label === 1)),
          accepted_wrong: rate(labelled.filter((i) => probeOf(i)!.label === 0)),
        }
      : null,
    trust: {
      overstates_by: over,
      understates_by: under,
      trusted_to: over === null || under === null ? null : Math.max(over, under),
      worst_kind: worst,
    },
    failed,
  };
}

function rank(t: string, order: string[]): number {
  const i = order.indexOf(t);
  return i === -1 ? order.length : i;
}
