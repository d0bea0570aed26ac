/**
 * The shared work of an ablation (engine.ts opens and closes it): per window size, one ingest and
 * one first-stage index per episode; per question, one first-stage search at the deepest candidate
 * count and one rerank per candidate count, cut into each variant's own ranking; reader and judge
 * stages once per distinct evidence set of a question.
 */
import pLimit from 'p-limit';
import type { Question } from '../core/schema.js';
import { baseItem, type ItemRecord } from '../core/item.js';
import type { IngestedEpisode } from '../core/ingested-episode.js';
import type { Benchmark } from '../core/benchmark.js';
import type { Retriever, SearchIndex, Hit } from '../core/retriever.js';
import type { RunConfig } from '../config/schema.js';
import type { StagePlan } from '../pipeline/stages.js';
import type { RunLifecycle } from '../pipeline/lifecycle.js';
import { retrieve, type Ranking } from '../retrieval/retrieve.js';
import { effectivePolicy, episodeOf, groupByIndex, type RunInputs } from '../pipeline/plan.js';
import { failedItems, ingestGroup, runStages } from '../pipeline/pipeline.js';
import { recordRetrieval } from '../retrieval/ranked-evidence.js';
import { checkEvidence } from '../pipeline/evidence-checks.js';
import { finishWithin } from '../util/interrupt.js';
import { yieldToEventLoop } from '../util/yield.js';
import { isDeferred } from '../providers/batch/defer.js';
import type { AblationDeps, AblationHooks, AblationRequest, AblationWork, VariantAdds } from './types.js';
import { windowKey, type Variant, type WindowSpec } from './variants.js';
import { EVIDENCE_DIGEST, evidenceDigest, evidenceKey, reuseStages, stageDelta, type StageDelta } from './reuse.js';

export interface VariantState {
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

/** Variants sharing one window size: one ingest and one index per episode serve them all. */
interface WindowGroup {
  window: WindowSpec;
  key: string;
  states: VariantState[];
}

/** One episode's shared ingest and index, as the questions of a window group search it. */
interface EpisodeWork {
  group: WindowGroup;
  ep: IngestedEpisode;
  index: SearchIndex;
  maxCandidates: number;
  /** Each question carries its share of building the index it searched, as in `rawrag run`. */
  ingestShare: number;
}

/** Wall time of the shared steps, summed per window size (and candidate count for reranking). */
export interface SharedTimings {
  ingest: Map<string, number>;
  search: Map<string, number>;
  rerank: Map<string, number>;
}

export class WindowSweep {
  readonly work: AblationWork;
  readonly shared: SharedTimings = { ingest: new Map(), search: new Map(), rerank: new Map() };
  finished = 0;
  readonly total: number;
  /** Questions still in flight when a stop signal's grace ran out: their items are not written. */
  private left = false;
  private readonly groups: WindowGroup[];
  private readonly pending: Question[][];
  /** Answers of evidence sets already seen, per question (variants of one question run in order). */
  private readonly seenEvidence = new Map<string, Map<string, { from: string; delta: StageDelta }>>();
  private readonly episodes: Map<string, RunInputs['dataset']['episodes'][number]>;
  private readonly concurrency: number;
  private readonly benchmark: Benchmark;

  constructor(
    private readonly req: AblationRequest,
    private readonly hooks: AblationHooks,
    private readonly deps: AblationDeps,
    private readonly inputs: RunInputs,
    private readonly retriever: Retriever,
    states: VariantState[],
    /** New questions stop on a signal, or once the cost cap held a request back (--max-cost). */
    private readonly stop: AbortSignal | undefined,
  ) {
    this.benchmark = inputs.benchmark;
    this.groups = groupBy(states, (s) => windowKey(s.variant.window)).map((ss) => ({
      window: ss[0]!.variant.window,
      key: windowKey(ss[0]!.variant.window),
      states: ss,
    }));
    this.pending = this.groups.map((g) => inputs.questions.filter((q) => g.states.some((s) => !s.done.has(q.id))));
    this.total = this.pending.reduce((s, p) => s + p.length, 0);
    this.episodes = new Map(inputs.dataset.episodes.map((e) => [e.id, e]));
    this.concurrency = Math.max(1, Math.min(...states.map((s) => s.plan.concurrency)));
    this.work = {
      windowSizes: 0,
      indexBuilds: 0,
      searches: 0,
      rerankCalls: 0,
      stageRuns: 0,
      reused: 0,
      questions: inputs.questions.length,
    };
  }

