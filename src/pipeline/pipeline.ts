/**
 * The one pipeline every command composes (`run`, `ablate`, `judge`, dry runs):
 *   index an episode   -> source.open(ep)            (failure: its questions become item errors)
 *   answer a question  -> evidence -> read -> judge   (answerQuestion)
 *   schedule           -> across episodes, one limiter per run, bounded episodes in flight
 *   finish             -> summary with the benchmark's own context, manifest status and counts
 */
import { protocolDeviations } from '../reader-judge/reader-override.js';
import pLimit from 'p-limit';
import type { RunConfig } from '../config/schema.js';
import type { Benchmark } from '../core/benchmark.js';
import type { Dataset, Episode, Question } from '../core/schema.js';
import { baseItem, type ItemRecord } from '../core/item.js';
import { ingest, ingestYielding } from '../retrieval/chunk.js';
import type { IngestedEpisode } from '../core/ingested-episode.js';
import type { Evidence } from '../core/ingested-episode.js';
import type { ItemStage, StagePlan } from './stages.js';
import { summarise } from '../reader-judge/summary.js';
import type { RunDir } from '../run-files/run-dir.js';
import type { EpisodeEvidence, EvidenceSource, SourceContext } from '../core/evidence-source.js';
import { checkEvidence } from './evidence-checks.js';
import { effectivePolicy, episodeOf, groupByIndex, type IndexGroup } from './plan.js';
import { yieldToEventLoop } from '../util/yield.js';
import { round } from '../util/num.js';
import { isLocalFsFailure } from '../util/fsx.js';
import { finishWithin } from '../util/interrupt.js';
import { isDeferred } from '../providers/batch/defer.js';
import { addCost } from '../providers/usage.js';
import { PhaseClock } from '../util/phase-clock.js';
import { ConfigurationError } from '../util/errors.js';
import { PHASES, type Phase } from '../core/phases.js';
import { EpisodeIngest, itemPhases, phaseTotals, type PhaseTally } from './phases.js';

/** Not an item's error: a deferral, a full disk, a setting that fails every item alike (exit 2). */
function stopsRun(e: unknown): boolean {
  return isDeferred(e) || isLocalFsFailure(e) || e instanceof ConfigurationError;
}

/**
 * Runs the item's stages in order; the first failure is the item's error (a deferral propagates).
 * `passed` hears each phase a stage completes (the reader's `answer`, the judge's `judge`).
 */
export async function runStages(
  item: ItemRecord,
  stages: ItemStage[],
  ctx: Parameters<ItemStage['run']>[1],
  passed: (phase: Phase) => void = () => undefined,
): Promise<void> {
  for (const stage of stages) {
    try {
      await stage.run(item, ctx);
    } catch (e) {
      if (stopsRun(e)) throw e;
      item.error = { stage: stage.name, message: (e as Error).message };
      return;
    }
    for (const phase of stage.phases ?? []) passed(phase);
  }
}

export interface QuestionContext extends SourceContext {
  ep: IngestedEpisode;
  stages: ItemStage[];
  /** Hears each phase the question passes (src/pipeline/phases.ts). */
  passed?: (phase: Phase) => void;
}

/** One question, start to finish: evidence from the source, then the stages. */
export async function answerQuestion(q: Question, episode: EpisodeEvidence, ctx: QuestionContext): Promise<ItemRecord> {
  const item = baseItem(q, ctx.benchmark.name);
  const tr = performance.now();
  let evidence: Evidence;
  try {
    evidence = checkEvidence(q, item, await episode.evidenceFor(q, item, ctx), ctx);
  } catch (e) {
    // A full disk here (a memory service's ingest log) stops the run, naming the file.
    if (stopsRun(e)) throw e;
    item.error = { stage: 'retrieve', message: (e as Error).message };
    return item;
  }
  item.timings.retrieve_ms = round(performance.now() - tr, 2);
  const ts = performance.now();
  await runStages(item, ctx.stages, { question: q, evidence, ep: ctx.ep, cfg: ctx.cfg, benchmark: ctx.benchmark }, ctx.passed);
  if (ctx.stages.length > 0) item.timings.stages_ms = round(performance.now() - ts, 2);
  return item;
}

