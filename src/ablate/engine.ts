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
import { yieldToEventLoop } from '../util/yield.js';
import { dataSetting } from '../core/setting.js';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pLimit from 'p-limit';
import type { RunConfig } from '../config/schema.js';
import type { Question } from '../core/schema.js';
import { baseItem, type ItemRecord } from '../core/item.js';
import type { IngestedEpisode } from '../core/ingested-episode.js';
import { retrieve, type Ranking } from '../retrieval/retrieve.js';
import type { Retriever, SearchIndex, Hit } from '../core/retriever.js';
import { planStages, type StagePlan } from '../pipeline/stages.js';
import { summarise } from '../eval/summary.js';
import { gitInfo } from '../run/manifest.js';
import { InputError } from '../util/errors.js';
import { ProviderSession } from '../providers/session.js';
import { effectivePolicy, episodeOf, groupByIndex, loadRunInputs, runIdFor } from '../pipeline/plan.js';
import { openRunDir } from '../pipeline/run-directory.js';
import { RunLifecycle } from '../pipeline/lifecycle.js';
import { buildSummary, failedItems, ingestGroup, roundAll, runStages } from '../pipeline/pipeline.js';
import { rankingDepth, recordRetrieval } from '../retrieval/ranked-evidence.js';
import { checkEvidence } from '../pipeline/evidence-checks.js';
import { createEvidenceSource } from '../systems/registry.js';
import { runIdentity } from '../pipeline/run.js';
import { Interrupted, finishWithin } from '../util/interrupt.js';
import { warningLines } from '../datasets/warnings.js';
import { runConfigVariants } from './config-variants.js';
import type { AblationDeps, AblationHooks, AblationOutcome, AblationRequest, AblationWork, VariantAdds, VariantOutcome } from './types.js';
import { sweptSections, windowKey, type Variant, type WindowSpec } from './variants.js';
import { EVIDENCE_DIGEST, evidenceDigest, evidenceKey, reuseStages, stageDelta, type StageDelta } from './reuse.js';
import { isDeferred } from '../providers/batch/defer.js';

interface VariantState {
  variant: Variant;
  cfg: RunConfig;
  /** The variant's run directory, through the one run lifecycle `rawrag run` uses. */
  run: RunLifecycle;
  plan: StagePlan;
  done: Set<string>;
  /**
   * The variant's items for its summary and the table, kept in memory without their bulky
   * retrieval lists (re-reading every variant's items.jsonl would cost more than the ablation).
   */
  items: Map<string, ItemRecord>;
  policy: ReturnType<typeof effectivePolicy>;
  depth: number;
  /** Own time: deriving the item from the shared ranking, and its stages. */
  ownMs: { derive: number; stages: number };
  adds: VariantAdds;
}

const DRY_PLAN: StagePlan = { stages: [], skipped: [], concurrency: 1 };

