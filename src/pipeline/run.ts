/**
 * `rawrag run`: plan -> open the run directory -> answer every pending question -> finish.
 * Resumable: items already in the directory are kept; only a run of the same identity resumes.
 */
import type { RunConfig } from '../config/schema.js';
import type { Question } from '../core/schema.js';
import type { Summary } from '../reader-judge/summary.js';
import { planStages, type StagePlan } from './stages.js';
import type { Benchmark } from '../core/benchmark.js';
import { ProviderSession } from '../providers/session.js';
import type { TransportOptions } from '../providers/transport.js';
import type { RunIdentity } from '../run-files/identity.js';
import type { Manifest } from '../run-files/manifest.js';
import { gitInfo, toolInfo } from '../run-files/manifest.js';
import { hashOf } from '../util/hash.js';
import { Interrupted } from '../util/interrupt.js';
import type { EvidenceSource } from '../core/evidence-source.js';
import { answerAll, buildSummary, roundAll, selectedItems } from './pipeline.js';
import { loadRunInputs, runDirFor, runIdFor } from './plan.js';
import { RunLifecycle, type ManifestFields } from './lifecycle.js';
import { createEvidenceSource } from '../systems/registry.js';
import { warningLines } from '../benchmarks/warnings.js';
import { dataSetting } from '../core/setting.js';
import { FAILURE_LIMIT_REASON, FailureStreak, RepeatedFailures } from './failure-streak.js';
import { checkShardOfDir, shardQuestions, type RunShard } from './shard.js';
import type { PhaseFigures } from '../core/phases.js';
import { costByPhase, PhaseTally } from './phases.js';

/**
 * The progress line's figures to the hooks; returns the phases (for the manifest). The question
 * count moves when an item is written, after its last phase event: the line ends at N/N.
 */
function reportProgress(hooks: RunHooks, done: number, total: number, info: ProgressInfo & { phases: PhaseFigures[] }): PhaseFigures[] {
  hooks.progress?.(done, total, info);
  return info.phases;
}

/** Failed items so far, retries and money spent by this run (the progress bar shows them). */
function progressInfo(session: ProviderSession, errors: number): ProgressInfo {
  const roles = Object.values(session.usage.report());
  if (roles.length === 0) return { errors };
  return { errors, retries: roles.reduce((s, r) => s + r.retries, 0), costUsd: session.usage.total().cost_usd_spent };
}

/** Optional figures a run reports with each step. */
export interface ProgressInfo {
  errors?: number;
  retries?: number;
  /** USD spent by this run so far; null when a price is unknown. */
  costUsd?: number | null;
  /** Each planned phase in order (ingest, index, answer, judge; src/core/phases.ts). */
  phases?: PhaseFigures[];
}

export interface RunHooks {
  log(line: string): void;
  /** Called with (done, total) as items finish and as each phase moves (ingest, index, answer, judge), with failed items so far, retries, money spent and the phases. */
  progress?(done: number, total: number, extra?: ProgressInfo): void;
  /** Aborted on SIGINT/SIGTERM: no new questions start; the manifest records `interrupted`. */
  signal?: AbortSignal;
  /** Called once the run has begun writing (its manifest says running): from here a stop waits for its flush. */
  started?(): void;
}

export interface RunOutcome {
  dir: string;
  manifest: Manifest;
  summary: Record<string, unknown> & Summary;
  /** Questions whose requests were deferred (a provider batch); the run is `incomplete` until they are answered. */
  deferred: number;
}

export interface RunRequest {
  cfg: RunConfig;
  /** Run directory; default `results/<run-id>`. */
  out: string | null;
  retryErrors?: boolean;
  /** Resume a directory whose identity differs (recorded in the manifest). */
  forceResume?: boolean;
  /** --verbose: every data warning on its own line (default: one summary line). */
  verbose?: boolean;
  /** Endpoints, timeouts, retries, concurrency, cache: how requests travel (not in the config hash). */
  transport?: Partial<TransportOptions>;
  /** The run's label (`--name`): kept in the manifest and summary, shown beside the system. */
  name?: string | null;
  /** `--shard I/N`: only every N-th conversation's questions (src/pipeline/shard.ts); recorded in the manifest. */
  shard?: RunShard | null;
  /** What the command was given besides the config (recorded in the manifest for `rawrag resume`). */
  invocation?: import('../run-files/invocation.js').Invocation;
  /** Another composition of the same pipeline (`rawrag judge`): its own evidence source, stages and names. */
  compose?: RunComposition;
}

