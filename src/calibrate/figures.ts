/**
 * The calibration figures, from a calibration run's items: per probe kind and question type, the
 * share the judge accepted, two ways — by majority vote (an answer is accepted when most of its
 * judge runs accept it, i.e. item score >= 0.5; with a Wilson 95 % interval) and as the mean of the
 * judge runs (each run's acceptance rate averaged over the runs, as EverMemOS and the public LoCoMo
 * audit report); agreement with the user's labels (Cohen's kappa), overall and per type; and how
 * far a score from this judge can be trusted (docs/judging.md):
 *
 *   observed = a·t + f·(1 − t)   (t = true accuracy, a = acceptance of right answers, f = of wrong ones),
 *
 * so a score overstates the truth by at most f (all answers wrong) and understates it by at most
 * 1 − a (all right): `trusted_to` = max(f_high, 1 − a_low) at the Wilson bounds. With labels, f is
 * measured on the answers labelled WRONG and a on those labelled CORRECT (real answers, the user's
 * verdicts), a side without such labels falling back to the probes; without labels the probes give
 * both (and beside the labelled margin, `trust_probes`).
 */
import type { ItemRecord } from '../core/item.js';
import { cohenKappa, type Agreement } from '../stats/cohen.js';
import { wilson } from '../stats/intervals.js';
import type { ProbeKind } from './probes.js';

export interface Rate {
  n: number;
  accepted: number;
  /** Majority vote: accepted / n; null when n = 0 (undefined). */
  rate: number | null;
  ci95: { low: number; high: number } | null;
  /** Mean of the judge runs: the mean item score (= each run's acceptance rate, averaged over runs); null when n = 0. */
  mean_runs: number | null;
}

export interface KindRates {
  gold: Rate;
  false_accept: { specific: Rate; vague: Rate };
}

/** The judge against the user's labels, on one group of labelled answers. */
export interface LabelFigures {
  n: number;
  agreement: number | null;
  /** Null when undefined (no answers, or one side gives one verdict to all): see kappa_undefined_because. */
  kappa: number | null;
  kappa_undefined_because: string | null;
  /** Acceptance among the answers labelled CORRECT, and among those labelled WRONG (the false-accept rate on real answers). */
  accepted_correct: Rate;
  accepted_wrong: Rate;
  /** The trust margin these labels give (null when either side has no labelled answers). */
  trusted_to: number | null;
}

export interface Trust {
  /** What the margin was measured on: the user's labelled answers where they cover a side, else rawrag's rule-based probes. */
  basis: 'labels' | 'probes';
  overstates_by: number | null;
  /** The wrong answers that bound the overstatement: those the user labelled WRONG, or the worse probe kind. */
  overstates_from: 'labelled WRONG' | 'specific' | 'vague' | null;
  understates_by: number | null;
  /** The right answers that bound the understatement: those the user labelled CORRECT, or the gold answers. */
  understates_from: 'labelled CORRECT' | 'gold' | null;
  trusted_to: number | null;
  /** The wrong-answer probe kind that bounds the overstatement on the probes. */
  worst_kind: 'specific' | 'vague' | null;
}

