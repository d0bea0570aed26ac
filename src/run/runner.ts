/**
 * One benchmark run, start to finish: load -> ingest -> retrieve -> assemble -> (read -> judge)
 * -> items.jsonl -> summary.json. Resumable: items already in the run directory are kept.
 */
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import pLimit from 'p-limit';
import type { RunConfig } from '../config/schema.js';
import type { Benchmark } from '../datasets/benchmark.js';
import type { Policy } from '../datasets/policy.js';
import type { Dataset, Episode, Question } from '../datasets/schema.js';
import { getBenchmark } from '../datasets/registry.js';
import { warningLines } from '../datasets/warnings.js';
import { readIdList, selectQuestions as selectFrom, type Selected } from '../datasets/select.js';
import { ingest, type IngestedEpisode } from '../retrieval/chunk.js';
import { retrieve, type Ranking } from '../retrieval/retrieve.js';
import { assemble, type Evidence } from '../retrieval/assemble.js';
import { createRetriever } from '../retrieval/retrievers.js';
import type { Retriever } from '../retrieval/retriever.js';
import { coverage } from '../eval/coverage.js';
import { planStages, type StagePlan } from '../eval/stages.js';
import { ProviderSession } from '../providers/session.js';
import type { TransportOptions } from '../providers/transport.js';
import { summarise, type Summary } from '../eval/summary.js';
import { InputError } from '../util/errors.js';
import { hashOf } from '../util/hash.js';
import { fromRoot } from '../util/paths.js';
import type { ItemRecord } from './item.js';
import type { ProgressInfo } from '../cli/progress.js';
import { gitInfo, toolInfo, type Manifest } from './manifest.js';
import { RunDir } from './rundir.js';

/** The depths at which coverage is also recorded, from the same ranking (bench and ablation use them). */
export const COVERAGE_KS = [1, 5, 15, 60];

export interface RunHooks {
  log(line: string): void;
  /** Called with (done, total) as items finish. */
  progress?(done: number, total: number, info?: ProgressInfo): void;
}

export interface RunOutcome {
  dir: string;
  manifest: Manifest;
  summary: Record<string, unknown> & Summary;
}

export interface RunRequest {
  cfg: RunConfig;
  /** Run directory; default `results/<run-id>`. */
  out: string | null;
  retryErrors?: boolean;
  /** --verbose: every data warning on its own line (default: one summary line). */
  verbose?: boolean;
  /** Endpoints, timeouts, retries, concurrency, cache: how requests travel (not in the config hash). */
  transport?: Partial<TransportOptions>;
}

/** The benchmark's policy, then the episode's own override (if any), then the user's flags. */
export function effectivePolicy(benchmark: Benchmark, cfg: RunConfig, episode?: Episode): Policy {
  const base: Policy = { ...benchmark.policy, ...episode?.policy };
  return {
    ...base,
    expandToTurns: cfg.assembly.expand ?? base.expandToTurns,
    order: cfg.assembly.order ?? base.order,
  };
}