export interface RunComposition {
  source(cfg: RunConfig, session: ProviderSession, opts: { runDir: string }): Promise<EvidenceSource>;
  stages(cfg: RunConfig, benchmark: Benchmark, session: ProviderSession, capabilities: EvidenceSource['capabilities']): Promise<StagePlan>;
  runId: string;
  /** The benchmark-setting from its data half (`longmemeval/variant=oracle`, src/core/setting.ts); throws an InputError to refuse. */
  setting(data: string): string;
  /** The questions this composition asks, from the selected ones (default: those). */
  questions?(selected: Question[]): Question[];
  /** Why the run cannot be whole even with every question done (a re-judge of an incomplete run): its status stays `incomplete`. */
  incompleteBecause?: string | null;
}

/** What must match for a directory to be resumed. */
export function runIdentity(cfg: RunConfig, source: EvidenceSource, dataSha256: string): RunIdentity {
  return {
    config_hash: hashOf(cfg),
    system: source.system,
    source: source.name,
    data_sha256: dataSha256,
    tool_version: toolInfo().version,
  };
}

/**
 * manifest.json `timings`: the stages' summed work (per-question times add up over questions in
 * flight at once, so `work_ms` can exceed the wall time) and this process's wall-clock time
 * (`wall_ms`; `total_ms` is the same figure, kept for older readers).
 */
export function runTimings(loadMs: number, stages: Record<string, number>, wallMs: number): Record<string, number> {
  const parts = { load_ms: loadMs, ...stages };
  const work = Object.values(parts).reduce((a, b) => a + b, 0);
  return { ...roundAll(parts), work_ms: Math.round(work), wall_ms: Math.round(wallMs), total_ms: Math.round(wallMs) };
}

/** How the run directory is opened or resumed: the request's resume flags and the ids that belong to the benchmark. */
function resumeOptions(req: RunRequest, benchmarkQuestions: Question[], questions: Question[]) {
  return {
    retryErrors: req.retryErrors,
    forceResume: req.forceResume,
    config: req.cfg,
    // (a composition's own questions, e.g. calibration probes, are this run's too)
    benchmarkIds: new Set([...benchmarkQuestions, ...questions].map((q) => q.id)),
    incompleteBecause: req.compose?.incompleteBecause ?? null,
  };
}

