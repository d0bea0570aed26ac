/**
 * Calibration run directories among the runs `rawrag stats` and `rawrag report` read: they hold
 * calibration.json and are shown as judge calibrations (figures per probe kind and type), not as
 * a system in a leaderboard (their items are probes, not answers to compare).
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readJsonFile } from '../util/fsx.js';
import type { CalibrationFigures } from './figures.js';
import { calibrationTable } from './render.js';
import { CALIBRATION_FILE } from './run.js';

export interface CalibrationRun {
  dir: string;
  label: string;
  figures: CalibrationFigures;
}

export function isCalibrationDir(dir: string): boolean {
  return existsSync(join(dir, CALIBRATION_FILE));
}

export function readCalibration(dir: string): CalibrationRun {
  return { dir, label: relative(process.cwd(), dir) || '.', figures: readJsonFile(join(dir, CALIBRATION_FILE)) as CalibrationFigures };
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? 'undefined' : (100 * x).toFixed(2));

/** One line per calibration: what a reader of a leaderboard needs beside each score. */
export function calibrationLine(c: CalibrationRun): string {
  const f = c.figures;
  const fa = f.overall.false_accept;
  // Older calibration.json files have no basis: their trust came from the probes.
  const fromLabels = f.trust.basis === 'labels';
  return (
    `judge calibration ${c.label}: ${f.benchmark}, judge ${f.judge.model} x${f.judge.runs}: gold accepted ${pct(f.overall.gold.rate)} %, ` +
    `false accepts specific ${pct(fa.specific.rate)} %, vague ${pct(fa.vague.rate)} % (majority vote; mean of the judge runs ` +
    `${pct(fa.specific.mean_runs)} %, ${pct(fa.vague.mean_runs)} %)` +
    (f.labels
      ? `, kappa vs labels ${f.labels.kappa === null ? 'undefined' : f.labels.kappa.toFixed(3)}, labelled WRONG accepted ${pct(f.labels.accepted_wrong.rate)} %`
      : '') +
    (f.trust.trusted_to !== null ? `; scores trusted to ±${pct(f.trust.trusted_to)} points${fromLabels ? ' (from the labels)' : ''}` : '')
  );
}

export function renderCalibrationSection(cs: CalibrationRun[]): string {
  if (cs.length === 0) return '';
  const out = ['## Judge calibration', ''];
  for (const c of cs) out.push(calibrationLine(c), '', calibrationTable(c.figures), '');
  return out.join('\n');
}
