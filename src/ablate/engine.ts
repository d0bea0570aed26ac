/**
 * Runs every variant of an ablation, cheaply by construction:
 * - one ingest and one first-stage index per window size (each window embedded once);
 * - one first-stage search per question and window size, at the deepest candidate count of the
 *   sweep (shallower candidate sets are its prefixes: rankings tie-break by chunk index);
 * - one rerank call per question, window size and candidate count, as deep as the deepest k of
 *   the sweep; every k is a prefix of that ranking, and no-rerank variants take the first-stage
 *   order from the same search;
 * - reader and judge stages once per distinct evidence set of a question: a variant whose
 *   evidence equals one already answered reuses that answer (the provider cache dedups the rest).
 * Each variant is written as an ordinary run directory (manifest.json, items.jsonl, summary.json).
 */
import { dataSetting } from '../core/setting.js';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EvidenceSource } from '../core/evidence-source.js';
import type { Retriever } from '../core/retriever.js';
import { planStages, type StagePlan } from '../pipeline/stages.js';
import { summarise } from '../reader-judge/summary.js';
import { gitInfo, type Manifest } from '../run-files/manifest.js';
import { InputError } from '../util/errors.js';
import { ProviderSession } from '../providers/session.js';
import { effectivePolicy, loadRunInputs, runIdFor, type RunInputs } from '../pipeline/plan.js';
import { openRunDir } from '../pipeline/open-run.js';
import { RunLifecycle } from '../pipeline/lifecycle.js';
import { buildSummary, roundAll } from '../pipeline/pipeline.js';
import { rankingDepth } from '../retrieval/ranked-evidence.js';
import { createEvidenceSource } from '../systems/registry.js';
import { runIdentity } from '../pipeline/run.js';
import { Interrupted } from '../util/interrupt.js';
import { warningLines } from '../benchmarks/warnings.js';
import { runConfigVariants } from './config-variants.js';
import type { AblationDeps, AblationHooks, AblationOutcome, AblationRequest, VariantOutcome } from './types.js';
import { BENCHMARK_OPTIONS, sweepsBenchmarkOptions, sweptSections, windowKey, type Variant } from './variants.js';
import { slim, WindowSweep, type SharedTimings, type VariantState } from './sweep.js';

const DRY_PLAN: StagePlan = { stages: [], skipped: [], concurrency: 1 };

/** What every variant shares: the loaded data, the system's source and its ranker, one retrieval session. */
interface AblationContext {
  req: AblationRequest;
  inputs: RunInputs;
  dir: string;
  source: EvidenceSource;
  retriever: Retriever;
  session: ProviderSession;
  t0: number;
  loadMs: number;
}

export async function runAblation(req: AblationRequest, hooks: AblationHooks, deps: AblationDeps = {}): Promise<AblationOutcome> {
  const t0 = performance.now();
  const inputs = await loadRunInputs(req.base);
  const dir = resolve(req.out);
  // Retrieval is shared by all variants (one session); each variant's stages get a session of
  // their own, so its summary reports the reader/judge calls that variant itself made.
  const session = new ProviderSession(req.transport);
  const source = deps.source ?? (await createEvidenceSource(req.base, session, { runDir: dir }));
  const closeRetrieval = async () => {
    await source.close?.();
    session.close();
  };
  let retriever: Retriever | null;
  try {
    retriever = await ablatedRetriever(req, source, deps);
  } catch (e) {
    await closeRetrieval();
    throw e;
  }
  const variantNames = req.variants.map((v) => v.name);
  if (retriever === null) {
    // A source that ranks no windows: its own config values are swept as plain runs (config-variants.ts).
    await closeRetrieval();
    checkAblationFolder(dir, variantNames);
    return runConfigVariants(req, hooks, source.system);
  }
  const ctx: AblationContext = { req, inputs, dir, source, retriever, session, t0, loadMs: performance.now() - t0 };
  let states: VariantState[];
  try {
    checkAblationFolder(dir, variantNames);
    // Every variant's run directory is checked (identity, foreign content) before any is touched.
    for (const v of req.variants) openRunDir(join(dir, v.name), identityOf(ctx, v), inputs.questions, { dryRun: true, config: v.cfg });
    states = await openVariants(ctx);
  } catch (e) {
    await closeRetrieval();
    throw e;
  }
  logNotes(ctx, states, hooks);
  const cap = req.transport?.costCap;
  const stop = cap ? AbortSignal.any([cap.signal, ...(hooks.signal ? [hooks.signal] : [])]) : hooks.signal;
  try {
    const sweep = new WindowSweep(req, hooks, deps, inputs, retriever, states, stop);
    await sweep.run();
    const interrupted = hooks.signal?.aborted ? (String(hooks.signal.reason) === 'SIGTERM' ? 'SIGTERM' : 'SIGINT') : null;
    const outcomes = states.map((s) => finishVariant(ctx, s, sweep.shared, stop));
    if (interrupted) throw new Interrupted(interrupted, sweep.finished, sweep.total);
    return {
      dir,
      benchmark: inputs.benchmark.name,
      retriever: retriever.name,
      system: source.system,
      name: req.name ?? null,
      retrievalReport: session.report(),
      ...(req.rejudgeUnchanged ? { rejudgedUnchanged: true } : {}),
      variants: outcomes,
      work: sweep.work,
      wallMs: performance.now() - t0,
    };
  } catch (e) {
    for (const s of states) s.run.fail(e);
    throw e;
  } finally {
    await closeVariants(states);
    await closeRetrieval();
  }
}