export async function executeRun(req: RunRequest, hooks: RunHooks): Promise<RunOutcome> {
  const t0 = performance.now();
  const { cfg } = req;
  // The manifest's git fields come from two git processes, run while the data loads.
  const git = gitInfo();
  // Everything that can reject the input happens before the run directory is touched.
  const inputs = await loadRunInputs(cfg);
  const { benchmark, dataset } = inputs;
  // A composition may ask other questions of the same data (re-judging: the answered ones; calibration: one per probe).
  const asked = req.compose?.questions?.(inputs.questions) ?? inputs.questions;
  const questions = req.shard ? shardQuestions(asked, req.shard) : asked;
  const data = dataSetting(benchmark, cfg.options, dataset);
  const dir = runDirFor(cfg, req.out);
  checkShardOfDir(dir, req.shard ?? null);
  const session = new ProviderSession(req.transport);
  let source: EvidenceSource | null = null;
  try {
    source = await (req.compose?.source ?? createEvidenceSource)(cfg, session, { runDir: dir });
    const stages = await (req.compose?.stages ?? planStages)(cfg, benchmark, session, { ...source.capabilities, system: source.system });
    // Who answered: the reader, or the system's own agent, with its LLM (the setting pairs it with readers of that model).
    const answeredBy = source.capabilities.answersItself?.model ?? cfg.reader.model ?? 'no-reader';
    const setting = req.compose ? req.compose.setting(data) : `${data}/${answeredBy}`;
    const identity = runIdentity(cfg, source, dataset.source.sha256);
    const runId = req.compose?.runId ?? runIdFor(cfg);
    const run = RunLifecycle.open(
      dir,
      identity,
      questions,
      resumeOptions(req, dataset.questions, questions),
      manifestFields({ req, source, stages, inputs, runId, setting, cacheDir: session.cache.dir, git: await git }),
    );
    const { opened, manifest } = run;
    const loadMs = performance.now() - t0;

    if (inputs.selection) hooks.log(`selected ${inputs.selection}`);
    for (const line of warningLines(dataset.source.path, dataset.warnings, req.verbose ?? false)) hooks.log(line);
    for (const n of [...source.notes, ...(stages.notes ?? []), ...opened.notes]) hooks.log(`note: ${n}`);
    // A source may learn things while it works (a service's version, an owner scheme it could not follow): printed at the end.
    const notesPrinted = source.notes.length;
    // Skipped stages are printed once, by the report (NOTE:), and kept in summary.json `skipped`.
    if (opened.done.size > 0) hooks.log(`resuming ${dir}: ${opened.done.size} of ${questions.length} questions already done`);
    // New questions stop on a signal, once the cost cap held a request back (--max-cost), or
    // once the same error failed --max-failures items in a row.
    const cap = req.transport?.costCap;
    const streak = new FailureStreak(req.transport?.maxFailures, questions.length);
    const failing = new AbortController();
    const stop = AbortSignal.any([failing.signal, ...(cap ? [cap.signal] : []), ...(hooks.signal ? [hooks.signal] : [])]);
    const spent = () => session.usage.total().cost_usd_spent;
    let finished = opened.done.size;
    let errors = opened.previous.filter((i) => i.error).length;
    const figures = () => tally.figures(costByPhase(session.usage.report()));
    // Every phase event and every item written redraw the progress line; a phase event also the manifest's `progress` (at most once a second).
    const report = () => reportProgress(hooks, finished, questions.length, { ...progressInfo(session, errors), phases: figures() });
    const tally = new PhaseTally(() => run.progress(report()));
    try {
      // Inside the try: a manifest that cannot be written (a full disk) still releases the lock.
      run.trackSpend(spent);
      run.start();
      hooks.started?.();
      hooks.progress?.(finished, questions.length, progressInfo(session, errors));
      const outcome = await answerAll(
        opened.pending,
        { cfg, benchmark, dataset, source, stages },
        {
          signal: stop,
          halt: session.cache.fullSignal,
          phases: tally,
          onItem(item) {
            run.append(item);
            finished++;
            if (item.error) errors++;
            const error = item.error ? `${item.error.stage}: ${item.error.message}` : null;
            if (streak.add(error) && !failing.signal.aborted) failing.abort(FAILURE_LIMIT_REASON);
            report();
          },
        },
      );
      opened.rundir.close();
      // A reply the cache's disk could not take was used and its item recorded; no question started
      // after it. The run stops here (exit 2 naming the cache file); the same command resumes, paying for none of them again.
      if (session.cache.full) throw session.cache.full;
      const items = selectedItems(opened.rundir, questions);
      const summary = buildSummary(items, {
        runId,
        name: manifest.name ?? null,
        system: source.system,
        setting,
        cfg,
        benchmark,
        dataset,
        stages,
        extra: source.report?.(),
      });
      run.progress(figures());
      const { interrupted } = run.finish({
        items,
        summary,
        signal: stop,
        timings: runTimings(loadMs, outcome.timings, performance.now() - t0),
        spentUsd: spent(),
        walls: outcome.walls,
      });
      for (const n of source.notes.slice(notesPrinted)) hooks.log(`note: ${n}`);
      if (interrupted) throw new Interrupted(interrupted, items.length, questions.length);
      if (failing.signal.aborted && items.length < questions.length) throw new RepeatedFailures(streak.limit!, streak.error!, dir);
      return { dir, manifest, summary, deferred: outcome.deferred };
    } catch (e) {
      run.fail(e, spent());
      throw e;
    } finally {
      run.release();
      await stages.close?.();
    }
  } finally {
    await source?.close?.();
    session.close();
  }
}

/** What the manifest records of a run besides its questions and identity. */
function manifestFields(o: {
  req: RunRequest;
  source: EvidenceSource;
  stages: StagePlan;
  inputs: Awaited<ReturnType<typeof loadRunInputs>>;
  runId: string;
  setting: string;
  cacheDir: ManifestFields['cacheDir'];
  git: Awaited<ReturnType<typeof gitInfo>>;
}): ManifestFields {
  const { req, source, stages, inputs, runId, setting } = o;
  const { cfg } = req;
  const { benchmark, dataset } = inputs;
  return {
    runId,
    system: source.system,
    benchmark: benchmark.name,
    setting,
    config: cfg,
    policy: { ...inputs.policy },
    source: {
      name: source.name,
      notes: source.notes,
      ...(source.capabilities.standIn ? { stand_in: true } : {}),
      ...(source.library ? { library: source.library } : {}),
    },
    ...(source.pairWith ? { pairWith: source.pairWith } : {}),
    skipped: stages.skipped,
    dataset: { ...dataset.source, warnings: dataset.warnings, questions: dataset.questions.length },
    name: req.name,
    cacheDir: o.cacheDir,
    ...(req.invocation ? { invocation: req.invocation } : {}),
    ...(req.shard ? { shard: req.shard } : {}),
    git: o.git,
  };
}