/** Items for questions whose episode could not be indexed: errors that --retry-errors redoes. */
export function failedItems(questions: Question[], benchmark: string, stage: string, message: string): ItemRecord[] {
  return questions.map((q) => {
    const item = baseItem(q, benchmark);
    item.error = { stage, message };
    return item;
  });
}

/** Ingests the visible part of an episode with its effective policy. */
export function ingestGroup(
  benchmark: Benchmark,
  cfg: RunConfig,
  episode: Episode,
  group: IndexGroup,
  chunking = cfg.chunking,
): IngestedEpisode {
  return ingest(episode, group.visibleTurns ?? episode.turns.length, effectivePolicy(benchmark, cfg, episode), chunking);
}

export interface ScheduleHooks {
  /** Called once per finished item (written by the caller). */
  onItem(item: ItemRecord): void;
  /** Stop taking new questions (SIGINT/SIGTERM); questions in flight get STOP_GRACE_MS to finish. */
  signal?: AbortSignal;
  /** Stop taking new questions, but let those in flight finish whatever it takes (the cache's disk is full: their replies are paid). */
  halt?: AbortSignal;
  /** Counts the run's phases (planned here before the first episode opens). */
  phases?: PhaseTally;
}

export interface ScheduleOutcome {
  answered: number;
  deferred: number;
  /** warmup = one-time work before the first question (prefetch, loading models); not in any item's timings. */
  timings: { warmup_ms: number; ingest_ms: number; retrieve_ms: number; stages_ms: number };
  /**
   * Wall time of each phase in this process (src/pipeline/phase-clock.ts): adding histories to the
   * index (`ingest`), finding evidence (`search`), and the time either ran (`add_search`), not the
   * summed work of `timings`.
   */
  walls: { ingest_wall_ms: number; search_wall_ms: number; add_search_wall_ms: number };
}

/**
 * Answers `pending` across episodes: at most `concurrency` questions in flight over the whole
 * run (not per episode, so one-question episodes overlap too), at most `episodesInFlight` indexes
 * held at once (memory). Items are handed to `onItem` as they finish.
 */