  private get dry(): boolean {
    return Boolean(this.req.dryRun);
  }

  async run(): Promise<void> {
    this.hooks.progress?.(this.finished, this.total);
    for (const [wi, group] of this.groups.entries()) {
      const pending = this.pending[wi]!;
      if (pending.length === 0) continue;
      this.work.windowSizes++;
      if (!(await this.sweepWindow(group, pending))) return;
    }
  }

  /** One window size: episode after episode; false once a stop signal left questions unfinished. */
  private async sweepWindow(group: WindowGroup, pending: Question[]): Promise<boolean> {
    const chunking = { ...this.req.base.chunking, size: group.window.size, stride: group.window.stride };
    const maxCandidates = Math.max(...group.states.map((s) => s.variant.candidates));
    for (const g of groupByIndex(pending)) {
      await yieldToEventLoop(); // offline sweeps are CPU-bound: let a signal in (see util/yield.ts)
      if (this.stop?.aborted) break;
      const work = await this.prepareEpisode(group, g, chunking, maxCandidates);
      if (!work) continue;
      const limit = pLimit(this.concurrency);
      const all = Promise.all(
        g.questions.map((q) =>
          limit(async () => {
            await yieldToEventLoop();
            if (this.stop?.aborted) return;
            await this.ablateQuestion(work, q);
            this.finished++;
            this.hooks.progress?.(this.finished, this.total);
          }),
        ),
      );
      // Stopped by a signal: questions in flight get STOP_GRACE_MS, then are left for the resume.
      if (!(await finishWithin(all, this.hooks.signal)).done) {
        this.left = true;
        return false;
      }
    }
    return true;
  }

  /** Ingest and index one episode (shared by the group's variants); its questions fail together if indexing does. */
  private async prepareEpisode(
    group: WindowGroup,
    g: ReturnType<typeof groupByIndex>[number],
    chunking: RunConfig['chunking'],
    maxCandidates: number,
  ): Promise<EpisodeWork | null> {
    const ti = performance.now();
    const episode = episodeOf(this.inputs.dataset, this.episodes, g);
    // Ingest reads only chunking and serialisation, which no variant changes (an episode may override them).
    const ep = ingestGroup(this.benchmark, this.req.base, episode, g, chunking);
    let index: SearchIndex;
    try {
      index = await this.retriever.firstStage.prepare(ep);
    } catch (e) {
      // As in `rawrag run`: the episode's questions become item errors; the others go on.
      for (const s of group.states) {
        const todo = g.questions.filter((q) => !s.done.has(q.id));
        for (const item of failedItems(todo, this.benchmark.name, 'retrieve', (e as Error).message)) this.write(s, item);
      }
      this.finished += g.questions.length;
      this.hooks.progress?.(this.finished, this.total);
      return null;
    }
    this.work.indexBuilds++;
    const first = group.states[0]!.adds;
    first.indexBuilds++;
    first.windows += ep.chunks.length;
    first.windowTokens += ep.chunks.reduce((t, c) => t + c.tokenEnd - c.tokenStart, 0);
    const ingestMs = performance.now() - ti;
    add(this.shared.ingest, group.key, ingestMs);
    const ingestShare = Math.round((ingestMs / g.questions.length) * 100) / 100;
    return { group, ep, index, maxCandidates, ingestShare };
  }

  /** One search at the deepest candidate count, then each candidate count's rankings and the variants' items. */
  private async ablateQuestion(w: EpisodeWork, q: Question): Promise<void> {
    const ts = performance.now();
    let hits: Hit[] | null = null;
    let failure: string | null = null;
    try {
      hits = await w.index.search(q.text, w.maxCandidates);
      this.work.searches++;
      w.group.states[0]!.adds.searches++;
    } catch (e) {
      failure = (e as Error).message;
    }
    add(this.shared.search, w.group.key, performance.now() - ts);
    for (const cgroup of groupBy(w.group.states, (s) => String(s.variant.candidates))) {
      const todo = cgroup.filter((s) => !s.done.has(q.id));
      if (todo.length === 0) continue;
      const rankings = await this.rankings(w, q, cgroup, todo, hits, failure);
      for (const s of todo) {
        let item: ItemRecord;
        try {
          item = await this.deriveItem(s, q, w.ep, rankings.get(s.variant.rerank)!);
        } catch (e) {
          // --batch: a reader/judge request went to a batch job; the item stays pending.
          if (isDeferred(e)) continue;
          throw e;
        }
        item.timings.ingest_share_ms = w.ingestShare;
        if (this.left) return;
        this.write(s, item);
      }
    }
  }

