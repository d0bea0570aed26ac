/**
 * `rawrag judge --rejudge RUN_DIR`: an existing run's answers scored again under another judge
 * model, prompt or gold, nothing re-read. The run's items are the answers file of `rawrag judge`
 * (the answer each question got, and the turns its reader was shown, for coverage); the benchmark,
 * data and benchmark options come from the run's manifest, so the same questions are asked of the
 * same data. The benchmark options given on the command line (`-B gold`, `-B categories`) override
 * the run's: another gold is another setting (`locomo/gold=audited/...`), and categories can only
 * narrow the run's questions. The new directory keeps the run's system and differs by its judge:
 * `rawrag stats` over both reports each judge's leaderboard and the judge-vs-judge agreement.
 */
import { MANIFEST_FILE, readRunManifest } from '../run-files/record.js';
import { RunConfigSchema } from '../systems/registry.js';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunConfig } from '../config/schema.js';
import { mergeLayers, resolveConfig, type PartialConfig } from '../config/load.js';
import type { Question } from '../core/schema.js';
import { getBenchmark } from '../benchmarks/registry.js';
import { liveLockHolder } from '../run-files/lock.js';
import { RunDir } from '../run-files/run-dir.js';
import { InputError, UsageError } from '../util/errors.js';
import { hashOf } from '../util/hash.js';
import { splitJsonLines } from '../util/jsonl.js';
import type { AnswersFile } from './judge-answers.js';
import { loadRunInputs } from './plan.js';

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
  /**
   * Who scored the run's items: rawrag's judge stage (config.judge is what judged them), or another
   * harness whose verdicts an import kept (config.judge names no judge that ran: re-judging with
   * rawrag's default judge is a new judgement, not a repeat).
   */
  judgedBy: 'rawrag' | 'imported';
  /** What the reading noticed and the user should hear (a torn last line of items.jsonl). */
  notes: string[];
  /** Why the source is not whole (interrupted, questions not done), or null: its re-judge is then not whole either. */
  incomplete: string | null;
}

interface ManifestView {
  system: string;
  setting: string;
  config: RunConfig;
  dataset?: { sha256?: string };
  imported_from?: unknown;
  status?: string;
  questions?: { selected?: number; done?: number };
}

export function readRunForRejudge(dir: string): RejudgeSource {
  const manifestPath = join(dir, MANIFEST_FILE);
  // Through the run record (src/run-files/record.ts): validated, an older version upgraded.
  const m = readRunManifest(dir).manifest as unknown as ManifestView;
  if (!m.config || typeof m.config.benchmark !== 'string') {
    throw new InputError('a rawrag run manifest needs system, setting and config.benchmark', { file: manifestPath });
  }
  // A run still being written: its items are a moment of it, and a re-judge would pass for a whole run.
  const holder = liveLockHolder(dir);
  if (holder)
    throw new InputError(`the run is still running (${holder}, status ${m.status ?? 'unknown'}); re-judge it when it has finished`, {
      file: dir,
    });
  const items = new RunDir(dir).readItems();
  const file = join(dir, 'items.jsonl');
  const notes = tornTailNotes(file);
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
    judgedBy: m.imported_from !== undefined ? 'imported' : 'rawrag',
    notes,
    incomplete: sourceIncomplete(m, items.length),
  };
}

/** Why a source run is not whole (its status, or questions left undone), or null when it is complete. */
function sourceIncomplete(m: ManifestView, items: number): string | null {
  const selected = m.questions?.selected;
  const done = typeof selected === 'number' ? `${Math.min(items, selected)} of ${selected} questions done` : `${items} items`;
  if (m.status !== undefined && m.status !== 'complete') return `the source run is ${m.status} (${done})`;
  if (typeof selected === 'number' && items < selected) return `the source run has ${done}`;
  return null;
}

/**
 * A torn last line (a writer killed mid-record) is skipped by the item reader; say so, as `rawrag
 * stats` does, rather than re-judge one answer fewer in silence. Kept local and small: the shared
 * torn-tail reader of src/util/ replaces it.
 */
function tornTailNotes(file: string): string[] {
  if (!existsSync(file)) return [];
  const { torn } = splitJsonLines(readFileSync(file, 'utf8'));
  return torn
    ? [`${file}: last line ${torn.line} is incomplete (no newline, not valid JSON) and was skipped: that item is not re-judged`]
    : [];
}

/**
 * The re-judging run's config: the source run's benchmark, data and options, the benchmark options
 * given (`-B gold`, `-B categories`) over them; its judge with the given model / prompt / runs. No
 * selection flags: the questions are the answered ones. Refused when nothing would differ from the
 * judgement the run already has (rawrag's own judge, the same gold).
 */