export async function runAblation(req: AblationRequest, hooks: AblationHooks, deps: AblationDeps = {}): Promise<AblationOutcome> {
  const t0 = performance.now();
  const inputs = await loadRunInputs(req.base);
  const { benchmark, dataset, questions } = inputs;
  const dir = resolve(req.out);
  // Retrieval is shared by all variants (one session); each variant's stages get a session of
  // their own, so its summary reports the reader/judge calls that variant itself made.
  const retrievalSession = new ProviderSession(req.transport);
  const source = deps.source ?? (await createEvidenceSource(req.base, retrievalSession, { runDir: dir }));
  const found = source.ranker && (deps.retriever ?? source.ranker);
  const unread = sweptSections(req.variants).filter((s) => !(source.capabilities.configSections ?? []).includes(s));
  if (unread.length) {
    await source.close?.();
    retrievalSession.close();
    throw new InputError(`'${source.name}' reads no ${unread.join(', ')} config: sweeping its values would change nothing`, {
      place: '--system',
    });
  }
  if (!source.capabilities.ranksWindows && !req.dryRun && req.variants.every((v) => sameRanking(v, req.variants))) {
    // A source that ranks no windows: its own config values are swept as plain runs (config-variants.ts).
    const system = source.system;
    await source.close?.();
    retrievalSession.close();
    checkAblationFolder(
      resolve(req.out),
      req.variants.map((v) => v.name),
    );
    return runConfigVariants(req, hooks, system);
  }
  if (!found || !source.capabilities.ranksWindows) {
    await source.close?.();
    retrievalSession.close();
    throw new InputError(`'${source.name}' does not rank windows: there is no k, candidate depth or reranking to ablate`, {
      place: '--retriever',
    });
  }
  const retriever: Retriever = found;
  const dry = Boolean(req.dryRun);
  // The reranker's one-time work is part of loading, not of the first question's search.
  if (req.variants.some((v) => v.rerank)) await retriever.warmUp?.();
  const loadMs = performance.now() - t0;
  checkAblationFolder(
    dir,
    req.variants.map((v) => v.name),
  );
  const identityOf = (v: Variant) => runIdentity(v.cfg, { ...source, system: variantSystem(source.system, v) }, dataset.source.sha256);
  // Every variant's run directory is checked (identity, foreign content) before any is touched.
  for (const v of req.variants) openRunDir(join(dir, v.name), identityOf(v), questions, { dryRun: true, config: v.cfg });

  const states: VariantState[] = [];
  // Read once for every variant's manifest: the checkout does not change meanwhile.
  const git = await gitInfo();
  try {
    for (const v of req.variants) {
      // Re-judging unchanged evidence: a variant's reader and judge requests bypass the response cache (else they would
      // get the reference's replies back), so each question is read and judged anew, as an independent run would.
      const again = req.rejudgeUnchanged === true && !v.isDefault;
      const plan = dry
        ? DRY_PLAN
        : await planStages(
            v.cfg,
            benchmark,
            new ProviderSession(again ? { ...req.transport, noCache: true } : req.transport),
            source.capabilities,
          );
      const run = RunLifecycle.open(
        join(dir, v.name),
        identityOf(v),
        questions,
        { retryErrors: req.retryErrors, dryRun: dry, config: v.cfg },
        {
          runId: runIdFor(v.cfg),
          system: variantSystem(source.system, v),
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
          cacheDir: retrievalSession.cache.dir,
        },
      );
      try {
        run.start();
      } catch (e) {
        run.release(); // not in `states` yet: released here
        throw e;
      }
      const opened = run.opened;
      states.push({
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
      });
    }
  } catch (e) {
    for (const s of states) {
      s.run.release();
      await s.plan.close?.();
    }
    retrievalSession.close();
    throw e;
  }

  for (const line of warningLines(dataset.source.path, dataset.warnings, req.verbose ?? false)) hooks.log(line);
  for (const n of [...retriever.notes, ...states.flatMap((s) => s.run.opened.notes)]) hooks.log(`note: ${n}`);
  if (retriever.reranker === null && req.variants.some((v) => !v.rerank) && req.variants.some((v) => v.rerank)) {
    hooks.log(`note: retriever '${retriever.name}' has no second stage: each no-rerank variant equals its reranked twin`);
  }
  for (const s of states[0]?.plan.skipped ?? []) hooks.log(`skipped: ${s}`);

  const work: AblationWork = {
    windowSizes: 0,
    indexBuilds: 0,
    searches: 0,
    rerankCalls: 0,
    stageRuns: 0,
    reused: 0,
    questions: questions.length,
  };
  const shared = { ingest: new Map<string, number>(), search: new Map<string, number>(), rerank: new Map<string, number>() };
  const add = (m: Map<string, number>, key: string, ms: number) => m.set(key, (m.get(key) ?? 0) + ms);
  const episodes = new Map(dataset.episodes.map((e) => [e.id, e]));
  const concurrency = Math.max(1, Math.min(...states.map((s) => s.plan.concurrency)));
  // Answers of evidence sets already seen, per question (variants of one question run in order).
  const byWindow = groupWindows(states);
  const pendingPerWindow = byWindow.map((g) => questions.filter((q) => g.states.some((s) => !s.done.has(q.id))));
  const total = pendingPerWindow.reduce((s, p) => s + p.length, 0);
  const seenEvidence = new Map<string, Map<string, { from: string; delta: StageDelta }>>();
  let finished = 0;
  // Questions still in flight when a stop signal's grace ran out: their items are not written.
  let left = false;
  hooks.progress?.(finished, total);

  // New questions stop on a signal, or once the cost cap held a request back (--max-cost).
  const cap = req.transport?.costCap;
  const stop = cap ? AbortSignal.any([cap.signal, ...(hooks.signal ? [hooks.signal] : [])]) : hooks.signal;
  try {
    for (const [wi, group] of byWindow.entries()) {
      const wKey = windowKey(group.window);
      const pending = pendingPerWindow[wi]!;
      if (pending.length === 0) continue;
      work.windowSizes++;
      const chunking = { ...req.base.chunking, size: group.window.size, stride: group.window.stride };
      const maxCandidates = Math.max(...group.states.map((s) => s.variant.candidates));
      for (const g of groupByIndex(pending)) {
        await yieldToEventLoop(); // offline sweeps are CPU-bound: let a signal in (see util/yield.ts)
        if (stop?.aborted) break;
        const ti = performance.now();
        const episode = episodeOf(dataset, episodes, g);
        // Ingest reads only chunking and serialisation, which no variant changes (an episode may override them).
        const ep = ingestGroup(benchmark, req.base, episode, g, chunking);
        let index: SearchIndex;
        try {
          index = await retriever.firstStage.prepare(ep);
        } catch (e) {
          // As in `rawrag run`: the episode's questions become item errors; the others go on.
          for (const s of group.states) {
            for (const item of failedItems(
              g.questions.filter((q) => !s.done.has(q.id)),
              benchmark.name,
              'retrieve',
              (e as Error).message,
            )) {
              s.run.append(item);
              s.items.set(item.id, slim(item));
            }
          }
          finished += g.questions.length;
          hooks.progress?.(finished, total);
          continue;
        }
        work.indexBuilds++;
        group.states[0]!.adds.indexBuilds++;
        group.states[0]!.adds.windows += ep.chunks.length;
        group.states[0]!.adds.windowTokens += ep.chunks.reduce((t, c) => t + c.tokenEnd - c.tokenStart, 0);
        const ingestMs = performance.now() - ti;
        add(shared.ingest, wKey, ingestMs);
        // As in `rawrag run`: each question carries its share of building the index it searched.
        const ingestShare = Math.round((ingestMs / g.questions.length) * 100) / 100;
        const limit = pLimit(concurrency);
        const all = Promise.all(
          g.questions.map((q) =>
            limit(async () => {
              await yieldToEventLoop();
              if (stop?.aborted) return;
              await ablateQuestion(q, ep, index, maxCandidates, ingestShare);
              finished++;
              hooks.progress?.(finished, total);
            }),
          ),
        );
        // Stopped by a signal: questions in flight get STOP_GRACE_MS, then are left for the resume.
        if (!(await finishWithin(all, hooks.signal)).done) {
          left = true;
          break;
        }
      }

      async function ablateQuestion(
        q: Question,
        ep: IngestedEpisode,
        index: SearchIndex,
        maxCandidates: number,
        ingestShare: number,
      ): Promise<void> {
        const ts = performance.now();
        let hits: Hit[] | null = null;
        let failure: string | null = null;
        try {
          hits = await index.search(q.text, maxCandidates);
          work.searches++;
          group.states[0]!.adds.searches++;
        } catch (e) {
          failure = (e as Error).message;
        }
        add(shared.search, wKey, performance.now() - ts);
        const prefix: SearchIndex = { search: async (_query, n) => hits!.slice(0, n) };
        for (const cgroup of groupBy(group.states, (s) => String(s.variant.candidates))) {
          const cand = cgroup[0]!.variant.candidates;
          const todo = cgroup.filter((s) => !s.done.has(q.id));
          if (todo.length === 0) continue;
          const depth = Math.max(...cgroup.map((s) => s.depth));
          const maxK = Math.max(...cgroup.map((s) => s.variant.k));
          const rankings = new Map<boolean, Ranking | string>();
          for (const rerank of [true, false]) {
            if (!todo.some((s) => s.variant.rerank === rerank)) continue;
            if (failure !== null) {
              rankings.set(rerank, failure);
              continue;
            }
            const tr = performance.now();
            try {
              rankings.set(rerank, await retrieve(q.text, prefix, retriever.reranker, ep, { candidates: cand, k: maxK, rerank }, depth));
              if (rerank && retriever.reranker && hits!.length > 0) {
                work.rerankCalls++;
                todo.find((s) => s.variant.rerank)!.adds.rerankCalls++;
              }
            } catch (e) {
              rankings.set(rerank, (e as Error).message);
            }
            if (rerank) add(shared.rerank, `${wKey}|${cand}`, performance.now() - tr);
          }
          for (const s of todo) {
            let item: ItemRecord;
            try {
              item = await deriveItem(s, q, ep, rankings.get(s.variant.rerank)!);
            } catch (e) {
              // --batch: a reader/judge request went to a batch job; the item stays pending.
              if (isDeferred(e)) continue;
              throw e;
            }
            item.timings.ingest_share_ms = ingestShare;
            if (left) return;
            s.run.append(item);
            s.items.set(item.id, slim(item));
          }
        }
      }

      async function deriveItem(s: VariantState, q: Question, ep: IngestedEpisode, ranking: Ranking | string): Promise<ItemRecord> {
        const td = performance.now();
        const item = baseItem(q, benchmark.name);
        if (typeof ranking === 'string') {
          item.error = { stage: 'retrieve', message: ranking };
          return item;
        }
        // Cut the shared ranking to exactly what this variant's own run would have produced.
        const own: Ranking = { candidates: ranking.candidates.slice(0, s.variant.candidates), ranked: ranking.ranked.slice(0, s.depth) };
        const policy = ep.episode.policy ? effectivePolicy(benchmark, s.cfg, ep.episode) : s.policy;
        const evidence = checkEvidence(q, item, recordRetrieval(item, q, ep, own, policy, s.cfg, benchmark), { benchmark, policy, ep });
        const deriveMs = performance.now() - td;
        s.ownMs.derive += deriveMs;
        item.timings.retrieve_ms = Math.round(deriveMs * 100) / 100;

        // Repeated evidence only matters where a reader would be called (or counted, in a dry run).
        if (s.plan.stages.length === 0 && !dry) return item;
        const ts = performance.now();
        let seen = seenEvidence.get(q.id);
        if (!seen) seenEvidence.set(q.id, (seen = new Map()));
        const key = (deps.rankingsDiffer ? `${s.variant.rerank}|` : '') + evidenceKey(evidence, item, policy, windowKey(s.variant.window));
        const again = req.rejudgeUnchanged === true && !s.variant.isDefault;
        const prior = seen.get(key);
        if (!prior || again) {
          s.adds.newEvidenceSets++;
          s.adds.newEvidenceTokens += evidence.tokens;
        }
        if (s.plan.stages.length === 0) {
          if (!prior) seen.set(key, { from: s.variant.name, delta: stageDelta(item, item) });
          return item;
        }
        if (prior && !again) {
          reuseStages(item, prior.delta, prior.from);
          work.reused++;
        } else {
          const before = structuredClone({ metrics: item.metrics, details: item.details });
          await runStages(item, s.plan.stages, { question: q, evidence, ep, cfg: s.cfg, benchmark });
          work.stageRuns++;
          // A failed call is not remembered: another variant with the same evidence tries again.
          if (!item.error) seen.set(key, { from: s.variant.name, delta: stageDelta(before, item) });
        }
        s.ownMs.stages += performance.now() - ts;
        return item;
      }
    }

    const outcomes: VariantOutcome[] = [];
    const interrupted = hooks.signal?.aborted ? (String(hooks.signal.reason) === 'SIGTERM' ? 'SIGTERM' : 'SIGINT') : null;
    const spentUsd = (s: VariantState) => (dry ? undefined : (s.plan.spentUsd?.() ?? 0));
    for (const s of states) {
      if (dry) {
        outcomes.push({
          variant: s.variant,
          adds: s.adds,
          dir: s.run.dir,
          manifest: s.run.manifest,
          summary: { ...summarise([]) },
          items: [],
        });
        continue;
      }
      // In question order, as `rawrag run` would list them.
      const items = questions.map((q) => s.items.get(q.id)).filter((i): i is ItemRecord => i !== undefined);
      const summary = buildSummary(items, {
        runId: s.run.manifest.run_id,
        name: s.run.manifest.name ?? null,
        system: s.run.manifest.system,
        setting: s.run.manifest.setting,
        cfg: s.cfg,
        benchmark,
        dataset,
        stages: s.plan,
      });
      const wKey = windowKey(s.variant.window);
      const retrieveMs =
        (shared.search.get(wKey) ?? 0) +
        (s.variant.rerank ? (shared.rerank.get(`${wKey}|${s.variant.candidates}`) ?? 0) : 0) +
        s.ownMs.derive;
      const timings = {
        load_ms: loadMs,
        ingest_ms: shared.ingest.get(wKey) ?? 0,
        retrieve_ms: retrieveMs,
        stages_ms: s.ownMs.stages,
      };
      // Shared work (load, ingest, search, rerank) is charged in full to every variant that used it.
      s.run.finish({
        items,
        summary,
        signal: stop,
        spentUsd: spentUsd(s),
        // work_ms: that charged work; sweep_wall_ms: the wall time of the whole sweep so far (shared by every variant).
        timings: {
          ...roundAll(timings),
          work_ms: Math.round(Object.values(timings).reduce((a, b) => a + b, 0)),
          sweep_wall_ms: Math.round(performance.now() - t0),
        },
      });
      outcomes.push({ variant: s.variant, adds: s.adds, dir: s.run.dir, manifest: s.run.manifest, summary, items });
    }
    if (interrupted) throw new Interrupted(interrupted, finished, total);
    const retrievalReport = retrievalSession.report();
    return {
      dir,
      benchmark: benchmark.name,
      retriever: retriever.name,
      system: source.system,
      name: req.name ?? null,
      retrievalReport,
      ...(req.rejudgeUnchanged ? { rejudgedUnchanged: true } : {}),
      variants: outcomes,
      work,
      wallMs: performance.now() - t0,
    };
  } catch (e) {
    for (const s of states) s.run.fail(e);
    throw e;
  } finally {
    for (const s of states) {
      s.run.release();
      await s.plan.close?.();
    }
    await source.close?.();
    retrievalSession.close();
  }
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

/** An item without its per-window lists (summaries and the paired table never read them). */
function slim(item: ItemRecord): ItemRecord {
  // The digest stays: the paired table tells questions whose evidence did not change by it.
  return { ...item, retrieved: [], evidence_turns: [], details: { ...item.details, [EVIDENCE_DIGEST]: evidenceDigest(item) } };
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

/** Variants grouped by window size, the reference's window first. */
function groupWindows(states: VariantState[]): Array<{ window: WindowSpec; states: VariantState[] }> {
  return groupBy(states, (s) => windowKey(s.variant.window)).map((ss) => ({ window: ss[0]!.variant.window, states: ss }));
}

/** Groups in first-appearance order (the reference variant comes first, so it answers first). */
function groupBy<T>(xs: T[], key: (x: T) => string): T[][] {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    let g = m.get(k);
    if (!g) m.set(k, (g = []));
    g.push(x);
  }
  return [...m.values()];
}