export async function answerAll(
  pending: Question[],
  run: { cfg: RunConfig; benchmark: Benchmark; dataset: Dataset; source: EvidenceSource; stages: StagePlan },
  hooks: ScheduleHooks,
): Promise<ScheduleOutcome> {
  const { cfg, benchmark, dataset, source, stages } = run;
  const episodes = new Map(dataset.episodes.map((e) => [e.id, e]));
  const questionLimit = pLimit(Math.max(1, stages.concurrency));
  const episodeLimit = pLimit(Math.max(1, Math.min(source.capabilities.episodesAtOnce ?? 16, stages.concurrency)));
  const out = emptyOutcome();
  const adding = new PhaseClock();
  const searching = new PhaseClock();
  // An item that cannot be written (a full disk) stops the run: no new question starts after it.
  let writeFailed = false;
  // Questions still in flight when a stop signal's grace ran out: their items are not written.
  let left = false;
  const onItem = (item: ItemRecord) => {
    if (left) return;
    try {
      hooks.onItem(item);
    } catch (e) {
      writeFailed = true;
      throw e;
    }
  };
  const stopped = () => hooks.signal?.aborted === true || hooks.halt?.aborted === true || writeFailed;
  const groups = groupByIndex(pending);
  const phases = planPhases(hooks.phases, groups, episodes, stages.stages);
  out.timings.warmup_ms = await warmUp(source, pending);
  const all = Promise.all(
    groups.map((group) =>
      episodeLimit(async () => {
        // Each CPU-bound step (chunking, indexing, ranking) ends with a turn of the event loop, so a
        // signal is seen between steps (stop within ~2 s also offline) and no new step starts after it.
        await yieldToEventLoop();
        if (stopped()) return;
        const episode = episodeOf(dataset, episodes, group);
        const policy = effectivePolicy(benchmark, cfg, episode);
        const ti = performance.now();
        const ep = await ingestYielding(episode, group.visibleTurns ?? episode.turns.length, policy, cfg.chunking, stopped);
        await yieldToEventLoop();
        if (ep === null || stopped()) return;
        const ingested = new EpisodeIngest(hooks.phases, ep.visibleTurns);
        const ctx: QuestionContext = { cfg, benchmark, policy, ep, stages: stages.stages };
        let opened: EpisodeEvidence;
        try {
          opened = await source.open(ep, { ...ctx, ingestProgress: (done, total) => ingested.report(done, total) });
          ingested.finish();
        } catch (e) {
          if (isDeferred(e)) {
            out.deferred += group.questions.length;
            return;
          }
          // A full disk while indexing (a memory service's ingest log) or a setting that cannot work
          // (an embedding model of another dimension) stops the run, naming the file or the setting.
          if (isLocalFsFailure(e) || e instanceof ConfigurationError) {
            writeFailed = true;
            throw e;
          }
          // The episode could not be indexed (e.g. its embeddings failed): its questions are
          // errors, which --retry-errors redoes; the other episodes go on.
          ingested.finish();
          for (const item of failedItems(group.questions, benchmark.name, 'retrieve', (e as Error).message)) {
            onItem(item);
            phases.forEach(passOnce(hooks.phases));
          }
          out.answered += group.questions.length;
          return;
        }
        const ingestMs = performance.now() - ti;
        out.timings.ingest_ms += ingestMs;
        adding.add(ti, ti + ingestMs);
        // Each question carries its share of building the index it searched, so per-episode add
        // time (BEAM's efficiency table) is a sum over items, also across resumed runs.
        const share = round(ingestMs / group.questions.length, 2);
        await Promise.all(
          group.questions.map((q) =>
            questionLimit(async () => {
              await yieldToEventLoop();
              if (stopped()) return;
              let item: ItemRecord;
              const tq = performance.now();
              const pass = passOnce(hooks.phases);
              try {
                item = await answerQuestion(q, opened, { ...ctx, passed: pass });
                searching.add(tq, tq + (item.timings.retrieve_ms ?? 0));
              } catch (e) {
                // A setting that fails every item alike: no new question starts after it.
                if (e instanceof ConfigurationError) writeFailed = true;
                if (!isDeferred(e)) throw e;
                out.deferred++;
                return;
              }
              item.timings.ingest_share_ms = share;
              for (const [k, v] of Object.entries(opened.ingest ?? {})) item.timings[`ingest_${k}`] = round(v / group.questions.length, 2);
              out.timings.retrieve_ms += item.timings.retrieve_ms ?? 0;
              out.timings.stages_ms += item.timings.stages_ms ?? 0;
              if (left) return;
              out.answered++;
              onItem(item);
              // A failed item has passed every phase too: it is done, as far as this run goes.
              phases.forEach(pass);
            }),
          ),
        );
        // Not after a stop: the same command resumes with the episode's memory in place.
        if (!stopped()) await opened.release?.();
      }),
    ),
  );
  // Stopped by a signal: questions in flight get STOP_GRACE_MS to finish, then are left for the resume.
  if (!(await finishWithin(all, hooks.signal)).done) left = true;
  out.walls = {
    ingest_wall_ms: Math.round(adding.ms),
    search_wall_ms: Math.round(searching.ms),
    add_search_wall_ms: Math.round(PhaseClock.union(adding, searching)),
  };
  return out;
}

/** The source's warm-up with every pending question (ms it took). A failed warm-up costs nothing but batching: each question then fetches its own. */
async function warmUp(source: EvidenceSource, pending: Question[]): Promise<number> {
  if (!source.prefetch || pending.length === 0) return 0;
  const tw = performance.now();
  await source.prefetch(pending).catch(() => undefined);
  return performance.now() - tw;
}