export function rejudgeConfig(
  src: RejudgeSource,
  judge: PartialConfig,
  options: Record<string, string> = {},
  o: { allowSameJudge?: boolean } = {},
): RunConfig {
  const c = src.config;
  const benchmark = getBenchmark(c.benchmark);
  for (const key of Object.keys(options)) {
    if (!benchmark.options.some((o) => o.key === key))
      throw new UsageError(`-B ${key} is not an option of ${benchmark.name}, the benchmark of the run being re-judged`);
  }
  const layer: PartialConfig = {
    benchmark: c.benchmark,
    ...(c.data ? { data: c.data } : {}),
    options: { ...(c.options ?? {}), ...options },
    judge: { ...c.judge, ...judge },
  };
  const cfg = resolveConfig(mergeLayers(layer), join(src.dir, 'manifest.json'), RunConfigSchema);
  const sameJudge = judgePrompt(cfg) === judgePrompt(c) && cfg.judge.model === c.judge.model && cfg.judge.runs === c.judge.runs;
  // A sweep re-judges under every protocol named, the run's own too: its folder is one of the sweep's (cache hits cost nothing).
  if (src.judgedBy === 'rawrag' && sameJudge && changedOptions(src, cfg).length === 0 && !o.allowSameJudge) {
    throw new InputError(
      're-judging with the same judge model, prompt and runs, and the same benchmark options, as the run itself: name another --judge-model, --judge-prompt or -B gold',
      { place: '--rejudge' },
    );
  }
  return cfg;
}

const judgePrompt = (c: RunConfig) => c.judge.prompt?.sha256 ?? null;

/** The benchmark options whose value (default filled in) differs from the source run's. */
export function changedOptions(src: RejudgeSource, cfg: RunConfig): string[] {
  const benchmark = getBenchmark(cfg.benchmark);
  const value = (opts: Record<string, string | undefined> | undefined, key: string, def: string | undefined) => opts?.[key] ?? def;
  return benchmark.options
    .filter((o) => value(src.config.options, o.key, o.defaultValue) !== value(cfg.options, o.key, o.defaultValue))
    .map((o) => o.key);
}

/**
 * The questions to re-judge: the answered questions of the source run among those the (possibly
 * narrowed) options select, in data order. With the run's own options every answered question must
 * be in the data the run names; with other options (`-B categories`) the ones outside are left out
 * and counted, and options that would select a question the run never asked are refused (a
 * re-judge has no answer for it).
 */
export async function rejudgeSelection(
  src: RejudgeSource,
  cfg: RunConfig,
): Promise<{ questions: (qs: Question[]) => Question[]; leftOut: number }> {
  const changed = changedOptions(src, cfg);
  if (changed.length === 0) return { questions: answeredQuestions(src), leftOut: 0 };
  const own = await loadRunInputs({ ...cfg, options: { ...(src.config.options ?? {}) } });
  const now = await loadRunInputs(cfg);
  const asked = new Set(own.questions.map((q) => q.id));
  const beyond = now.questions.filter((q) => !asked.has(q.id));
  if (beyond.length > 0) {
    throw new InputError(
      `with ${changed.map((k) => `-B ${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}=${cfg.options[k]}`).join(' ')} the data selects ${beyond.length} question(s) the run never asked (first: ${beyond[0]!.id}): a re-judge has no answer for them; it can only narrow the run's questions`,
      { file: join(src.dir, 'manifest.json') },
    );
  }
  const selected = new Set(now.questions.map((q) => q.id));
  const leftOut = [...src.answers.byId.keys()].filter((id) => !selected.has(id)).length;
  if (leftOut === src.answers.byId.size) {
    throw new InputError(
      `none of the run's ${src.answers.byId.size} answered questions is selected by ${changed.map((k) => `-B ${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}=${cfg.options[k]}`).join(' ')}`,
      { file: join(src.dir, 'manifest.json') },
    );
  }
  return { questions: (qs) => qs.filter((q) => src.answers.byId.has(q.id)), leftOut };
}

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

/**
 * The re-judged run's setting from the data half the new options give (`locomo/gold=audited`): the
 * source run's reader or system part kept after it. A source setting that does not start with its
 * benchmark keeps its name while the data half is unchanged; otherwise `--setting` must name one.
 */
export function rejudgeSetting(src: RejudgeSource, cfg: RunConfig): (data: string) => string {
  return (data) => {
    const parts = src.setting.split('/');
    if (parts[0] !== cfg.benchmark || parts.length < 2) {
      if (changedOptions(src, cfg).length === 0) return src.setting;
      throw new InputError(
        `the run's setting '${src.setting}' does not start with its benchmark: give the re-judged run's setting with --setting (e.g. ${data}/<reader or system>)`,
        { place: '--setting' },
      );
    }
    // `<benchmark>/<key=value>.../<answered by>`: the data half is replaced, the rest kept.
    let i = 1;
    while (i < parts.length - 1 && parts[i]!.includes('=')) i++;
    return `${data}/${parts.slice(i).join('/')}`;
  };
}

/** Re-judging writes a run directory of its own: never the run being re-judged (its items keep the judge that scored them). */
export function checkRejudgeOut(src: RejudgeSource, out: string): void {
  if (resolve(out) === resolve(src.dir)) {
    throw new UsageError(
      `--out names the run being re-judged (${src.dir}): its items were scored by its own judge, and a manifest must never claim a judge that did not judge its items; give the re-judged run a directory of its own`,
    );
  }
}

/** Default directory name: the source run's and the judge's. */
export function rejudgeRunId(src: RejudgeSource, cfg: RunConfig): string {
  const judge = `${cfg.judge.model ?? 'official'}${cfg.judge.prompt ? `-${cfg.judge.prompt.protocol ?? 'prompt'}` : ''}`;
  const base = src.dir.replace(/\/+$/, '').split('/').pop() ?? 'run';
  return `${base}-rejudge-${judge}-${hashOf({ cfg, answers: src.answers.sha256 }, 8)}`.replace(/[^A-Za-z0-9._-]/g, '_');
}