/**
 * The ranker the variants share, warmed up; null when the source ranks no windows and only its own
 * config values are swept. Refuses a sweep of config the source does not read.
 */
async function ablatedRetriever(req: AblationRequest, source: EvidenceSource, deps: AblationDeps): Promise<Retriever | null> {
  const unread = sweptSections(req.variants).filter(
    (s) => s !== BENCHMARK_OPTIONS && !(source.capabilities.configSections ?? []).includes(s),
  );
  if (unread.length) {
    throw new InputError(`'${source.name}' reads no ${unread.join(', ')} config: sweeping its values would change nothing`, {
      place: '--system',
    });
  }
  // A benchmark option swept (`-B reading=con,direct`) changes how each variant's data is read: plain runs.
  if (sweepsBenchmarkOptions(req.variants)) return null;
  if (!source.capabilities.ranksWindows && !req.dryRun && req.variants.every((v) => sameRanking(v, req.variants))) return null;
  const found = source.ranker && (deps.retriever ?? source.ranker);
  if (!found || !source.capabilities.ranksWindows) {
    throw new InputError(`'${source.name}' does not rank windows: there is no k, candidate depth or reranking to ablate`, {
      place: '--retriever',
    });
  }
  // The reranker's one-time work is part of loading, not of the first question's search.
  if (req.variants.some((v) => v.rerank)) await found.warmUp?.();
  return found;
}

function identityOf(ctx: AblationContext, v: Variant) {
  return runIdentity(v.cfg, { ...ctx.source, system: variantSystem(ctx.source.system, v) }, ctx.inputs.dataset.source.sha256);
}

/** Each variant's run directory opened (locked, resumed) and its stages planned; on failure none stays open. */
async function openVariants(ctx: AblationContext): Promise<VariantState[]> {
  const states: VariantState[] = [];
  // Read once for every variant's manifest: the checkout does not change meanwhile.
  const git = await gitInfo();
  try {
    for (const v of ctx.req.variants) states.push(await openVariant(ctx, v, git));
    return states;
  } catch (e) {
    await closeVariants(states);
    throw e;
  }
}

async function openVariant(ctx: AblationContext, v: Variant, git: Manifest['git']): Promise<VariantState> {
  const { req, inputs, retriever } = ctx;
  const { benchmark, dataset, questions } = inputs;
  const dry = Boolean(req.dryRun);
  // Re-judging unchanged evidence: a variant's reader and judge requests bypass the response cache (else they would
  // get the reference's replies back), so each question is read and judged anew, as an independent run would.
  const again = req.rejudgeUnchanged === true && !v.isDefault;
  const plan = dry
    ? DRY_PLAN
    : await planStages(
        v.cfg,
        benchmark,
        new ProviderSession(again ? { ...req.transport, noCache: true } : req.transport),
        ctx.source.capabilities,
      );
  const run = RunLifecycle.open(
    join(ctx.dir, v.name),
    identityOf(ctx, v),
    questions,
    { retryErrors: req.retryErrors, dryRun: dry, config: v.cfg },
    {
      runId: runIdFor(v.cfg),
      system: variantSystem(ctx.source.system, v),
      benchmark: benchmark.name,
      // Same setting for every variant, so `rawrag stats` compares them with each other.
      setting: `${dataSetting(benchmark, req.base.options, dataset)}/${req.base.reader.model ?? 'no-reader'}`,
      config: v.cfg,
      policy: { ...effectivePolicy(benchmark, v.cfg) },
      source: { name: retriever.name, notes: retriever.notes, ...(retriever.standIn ? { stand_in: true } : {}) },
      skipped: plan.skipped,
      dataset: { ...dataset.source, warnings: dataset.warnings, questions: dataset.questions.length },
      git,
      name: req.name,
      cacheDir: ctx.session.cache.dir,
    },
  );
  try {
    run.start();
  } catch (e) {
    run.release();
    await plan.close?.();
    throw e;
  }
  const opened = run.opened;
  return {
    variant: v,
    cfg: v.cfg,
    run,
    plan,
    done: opened.done,
    items: new Map(opened.previous.map((i) => [i.id, slim(i)])),
    policy: effectivePolicy(benchmark, v.cfg),
    depth: rankingDepth(v.cfg, retriever, benchmark),
    ownMs: { derive: 0, stages: 0 },
    adds: { indexBuilds: 0, windows: 0, windowTokens: 0, searches: 0, rerankCalls: 0, newEvidenceSets: 0, newEvidenceTokens: 0 },
  };
}