  /** The reranked and first-stage rankings one candidate count's variants need (an error message where it failed). */
  private async rankings(
    w: EpisodeWork,
    q: Question,
    cgroup: VariantState[],
    todo: VariantState[],
    hits: Hit[] | null,
    failure: string | null,
  ): Promise<Map<boolean, Ranking | string>> {
    const cand = cgroup[0]!.variant.candidates;
    const depth = Math.max(...cgroup.map((s) => s.depth));
    const maxK = Math.max(...cgroup.map((s) => s.variant.k));
    const prefix: SearchIndex = { search: async (_query, n) => hits!.slice(0, n) };
    const rankings = new Map<boolean, Ranking | string>();
    for (const rerank of [true, false]) {
      if (!todo.some((s) => s.variant.rerank === rerank)) continue;
      if (failure !== null) {
        rankings.set(rerank, failure);
        continue;
      }
      const tr = performance.now();
      try {
        rankings.set(rerank, await retrieve(q.text, prefix, this.retriever.reranker, w.ep, { candidates: cand, k: maxK, rerank }, depth));
        if (rerank && this.retriever.reranker && hits!.length > 0) {
          this.work.rerankCalls++;
          todo.find((s) => s.variant.rerank)!.adds.rerankCalls++;
        }
      } catch (e) {
        rankings.set(rerank, (e as Error).message);
      }
      if (rerank) add(this.shared.rerank, `${w.group.key}|${cand}`, performance.now() - tr);
    }
    return rankings;
  }

  /** The variant's own item: its cut of the shared ranking, its evidence, and its stages (or a reused answer). */
  private async deriveItem(s: VariantState, q: Question, ep: IngestedEpisode, ranking: Ranking | string): Promise<ItemRecord> {
    const td = performance.now();
    const item = baseItem(q, this.benchmark.name);
    if (typeof ranking === 'string') {
      item.error = { stage: 'retrieve', message: ranking };
      return item;
    }
    // Cut the shared ranking to exactly what this variant's own run would have produced.
    const own: Ranking = { candidates: ranking.candidates.slice(0, s.variant.candidates), ranked: ranking.ranked.slice(0, s.depth) };
    const policy = ep.episode.policy ? effectivePolicy(this.benchmark, s.cfg, ep.episode) : s.policy;
    const benchmark = this.benchmark;
    const evidence = checkEvidence(q, item, recordRetrieval(item, q, ep, own, policy, s.cfg, benchmark), { benchmark, policy, ep });
    const deriveMs = performance.now() - td;
    s.ownMs.derive += deriveMs;
    item.timings.retrieve_ms = Math.round(deriveMs * 100) / 100;

    // Repeated evidence only matters where a reader would be called (or counted, in a dry run).
    if (s.plan.stages.length === 0 && !this.dry) return item;
    const ts = performance.now();
    let seen = this.seenEvidence.get(q.id);
    if (!seen) this.seenEvidence.set(q.id, (seen = new Map()));
    const key = (this.deps.rankingsDiffer ? `${s.variant.rerank}|` : '') + evidenceKey(evidence, item, policy, windowKey(s.variant.window));
    const again = this.req.rejudgeUnchanged === true && !s.variant.isDefault;
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
      this.work.reused++;
    } else {
      const before = structuredClone({ metrics: item.metrics, details: item.details });
      await runStages(item, s.plan.stages, { question: q, evidence, ep, cfg: s.cfg, benchmark });
      this.work.stageRuns++;
      // A failed call is not remembered: another variant with the same evidence tries again.
      if (!item.error) seen.set(key, { from: s.variant.name, delta: stageDelta(before, item) });
    }
    s.ownMs.stages += performance.now() - ts;
    return item;
  }

  private write(s: VariantState, item: ItemRecord): void {
    s.run.append(item);
    s.items.set(item.id, slim(item));
  }
}

/** An item without its per-window lists (summaries and the paired table never read them). */
export function slim(item: ItemRecord): ItemRecord {
  // The digest stays: the paired table tells questions whose evidence did not change by it.
  return { ...item, retrieved: [], evidence_turns: [], details: { ...item.details, [EVIDENCE_DIGEST]: evidenceDigest(item) } };
}

function add(m: Map<string, number>, key: string, ms: number): void {
  m.set(key, (m.get(key) ?? 0) + ms);
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
