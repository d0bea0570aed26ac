/**
 * `rawrag judge --rejudge RUN_DIR`: an existing run's answers scored again under another judge
 * model or prompt, nothing re-read. The run's items are the answers file of `rawrag judge` (the
 * answer each question got, and the turns its reader was shown, for coverage); the benchmark, data
 * and benchmark options come from the run's manifest, so the same questions are asked of the same
 * data. The new directory keeps the run's system and setting and differs by its judge: `rawrag
 * stats` over both reports each judge's leaderboard and the judge-vs-judge agreement.
 */
import { RunConfigSchema } from '../systems/registry.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfig } from '../config/schema.js';
import { mergeLayers, resolveConfig, type PartialConfig } from '../config/load.js';
import type { Question } from '../core/schema.js';
import { RunDir } from '../run/rundir.js';
import { InputError } from '../util/errors.js';
import { hashOf } from '../util/hash.js';
import type { AnswersFile } from './judge-answers.js';

export interface RejudgeSource {
  dir: string;
  system: string;
  setting: string;
  /** The run's config as recorded (benchmark, data, options, its judge). */
  config: RunConfig;
  dataSha256: string;
  answers: AnswersFile;
  /** Items that had no answer to judge (a failure before or at reading). */
  unanswered: string[];
}

interface ManifestView {
  system: string;
  setting: string;
  config: RunConfig;
  dataset?: { sha256?: string };
}

export function readRunForRejudge(dir: string): RejudgeSource {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new InputError('not a run directory (no manifest.json)', { file: dir });
  let m: ManifestView;
  try {
    m = JSON.parse(readFileSync(manifestPath, 'utf8')) as ManifestView;
  } catch (e) {
    throw new InputError(`not valid JSON (${(e as Error).message})`, { file: manifestPath });
  }
  if (!m || typeof m.system !== 'string' || typeof m.setting !== 'string' || !m.config || typeof m.config.benchmark !== 'string') {
    throw new InputError('a rawrag run manifest needs system, setting and config.benchmark', { file: manifestPath });
  }
  const items = new RunDir(dir).readItems();
  const file = join(dir, 'items.jsonl');
  if (items.length === 0) throw new InputError('the run has no items to re-judge', { file });
  const byId: AnswersFile['byId'] = new Map();
  const unanswered: string[] = [];
  items.forEach((it, i) => {
    const failedBeforeJudge = it.error && it.error.stage !== 'judge';
    if (typeof it.answer !== 'string' || failedBeforeJudge) {
      unanswered.push(it.id);
      return;
    }
    byId.set(it.id, { answer: it.answer, evidence: it.evidence_turns.length ? [...it.evidence_turns] : null, line: i + 1 });
  });
  if (byId.size === 0)
    throw new InputError(`none of the run's ${items.length} items has an answer (a run without a reader cannot be re-judged)`, { file });
  const sha256 = hashOf(
    [...byId].map(([id, a]) => [id, a.answer, a.evidence]),
    64,
  );
  return {
    dir,
    system: m.system,
    setting: m.setting,
    config: m.config,
    dataSha256: m.dataset?.sha256 ?? '',
    answers: { file, sha256, byId, ids: { file, entries: [...byId].map(([id, a]) => ({ id, line: a.line })) } },
    unanswered,
  };
}

/**
 * The re-judging run's config: the source run's benchmark, data and options; its judge with the
 * given model / prompt / runs. No selection flags: the questions are the answered ones.
 */
export function rejudgeConfig(src: RejudgeSource, judge: PartialConfig): RunConfig {
  const c = src.config;
  const layer: PartialConfig = {
    benchmark: c.benchmark,
    ...(c.data ? { data: c.data } : {}),
    options: { ...(c.options ?? {}) },
    judge: { ...c.judge, ...judge },
  };
  const cfg = resolveConfig(mergeLayers(layer), join(src.dir, 'manifest.json'), RunConfigSchema);
  if (judgePrompt(cfg) === judgePrompt(c) && cfg.judge.model === c.judge.model && cfg.judge.runs === c.judge.runs) {
    throw new InputError(
      're-judging with the same judge model, prompt and runs as the run itself: name another --judge-model or --judge-prompt',
      {
        place: '--rejudge',
      },
    );
  }
  return cfg;
}

const judgePrompt = (c: RunConfig) => c.judge.prompt?.sha256 ?? null;

/** The answered questions of the source run, in data order. */
export function answeredQuestions(src: RejudgeSource): (qs: Question[]) => Question[] {
  return (qs) => {
    const out = qs.filter((q) => src.answers.byId.has(q.id));
    const known = new Set(out.map((q) => q.id));
    const missing = [...src.answers.byId.keys()].filter((id) => !known.has(id));
    if (missing.length) {
      throw new InputError(`${missing.length} answered question(s) are not in the data the run names (first: ${missing[0]})`, {
        file: src.answers.file,
      });
    }
    return out;
  };
}

/** Default directory name: the source run's and the judge's. */
export function rejudgeRunId(src: RejudgeSource, cfg: RunConfig): string {
  const judge = `${cfg.judge.model ?? 'official'}${cfg.judge.prompt ? '-prompt' : ''}`;
  const base = src.dir.replace(/\/+$/, '').split('/').pop() ?? 'run';
  return `${base}-rejudge-${judge}-${hashOf({ cfg, answers: src.answers.sha256 }, 8)}`.replace(/[^A-Za-z0-9._-]/g, '_');
}