async function closeVariants(states: VariantState[]): Promise<void> {
  for (const s of states) {
    s.run.release();
    await s.plan.close?.();
  }
}

function logNotes(ctx: AblationContext, states: VariantState[], hooks: AblationHooks): void {
  const { req, retriever, inputs } = ctx;
  for (const line of warningLines(inputs.dataset.source.path, inputs.dataset.warnings, req.verbose ?? false)) hooks.log(line);
  for (const n of [...retriever.notes, ...states.flatMap((s) => s.run.opened.notes)]) hooks.log(`note: ${n}`);
  if (retriever.reranker === null && req.variants.some((v) => !v.rerank) && req.variants.some((v) => v.rerank)) {
    hooks.log(`note: retriever '${retriever.name}' has no second stage: each no-rerank variant equals its reranked twin`);
  }
  for (const s of states[0]?.plan.skipped ?? []) hooks.log(`skipped: ${s}`);
}

/** A variant's summary and manifest written (a dry run writes nothing); shared work is charged in full to each variant that used it. */
function finishVariant(ctx: AblationContext, s: VariantState, shared: SharedTimings, stop: AbortSignal | undefined): VariantOutcome {
  const { req, inputs } = ctx;
  if (req.dryRun) {
    return { variant: s.variant, adds: s.adds, dir: s.run.dir, manifest: s.run.manifest, summary: { ...summarise([]) }, items: [] };
  }
  // In question order, as `rawrag run` would list them.
  const items = inputs.questions.map((q) => s.items.get(q.id)).filter((i) => i !== undefined);
  const summary = buildSummary(items, {
    runId: s.run.manifest.run_id,
    name: s.run.manifest.name ?? null,
    system: s.run.manifest.system,
    setting: s.run.manifest.setting,
    cfg: s.cfg,
    benchmark: inputs.benchmark,
    dataset: inputs.dataset,
    stages: s.plan,
  });
  const wKey = windowKey(s.variant.window);
  const retrieveMs =
    (shared.search.get(wKey) ?? 0) + (s.variant.rerank ? (shared.rerank.get(`${wKey}|${s.variant.candidates}`) ?? 0) : 0) + s.ownMs.derive;
  const timings = { load_ms: ctx.loadMs, ingest_ms: shared.ingest.get(wKey) ?? 0, retrieve_ms: retrieveMs, stages_ms: s.ownMs.stages };
  s.run.finish({
    items,
    summary,
    signal: stop,
    spentUsd: s.plan.spentUsd?.() ?? 0,
    // work_ms: that charged work; sweep_wall_ms: the wall time of the whole sweep so far (shared by every variant).
    timings: {
      ...roundAll(timings),
      work_ms: Math.round(Object.values(timings).reduce((a, b) => a + b, 0)),
      sweep_wall_ms: Math.round(performance.now() - ctx.t0),
    },
  });
  return { variant: s.variant, adds: s.adds, dir: s.run.dir, manifest: s.run.manifest, summary, items };
}

/** The variant keeps the reference's windows, depth, k, reranking and expansion (only other config differs). */
function sameRanking(v: Variant, all: readonly Variant[]): boolean {
  const ref = all.find((x) => x.isDefault) ?? v;
  return (
    windowKey(v.window) === windowKey(ref.window) &&
    v.candidates === ref.candidates &&
    v.k === ref.k &&
    v.rerank === ref.rerank &&
    v.expand === ref.expand
  );
}

/** The ablation folder holds only its variants' run directories and its own outputs; anything else is refused. */
function checkAblationFolder(dir: string, variantNames: string[]): void {
  if (!existsSync(dir)) return;
  const own = new Set([...variantNames, 'ablation.json', 'ablation.md', 'ablation.csv', 'ablation.svg', 'ablation.png', 'report.html']);
  const foreign = readdirSync(dir).filter((f) => !own.has(f));
  const ours = readdirSync(dir).some((f) => variantNames.includes(f) || f.startsWith('ablation.'));
  if (foreign.length > 0 && !ours) {
    throw new InputError(
      `output folder exists and holds other files (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''}), not an ablation; choose another --out`,
      { file: dir },
    );
  }
}

/** The source's system (`RAW-RAG/local`) for the reference, with the variant's name (`RAW-RAG/local k=5`) for a variant. */
export function variantSystem(system: string, v: Variant): string {
  return v.isDefault ? system : `${system} ${v.name}`;
}
