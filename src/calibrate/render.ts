/** What `rawrag calibrate-judge` prints, and the table `rawrag stats` shows for a calibration run. */
import { markdownTable } from '../util/table.js';
import type { CalibrationFigures, Rate } from './figures.js';

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : (100 * x).toFixed(2));
const cell = (r: Rate) => (r.rate === null ? '—' : `${pct(r.rate)} [${pct(r.ci95!.low)}, ${pct(r.ci95!.high)}] (n ${r.n})`);

export function calibrationTable(f: CalibrationFigures): string {
  const rows = [
    ...f.by_type.map((t) => [t.type, t.type_id ?? '', cell(t.gold), cell(t.false_accept.specific), cell(t.false_accept.vague)]),
    ['overall', '', cell(f.overall.gold), cell(f.overall.false_accept.specific), cell(f.overall.false_accept.vague)],
  ];
  return markdownTable(['type', 'id', 'gold accepted % [95% CI]', 'specific-but-wrong accepted %', 'vague-but-topical accepted %'], rows);
}

export function renderCalibration(f: CalibrationFigures): string {
  const judge = `${f.judge.model ?? 'no judge'} x${f.judge.runs} (${f.judge.protocol ?? '—'})`;
  const lines = [
    `Judge calibration on ${f.benchmark}: judge ${judge}, ${f.questions} questions, perturbation seed ${f.seed}`,
    'An answer counts as accepted when the majority of its judge runs accept it; Wilson 95 % intervals.',
    '',
    calibrationTable(f),
  ];
  if (f.labels) {
    const l = f.labels;
    lines.push(
      '',
      `Your labels (${l.n} answers judged): agreement ${pct(l.agreement)} %, Cohen's kappa ${l.kappa === null ? '—' : l.kappa.toFixed(3)}; ` +
        `accepted: ${cell(l.accepted_correct)} of those you labelled CORRECT, ${cell(l.accepted_wrong)} of those you labelled WRONG`,
    );
  }
  const t = f.trust;
  if (t.trusted_to !== null) {
    lines.push(
      '',
      `Trust: a score from this judge can overstate the true accuracy by up to ${pct(t.overstates_by)} points (false-accept rate of ${t.worst_kind} answers, upper 95 % bound) ` +
        `and understate it by up to ${pct(t.understates_by)} points (gold answers rejected, upper bound): trust a score to ±${pct(t.trusted_to)} points, ` +
        'and a difference between two systems only beyond that (docs/judging.md).',
    );
  }
  const failed = Object.entries(f.failed);
  if (failed.length)
    lines.push(
      `NOTE: probes the judge did not score (errors; --retry-errors redoes them): ${failed.map(([k, n]) => `${k} ${n}`).join(', ')}`,
    );
  return lines.join('\n');
}