export interface CalibrationFigures {
  benchmark: string;
  judge: { model: string | null; protocol: string | null; runs: number };
  seed: number;
  questions: number;
  overall: KindRates;
  by_type: Array<{ type: string; type_id: number | string | null } & KindRates>;
  labels: null | (LabelFigures & { by_type: Array<{ type: string; type_id: number | string | null } & LabelFigures> });
  /** The margin a score can be trusted to: from the labels when given, else from the probes. */
  trust: Trust;
  /** The same from the rule-based probes alone (equal to `trust` without labels). */
  trust_probes: Trust;
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

/** How far a score can be off: wrong answers accepted (upper bound) up, right answers rejected (upper bound) down. */
function margin(right: Rate, wrong: Rate): { over: number | null; under: number | null; to: number | null } {
  const over = wrong.ci95 ? wrong.ci95.high : null;
  const under = right.ci95 ? 1 - right.ci95.low : null;
  return { over, under, to: over === null || under === null ? null : Math.max(over, under) };
}

const KAPPA_WHY: Record<NonNullable<Agreement['undefined_because']>, string> = {
  'no items': 'no labelled answer judged',
  'a gives one label to every item': 'the judge gave one verdict to all',
  'b gives one label to every item': 'every answer carries the same label',
  'both give one label to every item': 'one label and one verdict for all',
};

function labelFigures(labelled: ItemRecord[]): LabelFigures {
  const ok = labelled.filter(scored);
  const k = cohenKappa(
    ok.map((i) => i.score! >= 0.5),
    ok.map((i) => probeOf(i)!.label === 1),
  );
  const accepted_correct = rate(labelled.filter((i) => probeOf(i)!.label === 1));
  const accepted_wrong = rate(labelled.filter((i) => probeOf(i)!.label === 0));
  return {
    n: k.n,
    agreement: k.agreement,
    kappa: k.kappa,
    kappa_undefined_because: k.undefined_because ? KAPPA_WHY[k.undefined_because] : null,
    accepted_correct,
    accepted_wrong,
    trusted_to: margin(accepted_correct, accepted_wrong).to,
  };
}

function worstKind(overall: KindRates): 'specific' | 'vague' | null {
  const fa = overall.false_accept;
  if (fa.specific.ci95 && fa.vague.ci95) return fa.vague.ci95.high >= fa.specific.ci95.high ? 'vague' : 'specific';
  return fa.vague.ci95 ? 'vague' : fa.specific.ci95 ? 'specific' : null;
}

function probeTrust(overall: KindRates): Trust {
  const worst = worstKind(overall);
  const m = margin(overall.gold, worst ? overall.false_accept[worst] : rate([]));
  return {
    basis: 'probes',
    overstates_by: m.over,
    overstates_from: m.over === null ? null : worst,
    understates_by: m.under,
    understates_from: m.under === null ? null : 'gold',
    trusted_to: m.to,
    worst_kind: worst,
  };
}

/** Each side from the labels when some answers carry that label (real answers), else from the probes. */
function labelTrust(l: LabelFigures, probes: Trust): Trust {
  const m = margin(l.accepted_correct, l.accepted_wrong);
  const over =
    m.over !== null ? { by: m.over, from: 'labelled WRONG' as const } : { by: probes.overstates_by, from: probes.overstates_from };
  const under =
    m.under !== null ? { by: m.under, from: 'labelled CORRECT' as const } : { by: probes.understates_by, from: probes.understates_from };
  return {
    basis: 'labels',
    overstates_by: over.by,
    overstates_from: over.from,
    understates_by: under.by,
    understates_from: under.from,
    trusted_to: over.by === null || under.by === null ? null : Math.max(over.by, under.by),
    worst_kind: probes.worst_kind,
  };
}

export function calibrationFigures(
  items: ItemRecord[],
  ctx: { benchmark: string; typeOrder: string[]; judge: CalibrationFigures['judge']; seed: number },
): CalibrationFigures {
  const probes = items.filter((i) => probeOf(i));
  const byRank = (a: string, b: string) => rank(a, ctx.typeOrder) - rank(b, ctx.typeOrder) || a.localeCompare(b);
  const typesOf = (xs: ItemRecord[]) => [...new Set(xs.map((i) => i.type))].sort(byRank);
  const typeId = (xs: ItemRecord[]) => xs[0]?.type_id ?? null;
  const generated = probes.filter((i) => probeOf(i)!.kind !== 'label');
  const labelled = probes.filter((i) => probeOf(i)!.kind === 'label');
  const overall = kindRates(probes);
  const labels = labelled.length
    ? {
        ...labelFigures(labelled),
        by_type: typesOf(labelled).map((t) => {
          const group = labelled.filter((i) => i.type === t);
          return { type: t, type_id: typeId(group), ...labelFigures(group) };
        }),
      }
    : null;
  const trust_probes = probeTrust(overall);
  const failed: Record<string, number> = {};
  for (const i of probes) if (i.error) failed[probeOf(i)!.kind] = (failed[probeOf(i)!.kind] ?? 0) + 1;
  return {
    benchmark: ctx.benchmark,
    judge: ctx.judge,
    seed: ctx.seed,
    questions: new Set(probes.filter((i) => probeOf(i)!.kind === 'gold').map((i) => probeOf(i)!.of)).size,
    overall,
    by_type: typesOf(generated).map((t) => {
      const group = probes.filter((i) => i.type === t);
      return { type: t, type_id: typeId(group), ...kindRates(group) };
    }),
    labels,
    trust: labels ? labelTrust(labels, trust_probes) : trust_probes,
    trust_probes,
    failed,
  };
}

function rank(t: string, order: string[]): number {
  const i = order.indexOf(t);
  return i === -1 ? order.length : i;
}