/** Run id: readable prefix + hash of the semantic config, so the same command resumes the same run. */
export function runIdFor(cfg: RunConfig): string {
  const reader = cfg.reader.model ?? 'retrieval';
  return `${cfg.benchmark}-${cfg.retrieval.retriever}-${reader}-${hashOf(cfg, 10)}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

export function selectQuestions(dataset: Dataset, cfg: RunConfig): Question[] {
  return selectionFor(dataset, cfg).questions;
}

/** --ids / --sample / --limit applied (src/datasets/select.ts), with the sentence saying what was selected. */
export function selectionFor(dataset: Dataset, cfg: RunConfig): Selected {
  return selectFrom(dataset, { limit: cfg.limit, sample: cfg.sample, seed: cfg.seed, ids: cfg.ids ? readIdList(cfg.ids) : null });
}

export async function loadDataset(benchmark: Benchmark, cfg: RunConfig): Promise<Dataset> {
  const known = new Set(benchmark.options.map((o) => o.key));
  for (const key of Object.keys(cfg.options)) {
    if (!known.has(key)) {
      throw new InputError(`option '${key}' does not apply to ${benchmark.name} (its options: ${[...known].join(', ') || 'none'})`, { place: 'options' });
    }
  }
  const path = cfg.data ? resolve(cfg.data) : fromRoot(benchmark.defaultData);
  if (!existsSync(path)) {
    // The default location of a downloadable benchmark is empty until `rawrag data pull`.
    const hint = !cfg.data && benchmark.downloads ? `; fetch it with: rawrag data pull ${benchmark.name}` : '';
    throw new InputError(`data file not found${hint}`, { file: path });
  }
  return benchmark.load({ path, options: cfg.options });
}

export async function executeRun(req: RunRequest, hooks: RunHooks): Promise<RunOutcome> {
  const t0 = performance.now();
  const { cfg } = req;
  const benchmark = getBenchmark(cfg.benchmark);
  const policy = effectivePolicy(benchmark, cfg);
  // Everything that can reject the input happens before the run directory is touched.
  const dataset = await loadDataset(benchmark, cfg);
  const selection = selectionFor(dataset, cfg);
  const questions = selection.questions;
  const session = new ProviderSession(req.transport);
  const retriever = await createRetriever(cfg, session);
  const plan = await planStages(cfg, benchmark, session);
  // Full-context: every chunk is evidence (k and candidates do not apply; the config keeps its values).
  const runCfg: RunConfig = retriever.selectsAll
    ? { ...cfg, retrieval: { ...cfg.retrieval, candidates: Number.MAX_SAFE_INTEGER, k: Number.MAX_SAFE_INTEGER, rerank: false } }
    : cfg;
  const loadMs = performance.now() - t0;

  const runId = runIdFor(cfg);
  const dir = resolve(req.out ?? fromRoot('results', runId));
  const rundir = new RunDir(dir);
  const configHash = hashOf(cfg);
  let createdAt = new Date().toISOString();
  if (rundir.exists()) {
    const prev = rundir.readManifest();
    if (prev.config_hash !== configHash) {
      throw new InputError(
        `this run directory holds a run with a different configuration (${prev.config_hash.slice(0, 10)}); use another --out`,
        { file: rundir.manifestPath },
      );
    }
    createdAt = prev.created_at;
  } else if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new InputError('output folder exists, is not empty and holds no rawrag manifest; choose another --out', { file: dir });
  }

  let previous = rundir.readItems();
  if (req.retryErrors) {
    const kept = previous.filter((i) => !i.error);
    if (kept.length !== previous.length) rundir.rewriteItems(kept);
    previous = kept;
  }
  const selectedIds = new Set(questions.map((q) => q.id));
  const done = new Set(previous.filter((i) => selectedIds.has(i.id)).map((i) => i.id));
  const pending = questions.filter((q) => !done.has(q.id));

  if (questions.length < dataset.questions.length) hooks.log(`selected ${selection.description}`);
  for (const line of warningLines(dataset.source.path, dataset.warnings, req.verbose ?? false)) hooks.log(line);
  for (const n of retriever.notes) hooks.log(`note: ${n}`);
  // Skipped stages are printed once, by the report (NOTE:), and kept in summary.json `skipped`.
  if (done.size > 0) hooks.log(`resuming ${dir}: ${done.size} of ${questions.length} questions already done`);

  const manifest: Manifest = {
    format: 'rawrag.run/1',
    run_id: runId,
    system: `RAW-RAG/${retriever.name}`,
    benchmark: benchmark.name,
    setting: `${benchmark.name}/${cfg.reader.model ?? 'no-reader'}`,
    status: 'running',
    config_hash: configHash,
    config: cfg,
    policy: { ...policy },
    retriever: { name: retriever.name, notes: retriever.notes },
    skipped: plan.skipped,
    dataset: { ...dataset.source, warnings: dataset.warnings },
    questions: { selected: questions.length, done: done.size, errors: 0 },
    tool: toolInfo(),
    git: gitInfo(),
    created_at: createdAt,
    updated_at: new Date().toISOString(),
    finished_at: null,
    timings: {},
    error: null,
  };
  rundir.writeManifest(manifest);

  const timings = { load_ms: loadMs, ingest_ms: 0, retrieve_ms: 0, stages_ms: 0 };
  try {
    let finished = done.size;
    let failed = 0;
    const report = () => hooks.progress?.(finished, questions.length, progressInfo(session, failed));
    report();
    const episodes = new Map(dataset.episodes.map((e) => [e.id, e]));
    if (retriever.firstStage.prefetch && pending.length > 0) {
      // A failed warm-up costs nothing but batching: each question then embeds its own text.
      await retriever.firstStage.prefetch(pending.map((q) => q.text)).catch((e: Error) => hooks.log(`note: question prefetch failed (${e.message}); continuing question by question`));
    }
    for (const group of groupByIndex(pending)) {
      const ti = performance.now();
      const episode = episodes.get(group.episode);
      if (!episode) throw new InputError(`question ${group.questions[0]!.id} names unknown episode '${group.episode}'`, { file: dataset.source.path });
      const epPolicy = episode.policy ? effectivePolicy(benchmark, cfg, episode) : policy;
      const ep = ingest(episode, group.visibleTurns ?? episode.turns.length, epPolicy, cfg.chunking);
      let index: Awaited<ReturnType<Retriever['firstStage']['prepare']>>;
      try {
        index = await retriever.firstStage.prepare(ep);
      } catch (e) {
        // The episode could not be indexed (e.g. its embeddings failed): its questions are errors,
        // which --retry-errors redoes; the other episodes go on.
        for (const q of group.questions) {
          const item = baseItem(q, benchmark.name);
          item.error = { stage: 'retrieve', message: (e as Error).message };
          rundir.append(item);
          finished++;
          failed++;
          report();
        }
        continue;
      }
      const ingestMs = performance.now() - ti;
      timings.ingest_ms += ingestMs;
      // Each question carries its share of building the index it searched, so per-episode add
      // time (BEAM's efficiency table) is a sum over items, also across resumed runs.
      const ingestShare = round(ingestMs / group.questions.length);
      const limit = pLimit(plan.concurrency);
      await Promise.all(
        group.questions.map((q) =>
          limit(async () => {
            const item = await answerQuestion(q, ep, index, retriever, epPolicy, plan, runCfg, benchmark, timings);
            // Depth-k coverage means nothing when nothing was ranked.
            if (retriever.selectsAll) item.coverage_at_k = {};
            item.timings.ingest_share_ms = ingestShare;
            rundir.append(item);
            finished++;
            if (item.error) failed++;
            report();
          }),
        ),
      );
    }
    rundir.close();
    const items = rundir.readItems().filter((i) => selectedIds.has(i.id));
    const summary = {
      run_id: runId,
      system: manifest.system,
      benchmark: benchmark.name,
      setting: manifest.setting,
      ...summarise(items, benchmark.typeOrder),
      benchmark_summary: benchmark.summarise?.(items, { options: cfg.options, dataset }) ?? null,
      skipped: plan.skipped,
      ...(plan.report?.() ?? {}),
    };
    rundir.writeSummary(summary);
    const total = performance.now() - t0;
    Object.assign(manifest, {
      status: 'complete',
      updated_at: new Date().toISOString(),
      finished_at: new Date().toISOString(),
      questions: { selected: questions.length, done: items.length, errors: summary.errors },
      timings: { ...roundAll(timings), total_ms: Math.round(total) },
    });
    rundir.writeManifest(manifest);
    return { dir, manifest, summary };
  } catch (e) {
    rundir.close();
    Object.assign(manifest, { status: 'failed', updated_at: new Date().toISOString(), error: (e as Error).message });
    rundir.writeManifest(manifest);
    throw e;
  } finally {
    await plan.close?.();
  }
}

async function answerQuestion(
  q: Question,
  ep: IngestedEpisode,
  index: Awaited<ReturnType<Retriever['firstStage']['prepare']>>,
  retriever: Retriever,
  policy: Policy,
  plan: StagePlan,
  cfg: RunConfig,
  benchmark: Benchmark,
  timings: Record<string, number>,
): Promise<ItemRecord> {
  const item = baseItem(q, benchmark.name);
  const tr = performance.now();
  let ranking: Ranking;
  try {
    ranking = await retrieve(q.text, index, retriever.reranker, ep, cfg.retrieval, rankingDepth(cfg, retriever, benchmark));
  } catch (e) {
    item.error = { stage: 'retrieve', message: (e as Error).message };
    return item;
  }
  const evidence = recordRetrieval(item, q, ep, ranking, policy, cfg, benchmark);
  const retrieveMs = performance.now() - tr;
  item.timings.retrieve_ms = round(retrieveMs);
  timings.retrieve_ms! += retrieveMs;
  const ts = performance.now();
  for (const stage of plan.stages) {
    try {
      await stage.run(item, { question: q, evidence, ep, cfg, benchmark });
    } catch (e) {
      item.error = { stage: stage.name, message: (e as Error).message };
      break;
    }
  }
  timings.stages_ms! += performance.now() - ts;
  return item;
}

/**
 * Fills an item's retrieval fields from a ranking: the top `cfg.retrieval.k` are the evidence;
 * coverage at other depths comes from the same ranking. Exported so `rawrag ablate` derives every
 * variant from one ranking exactly as a run would.
 */
export function recordRetrieval(
  item: ItemRecord,
  q: Question,
  ep: IngestedEpisode,
  ranking: Ranking,
  policy: Policy,
  cfg: RunConfig,
  benchmark: Benchmark,
): Evidence {
  const selected = ranking.ranked.slice(0, cfg.retrieval.k);
  const evidence = assemble(ep, selected, policy);
  const firstRank = new Map(ranking.candidates.map((h, i) => [h.chunk, { rank: i + 1, score: h.score }]));
  item.retrieved = selected.map((h, i) => {
    const c = ep.chunks[h.chunk]!;
    const fs = firstRank.get(h.chunk);
    return {
      chunk: c.id,
      rank: i + 1,
      score: h.score,
      first_stage_rank: fs?.rank ?? -1,
      first_stage_score: fs?.score ?? Number.NaN,
      turns: ep.episode.turns.slice(c.firstTurn, c.lastTurn + 1).map((t) => t.id),
    };
  });
  item.evidence_turns = evidence.turnIds;
  item.evidence_tokens = evidence.tokens;
  item.coverage = coverage(evidence.turnIds, q.evidence);
  // The configured k is a row of its own in the recall table (--k 10 shows 1/5/10/15/60).
  for (const k of [...new Set([...COVERAGE_KS, cfg.retrieval.k])].sort((a, b) => a - b)) {
    // Only depths the ranking really reached: a shorter ranking would understate coverage at k.
    if (k > cfg.retrieval.k && ranking.ranked.length < Math.min(k, ep.chunks.length)) continue;
    item.coverage_at_k[String(k)] = coverage(assemble(ep, ranking.ranked.slice(0, k), policy).turnIds, q.evidence);
  }
  if (benchmark.rankingMetrics) {
    Object.assign(item.metrics, benchmark.rankingMetrics(q, ranking.ranked.map((h) => ep.chunks[h.chunk]!), ep, cfg.retrieval.k));
  }
  return evidence;
}

/** How deep the final ranking goes: k, or deeper when that is free or the benchmark needs it. */
export function rankingDepth(cfg: RunConfig, retriever: Retriever, benchmark: Benchmark): number {
  return Math.max(cfg.retrieval.k, benchmark.rankingDepth ?? 0, retriever.cheapDeepRanking ? Math.max(...COVERAGE_KS) : 0);
}

export function baseItem(q: Question, benchmark: string): ItemRecord {
  return {
    id: q.id,
    benchmark,
    episode: q.episode,
    type: q.type,
    type_id: q.typeId,
    question: q.text,
    question_date: q.questionDate,
    gold: q.gold,
    acceptable: q.acceptable,
    gold_evidence: q.evidence,
    retrieved: [],
    evidence_turns: [],
    evidence_tokens: 0,
    coverage: null,
    coverage_at_k: {},
    answer: null,
    score: null,
    metrics: {},
    details: {},
    ...(q.meta ? { meta: q.meta } : {}),
    timings: {},
    error: null,
  };
}

/** Questions sharing an episode and a visibility horizon share one index (built once). */
export function groupByIndex(questions: Question[]): Array<{ episode: string; visibleTurns: number | null; questions: Question[] }> {
  const groups = new Map<string, { episode: string; visibleTurns: number | null; questions: Question[] }>();
  for (const q of questions) {
    const key = `${q.episode}\u0000${q.visibleTurns ?? ''}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { episode: q.episode, visibleTurns: q.visibleTurns, questions: [] }));
    g.questions.push(q);
  }
  return [...groups.values()];
}

/** Errors so far, retries and money spent by this run (the progress bar shows them). */
function progressInfo(session: ProviderSession, errors: number): ProgressInfo {
  const roles = Object.values(session.usage.report());
  if (roles.length === 0) return { errors };
  return { errors, retries: roles.reduce((s, r) => s + r.retries, 0), costUsd: session.usage.total().cost_usd_spent };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

function roundAll(o: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v)]));
}