function emptyOutcome(): ScheduleOutcome {
  return {
    answered: 0,
    deferred: 0,
    timings: { warmup_ms: 0, ingest_ms: 0, retrieve_ms: 0, stages_ms: 0 },
    walls: { ingest_wall_ms: 0, search_wall_ms: 0, add_search_wall_ms: 0 },
  };
}

/** Counts each phase of one question once (a stage's, or all of them when the item is written). */
function passOnce(tally: PhaseTally | undefined): (phase: Phase) => void {
  const passed = new Set<Phase>();
  return (phase) => {
    if (passed.has(phase)) return;
    passed.add(phase);
    tally?.add(phase);
  };
}

/**
 * Every phase's total, planned before the first episode opens (a resume plans what is left):
 * turns to ingest and episodes to index over the groups, and the questions for each phase an item
 * passes. Returns those item phases.
 */
function planPhases(tally: PhaseTally | undefined, groups: IndexGroup[], episodes: Map<string, Episode>, stages: ItemStage[]): Phase[] {
  const phases = itemPhases(stages);
  if (!tally) return phases;
  const totals = phaseTotals(groups, (id) => episodes.get(id)?.turns.length, phases);
  for (const phase of PHASES) tally.plan(phase, totals[phase] ?? 0);
  return phases;
}

/** summary.json for a run's items: the generic table plus the benchmark's own aggregates, with its context. */
export function buildSummary(
  items: ItemRecord[],
  run: {
    runId: string;
    system: string;
    setting: string;
    /** The run's --name label, when it has one. */
    name?: string | null;
    cfg: RunConfig;
    benchmark: Benchmark;
    dataset: Dataset;
    stages: StagePlan;
    extra?: Record<string, unknown>;
  },
): Record<string, unknown> & ReturnType<typeof summarise> {
  return {
    run_id: run.runId,
    ...(run.name ? { name: run.name } : {}),
    system: run.system,
    benchmark: run.benchmark.name,
    setting: run.setting,
    ...summarise(items, run.benchmark.typeOrder, (t) => run.benchmark.aggregation?.inHeadline?.(t) ?? true),
    benchmark_summary: run.benchmark.summarise?.(items, { options: run.cfg.options, dataset: run.dataset }) ?? null,
    skipped: run.stages.skipped,
    deviations: protocolDeviations(run.cfg),
    ...(run.stages.report?.() ?? {}),
    usage_cumulative: cumulativeUsage(items),
    ...(run.extra ?? {}),
  };
}

interface RoleUsage {
  requests: number;
  cache_hits: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
}

/**
 * Per-item usage (reader, judge) summed over every item in the directory, whichever process
 * wrote it: what the run cost across all its resumes (`usage` covers this process only).
 */
export function cumulativeUsage(items: ItemRecord[]): Record<string, RoleUsage> {
  const out: Record<string, RoleUsage> = {};
  for (const item of items) {
    const usage = (item.details?.usage ?? {}) as Record<string, Partial<RoleUsage>>;
    for (const [role, u] of Object.entries(usage)) {
      const r = (out[role] ??= { requests: 0, cache_hits: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 });
      r.requests += u.requests ?? 0;
      r.cache_hits += u.cache_hits ?? 0;
      r.prompt_tokens += u.prompt_tokens ?? 0;
      r.completion_tokens += u.completion_tokens ?? 0;
      r.cost_usd = addCost(r.cost_usd, u.cost_usd ?? null);
    }
  }
  return out;
}

/** Items of the selected questions in data order, as the run directory holds them now. */
export function selectedItems(rundir: RunDir, questions: Question[]): ItemRecord[] {
  const byId = new Map(rundir.readItems().map((i) => [i.id, i]));
  return questions.map((q) => byId.get(q.id)).filter((i): i is ItemRecord => i !== undefined);
}

export function roundAll(o: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v)]));
}
