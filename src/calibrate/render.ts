/** What `rawrag calibrate-judge` prints, and the table `rawrag stats` shows for a calibration run. */
import { markdownTable } from '../util/table.js';
import type { CalibrationFigures, LabelFigures, Rate, Trust } from './figures.js';

const pct = (x: number | null | undefined) => (x === null || x === undefined ? 'undefined' : (100 * x).toFixed(2));
/** A majority-vote rate with its interval; undefined (not 0) when nothing of the kind was judged. */
const cell = (r: Rate) => (r.rate === null ? 'undefined (n 0)' : `${pct(r.rate)} [${pct(r.ci95!.low)}, ${pct(r.ci95!.high)}] (n ${r.n})`);
const runsCell = (r: Rate) => (r.mean_runs === null ? 'undefined (n 0)' : `${pct(r.mean_runs)} (n ${r.n})`);

/** The two definitions of "accepted", named wherever a figure is printed. */
export const MAJORITY_DEFINITION = 'majority vote: an answer is accepted when most of its judge runs accept it (rawrag)';
export const RUNS_DEFINITION =
  "mean of the judge runs: each run's acceptance rate, averaged over the runs (EverMemOS and the public LoCoMo audit)";

export function calibrationTable(f: CalibrationFigures, value: (r: Rate) => string = cell): string {
  const rows = [
    ...f.by_type.map((t) => [t.type, t.type_id ?? '', value(t.gold), value(t.false_accept.specific), value(t.false_accept.vague)]),
    ['overall', '', value(f.overall.gold), value(f.overall.false_accept.specific), value(f.overall.false_accept.vague)],
  ];
  const ci = value === cell ? ' [95% CI]' : '';
  return markdownTable(['type', 'id', `gold accepted %${ci}`, 'specific-but-wrong accepted %', 'vague-but-topical accepted %'], rows);
}

export function kappaText(l: Pick<LabelFigures, 'kappa' | 'kappa_undefined_because'>): string {
  return l.kappa === null ? `undefined (${l.kappa_undefined_because ?? 'no labelled answer was judged'})` : l.kappa.toFixed(3);
}

function labelsTable(labels: NonNullable<CalibrationFigures['labels']>): string {
  const row = (type: string, id: string | number, l: LabelFigures) => [
    type,
    id,
    l.n,
    pct(l.agreement),
    kappaText(l),
    cell(l.accepted_correct),
    cell(l.accepted_wrong),
    `${pct(l.accepted_wrong.mean_runs)}`,
    l.trusted_to === null ? 'undefined (needs both labels)' : `±${pct(l.trusted_to)}`,
  ];
  return markdownTable(
    [
      'type',
      'id',
      'n judged',
      'agreement %',
      "Cohen's kappa",
      'accepted of labelled CORRECT % [95% CI]',
      'accepted of labelled WRONG % [95% CI]',
      'labelled WRONG accepted, mean of runs %',
      'trust from these labels',
    ],
    [...labels.by_type.map((t) => row(t.type, t.type_id ?? '', t)), row('overall', '', labels)],
  );
}

const SIDES: Record<string, string> = {
  'labelled WRONG': 'answers you labelled WRONG accepted',
  specific: 'false-accept rate of specific answers',
  vague: 'false-accept rate of vague answers',
  'labelled CORRECT': 'answers you labelled CORRECT rejected',
  gold: 'gold answers rejected',
};

function trustLine(t: Trust): string {
  if (t.trusted_to === null) return 'Trust: undefined (it needs judged right answers and judged wrong answers)';
  const from = (side: string | null) => SIDES[side ?? ''] ?? 'unknown';
  return (
    `Trust${t.basis === 'labels' ? ' (from your labels where they cover a side)' : ''}: a score from this judge can overstate the true accuracy by up to ${pct(t.overstates_by)} points (${from(t.overstates_from)}, upper 95 % bound) ` +
    `and understate it by up to ${pct(t.understates_by)} points (${from(t.understates_from)}, upper bound): trust a score to ±${pct(t.trusted_to)} points, ` +
    'and a difference between two systems only beyond that (docs/judging.md).'
  );
}

export function renderCalibration(f: CalibrationFigures): string {
  const judge = `${f.judge.model ?? 'no judge'} x${f.judge.runs} (${f.judge.protocol ?? '—'})`;
  const lines = [
    `Judge calibration on ${f.benchmark}: judge ${judge}, ${f.questions} questions, perturbation seed ${f.seed}`,
    `Accepted % by ${MAJORITY_DEFINITION}; Wilson 95 % intervals.`,
    '',
    calibrationTable(f),
    '',
    `The same as the ${RUNS_DEFINITION}:`,
    '',
    calibrationTable(f, runsCell),
  ];
  if (f.labels) {
    const l = f.labels;
    const side = (r: Rate, label: string) =>
      r.n === 0
        ? `none labelled ${label}`
        : `${cell(r)} of those you labelled ${label} (majority vote; ${pct(r.mean_runs)} % as the mean of the judge runs)`;
    lines.push(
      '',
      `Your labels (${l.n} answers judged): agreement ${pct(l.agreement)} %, Cohen's kappa ${kappaText(l)}; ` +
        `accepted: ${side(l.accepted_correct, 'CORRECT')}, ${side(l.accepted_wrong, 'WRONG')}`,
      '',
      labelsTable(l),
    );
  }
  lines.push('', trustLine(f.trust));
  if (f.labels && f.trust_probes.trusted_to !== null) {
    lines.push(
      `On rawrag's rule-based probes alone the margin would be ±${pct(f.trust_probes.trusted_to)} points; your labelled answers are the ones that stand for real answers.`,
    );
  }
  const failed = Object.entries(f.failed);
  if (failed.length)
    lines.push(
      `NOTE: probes the judge did not score (errors; --retry-errors redoes them): ${failed.map(([k, n]) => `${k} ${n}`).join(', ')}`,
    );
  return lines.join('\n');
}
