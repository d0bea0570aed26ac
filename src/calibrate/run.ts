/**
 * `rawrag calibrate-judge BENCHMARK`: the benchmark's judge, exactly as `rawrag run` applies it
 * (the judge stages of `rawrag judge`: prompt, runs, cache, retries, batch, resume, dry-run cost),
 * on answers whose truth is known (src/calibrate/probes.ts). The run directory is an ordinary run
 * directory (system `judge-calibration`, one item per probe) plus calibration.json with the
 * figures, which `rawrag stats` and `rawrag report` show.
 */
import { join } from 'node:path';
import type { RunConfig } from '../config/schema.js';
import type { Question } from '../core/schema.js';
import { answersSource, judgeStages, type AnswersFile } from '../pipeline/judge-answers.js';
import { loadRunInputs } from '../pipeline/plan.js';
import type { RunComposition } from '../pipeline/run.js';
import { RunDir } from '../run-files/run-dir.js';
import { hashOf } from '../util/hash.js';
import { writeJsonAtomic } from '../util/fsx.js';
import type { ItemRecord } from '../core/item.js';
import { judgeModelFor } from '../core/protocol.js';
import { calibrationFigures, type CalibrationFigures } from './figures.js';
import { buildProbes, probeAnswers, readLabels, type Probe } from './probes.js';

export const CALIBRATION_SYSTEM = 'judge-calibration';
export const CALIBRATION_FILE = 'calibration.json';

export interface CalibrationPlan {
  probes: Probe[];
  answers: AnswersFile;
  questions: (selected: Question[]) => Question[];
  compose: RunComposition;
  /** Selected questions left out: not in the benchmark's headline (LoCoMo's adversarial category). */
  outsideHeadline: number;
  typeOrder: string[];
}

export async function planCalibration(cfg: RunConfig, labelsFile: string | null): Promise<CalibrationPlan> {
  const { benchmark, dataset, questions: selected } = await loadRunInputs(cfg);
  const inHeadline = (q: Question) => benchmark.aggregation?.inHeadline?.(q.type) ?? true;
  const asked = selected.filter(inHeadline);
  const labels = labelsFile ? { file: labelsFile, labels: readLabels(labelsFile) } : null;
  const probes = buildProbes(dataset, asked, cfg.seed, labels);
  const { answers, questions } = probeAnswers(probes, dataset);
  const judge = judgeModelFor(cfg.judge.model, benchmark.defaultJudgeModel);
  const runId = `calibrate-${cfg.benchmark}-${judge}-${hashOf({ cfg, probes: answers.sha256 }, 10)}`.replace(/[^A-Za-z0-9._-]/g, '_');
  return {
    probes,
    answers,
    questions,
    outsideHeadline: selected.length - asked.length,
    typeOrder: benchmark.typeOrder,
    compose: {
      runId,
      setting: (data) => `${data}/${CALIBRATION_SYSTEM}`,
      questions,
      source: async () => answersSource(answers, CALIBRATION_SYSTEM),
      stages: async (c, b, session) => judgeStages(c, b, session, answers),
    },
  };
}

/** The figures of a finished (or partly finished) calibration run, written beside its items and into summary.json. */
export function finishCalibration(
  dir: string,
  cfg: RunConfig,
  plan: CalibrationPlan,
  summary: Record<string, unknown>,
): CalibrationFigures {
  const ids = new Set(plan.probes.map((p) => p.id));
  const items: ItemRecord[] = new RunDir(dir).readItems().filter((i) => ids.has(i.id));
  const judge = summary.judge as { model?: string | null; protocol?: string | null; runs?: number } | undefined;
  const figures = calibrationFigures(items, {
    benchmark: cfg.benchmark,
    typeOrder: plan.typeOrder,
    judge: { model: judge?.model ?? null, protocol: judge?.protocol ?? null, runs: judge?.runs ?? cfg.judge.runs },
    seed: cfg.seed,
  });
  writeJsonAtomic(join(dir, CALIBRATION_FILE), figures);
  new RunDir(dir).writeSummary({ ...summary, calibration: figures });
  return figures;
}
