/**
 * RAW-RAG with one memory-management operation added at ingest (the paper's ablations: atomic
 * facts, session summaries, an entity graph), everything else unchanged: the same retriever
 * (embed, top-128, rerank, top-15), the same ranking record and the benchmark's assembly policy.
 * An LLM step runs per batch of the history (src/ingest-llm/llm-step.ts: providers, response cache,
 * retries, --batch); each reply is stored in the run directory as it arrives (src/ingest-llm/step-store.ts),
 * so a resumed run asks only for what is not stored. The variant turns the stored replies into
 * derived index units (each keeping its source turns, so coverage is computed as for windows)
 * and/or an expansion of the evidence after reranking.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfig } from '../../config/schema.js';
import type { EpisodeEvidence, EvidenceSource, SourceContext } from '../../core/evidence-source.js';
import type { Chunk, Evidence, EvidenceBlock, IngestedEpisode } from '../../core/ingested-episode.js';
import type { ItemRecord } from '../../core/item.js';
import type { Policy } from '../../core/policy.js';
import type { Question } from '../../core/schema.js';
import type { Retriever } from '../../core/retriever.js';
import { coverage } from '../../core/coverage.js';
import { batchesOf, type Batch, type BatchLimits, type BatchRule } from '../../ingest-llm/batches.js';
import { IngestLlm, countReply, noFigures, segmentMessages, type JsonStep } from '../../ingest-llm/llm-step.js';
import { isDeferred } from '../../providers/batch/defer.js';
import { INGEST_DB_FILE, StepStore, type StepTotals } from '../../ingest-llm/step-store.js';
import { PhaseClock } from '../../util/phase-clock.js';
import { retrieve } from '../../retrieval/retrieve.js';
import { effectiveRetrieval, rankingDepth, recordRetrieval } from '../../retrieval/ranked-evidence.js';
import { countTokens } from '../../retrieval/tokenizer.js';
import { coveredTurnIds } from '../../retrieval/assemble.js';

/** A derived index unit: its text (what the reader is shown) and the turns it came from. */
export interface DerivedUnit {
  text: string;
  sourceTurns: number[];
}

/** What a variant makes of an episode's stored replies. */
export interface AugmentPlan {
  units: DerivedUnit[];
  /** Keep the raw windows in the index beside the units (false: the units replace them). */
  keepWindows: boolean;
  /** Turns added to a question's evidence after reranking (graph expansion), best first, within the variant's budget. */
  expand?(shown: readonly number[], q: Question, ep: IngestedEpisode): { turns: number[]; details: Record<string, unknown> };
}

export interface IngestSettings {
  /** The LLM; null = the reader's model. */
  extractor: string | null;
  batch: BatchRule;
  maxTokens: number;
}

export interface Augmentation<T> {
  /** The manifest's system prefix, e.g. `RAW-RAG+facts` (the retriever's name follows). */
  system: string;
  /** The flag naming the ingest model (error messages). */
  modelFlag: string;
  /** The config section the variant reads (rawrag ablate sweeps its values as plain runs). */
  section: string;
  /** Unit id tag: `<episode>#<tag><n>`. */
  tag: string;
  step: JsonStep<T>;
  settings(cfg: RunConfig): IngestSettings;
  plan(ep: IngestedEpisode, replies: Array<{ batch: Batch; value: T }>, ctx: { cfg: RunConfig; store: StepStore }): AugmentPlan;
  /** The variant's own figures for summary.json (units made, graph size). */
  report?(store: StepStore): Record<string, unknown>;
}

/** The source of a variant; checks the ingest model before anything is written. */
export function augmentedSource<T>(
  aug: Augmentation<T>,
  cfg: RunConfig,
  retriever: Retriever,
  llm: IngestLlm,
  runDir: string,
  /** What one request may hold (the model's context, the reply budget): longer sessions are cut. */
  limits: BatchLimits,
): EvidenceSource {
  const builder = new AugmentedBuilder(aug, cfg, retriever, llm, join(runDir, INGEST_DB_FILE), limits);
  const system = `${aug.system}/${retriever.name}`;
  return {
    system,
    name: `${retriever.name}+${llm.entry.name}`,
    notes: retriever.notes,
    capabilities: {
      remote: true,
      llmAtIngest: true,
      questionRole: retriever.remote && retriever.reranker ? 'rerank' : retriever.remote ? 'embed' : null,
      // Its units are not the raw windows ablate's shared ranking derives variants from: k and the
      // other retrieval knobs are run as plain runs, like the variant's own config values.
      ranksWindows: false,
      cheapDeepRanking: retriever.cheapDeepRanking,
      configSections: [aug.section],
    },
    async prefetch(qs: Question[]) {
      if (cfg.retrieval.rerank) await retriever.warmUp?.();
      await retriever.firstStage.prefetch?.(qs.map((q) => q.text));
    },
    async open(ep: IngestedEpisode, ctx: SourceContext): Promise<EpisodeEvidence> {
      const built = await builder.built(ep, ctx.ingestProgress);
      return { ingest: built.ingest, evidenceFor: (q, item, ctx) => augmentedEvidence(retriever, built, q, item, ctx) };
    },
    report: () => builder.report(),
    async close() {
      builder.close();
    },
  };
}

interface Built {
  ep: IngestedEpisode;
  plan: AugmentPlan;
  index: Awaited<ReturnType<Retriever['firstStage']['prepare']>>;
  ingest: Record<string, number>;
}

/** The question's ranking over the derived index, then the variant's expansion after reranking (if any). */
async function augmentedEvidence(retriever: Retriever, built: Built, q: Question, item: ItemRecord, ctx: SourceContext): Promise<Evidence> {
  const rcfg = effectiveRetrieval(ctx.cfg, retriever);
  const depth = rankingDepth(rcfg, retriever, ctx.benchmark);
  const ranking = await retrieve(q.text, built.index, retriever.reranker, built.ep, rcfg.retrieval, depth);
  const evidence = recordRetrieval(item, q, built.ep, ranking, ctx.policy, rcfg, ctx.benchmark);
  if (retriever.selectsAll) item.coverage_at_k = {};
  if (!built.plan.expand) return evidence;
  const extra = built.plan.expand(evidence.turnIndices, q, built.ep);
  item.details.expansion = { ...extra.details, added_turns: extra.turns.map((t) => built.ep.episode.turns[t]!.id) };
  if (extra.turns.length === 0) return evidence;
  const expanded = withTurns(built.ep, evidence, extra.turns, ctx.policy);
  item.evidence_turns = coveredTurnIds(built.ep, expanded);
  item.evidence_tokens = expanded.tokens;
  item.coverage = coverage(item.evidence_turns, q.evidence);
  return expanded;
}

/** Builds each (episode, horizon)'s derived index once: the stored replies, the missing ones asked for, the units indexed. */
class AugmentedBuilder<T> {
  private store: StepStore | null = null;
  private readonly building = new Map<string, Promise<Built>>();
  private readonly settings: IngestSettings;
  // The wall time this process spent building indexes (episodes are built concurrently).
  private readonly buildClock = new PhaseClock();

  constructor(
    private readonly aug: Augmentation<T>,
    private readonly cfg: RunConfig,
    private readonly retriever: Retriever,
    private readonly llm: IngestLlm,
    private readonly dbPath: string,
    private readonly limits: BatchLimits,
  ) {
    this.settings = aug.settings(cfg);
  }

  private openStore(): StepStore {
    return (this.store ??= new StepStore(this.dbPath));
  }

  /** The episode's index built once per (episode, horizon); `progress` hears the batches answered of its batches (stored ones included). */
  built(ep: IngestedEpisode, progress?: (done: number, total: number) => void): Promise<Built> {
    const key = `${ep.episode.id}\u0000${ep.visibleTurns}`;
    let p = this.building.get(key);
    if (!p) {
      p = this.build(ep, progress);
      this.building.set(key, p);
      p.catch(() => this.building.delete(key));
    }
    return p;
  }

  private async build(ep: IngestedEpisode, progress?: (done: number, total: number) => void): Promise<Built> {
    const t0 = performance.now();
    // This episode's own calls (episodes are built concurrently: the process totals would mix them).
    const mine = noFigures();
    const batches = batchesOf(ep.episode.turns, ep.visibleTurns, this.settings.batch, this.limits);
    const replies = await this.replies(ep, batches, mine, progress);
    const plan = this.aug.plan(ep, replies, { cfg: this.cfg, store: this.openStore() });
    const derived = withUnits(ep, plan, this.aug.tag);
    const index = await this.retriever.firstStage.prepare(derived);
    this.buildClock.add(t0, performance.now());
    const ingest = {
      ms: Math.round(performance.now() - t0),
      llm_batches: batches.length,
      llm_requests: mine.requests,
      llm_cache_hits: mine.cache_hits,
      llm_prompt_tokens: mine.prompt_tokens,
      llm_completion_tokens: mine.completion_tokens,
      index_units: derived.chunks.length,
    };
    return { ep: derived, plan, index, ingest };
  }

  /** Every batch's reply: stored ones read back, the others asked for together (the session bounds concurrency) and stored as they arrive. */
  private async replies(
    ep: IngestedEpisode,
    batches: Batch[],
    mine: ReturnType<typeof noFigures>,
    progress: (done: number, total: number) => void = () => undefined,
  ): Promise<Array<{ batch: Batch; value: T }>> {
    const { aug, llm } = this;
    const s = this.openStore();
    const owner = ep.episode.id;
    const turns = ep.episode.turns;
    const replies: Array<{ batch: Batch; value: T } | null> = batches.map((b) => {
      const v = s.value(owner, aug.step.name, b.key);
      return v === undefined ? null : { batch: b, value: v as T };
    });
    let deferred: Error | null = null;
    const failures: Array<{ batch: Batch; error: string }> = [];
    let answered = replies.filter((r) => r !== null).length;
    progress(answered, batches.length);
    await Promise.all(
      batches.map(async (b, i) => {
        if (replies[i]) return;
        try {
          const { value, figures } = await llm.call(aug.step, segmentMessages(aug.step.prompt, turns, b), this.settings.maxTokens);
          countReply(mine, figures, figures.cost_usd);
          const where = {
            owner_id: owner,
            step: aug.step.name,
            batch_key: b.key,
            first_turn: turns[b.first]!.id,
            last_turn: turns[b.last]!.id,
          };
          s.record({ ...where, model: llm.entry.name, value, ...figures });
          replies[i] = { batch: b, value };
        } catch (e) {
          if (isDeferred(e)) deferred ??= e;
          else failures.push({ batch: b, error: (e as Error).message });
        }
        progress(++answered, batches.length);
      }),
    );
    if (deferred) throw deferred;
    if (failures.length) {
      const f = failures.sort((a, b) => a.batch.index - b.batch.index)[0]!;
      throw new Error(
        `${aug.system}: ${aug.step.name} failed for ${failures.length} of ${batches.length} batches of ${owner} (first: turns ${turns[f.batch.first]!.id}..${turns[f.batch.last]!.id}: ${f.error}); stored batches are kept, --retry-errors asks for the rest`,
      );
    }
    return replies.map((r) => r!);
  }

  report(): Record<string, unknown> {
    const { aug, llm } = this;
    const s = this.store ?? (existsSync(this.dbPath) ? new StepStore(this.dbPath, { readonly: true }) : null);
    try {
      const totals = s?.totals() ?? null;
      return {
        ingest_llm: {
          system: aug.system,
          step: aug.step.name,
          model: llm.entry.name,
          structured_outputs: llm.structured,
          batch: this.settings.batch,
          store: this.dbPath,
          // What building the whole index cost (every stored reply, resumed runs included; sent and cached apart) ...
          whole_index: totals,
          // ... and what this process sent (cache hits cost nothing), and the wall time it spent building indexes.
          this_run: { ...llm.stats, ingest_wall_ms: Math.round(this.buildClock.ms) },
          ...(totals ? { warnings: emptyIngestWarnings(aug, totals) } : {}),
          ...(s && aug.report ? aug.report(s) : {}),
        },
      };
    } finally {
      if (s && s !== this.store) s.close();
    }
  }

  close(): void {
    this.store?.close();
    this.store = null;
  }
}

/**
 * A loud warning when the ingest LLM returned nothing for most batches: the index then holds few or
 * no derived units (an add-on over an empty index scores 0 % coverage without any error).
 */
export function emptyIngestWarnings(aug: Pick<Augmentation<unknown>, 'system' | 'step'>, totals: StepTotals): string[] {
  if (totals.calls === 0 || totals.empty_replies * 2 <= totals.calls) return [];
  const pct = ((100 * totals.empty_replies) / totals.calls).toFixed(1);
  return [
    `${aug.system}: ${totals.empty_replies} of ${totals.calls} ${aug.step.name} replies (${pct} %) held nothing: the index has ` +
      `${totals.empty_replies === totals.calls ? 'no' : 'few'} derived units, so coverage and accuracy measure an empty memory, not the operation. ` +
      "Check the ingest model and its replies (the run directory's ingest.sqlite) before reading this run",
  ];
}

/** The episode as the variant indexes it: the raw windows (unless replaced), then the derived units. */
export function withUnits(ep: IngestedEpisode, plan: AugmentPlan, tag: string): IngestedEpisode {
  if (plan.units.length === 0 && plan.keepWindows) return ep;
  const chunks: Chunk[] = plan.keepWindows ? [...ep.chunks] : [];
  plan.units.forEach((u, j) => {
    const turns = [...new Set(u.sourceTurns)].sort((a, b) => a - b);
    chunks.push({
      index: chunks.length,
      id: `${ep.episode.id}#${tag}${j}`,
      text: u.text,
      firstTurn: turns[0]!,
      lastTurn: turns[turns.length - 1]!,
      tokenStart: 0,
      tokenEnd: countTokens(u.text),
      sourceTurns: turns,
    });
  });
  return { ...ep, chunks };
}

/** Evidence with extra turns (graph expansion): whole turns after the shown ones, or merged by turn in chronological order. */
export function withTurns(ep: IngestedEpisode, evidence: Evidence, extra: readonly number[], policy: Pick<Policy, 'order'>): Evidence {
  const have = new Set(evidence.turnIndices);
  const added = extra.filter((t) => !have.has(t));
  const turnIndices = [...evidence.turnIndices, ...added];
  const addedBlocks: EvidenceBlock[] = added.map((t) => ({ text: ep.lines[t]!, turns: [t], kind: 'history' }));
  let blocks = [...evidence.blocks, ...addedBlocks];
  if (policy.order === 'chronological') {
    turnIndices.sort((a, b) => a - b);
    blocks = [...blocks].sort((a, b) => Math.min(...a.turns) - Math.min(...b.turns));
  }
  const tokens = evidence.tokens + added.reduce((s, t) => s + ep.turnTokenStart[t + 1]! - ep.turnTokenStart[t]!, 0);
  return { turnIndices, turnIds: turnIndices.map((t) => ep.episode.turns[t]!.id), blocks, tokens };
}

/** Turn ids cited by a reply, mapped to turn indices of the batch; none valid = the whole batch. */
export function citedTurns(ep: IngestedEpisode, batch: Batch, ids: readonly string[]): number[] {
  const pos = new Map<string, number>();
  for (let t = batch.first; t <= batch.last; t++) pos.set(ep.episode.turns[t]!.id, t);
  const cited = [...new Set(ids.map((id) => pos.get(id)).filter((t): t is number => t !== undefined))].sort((a, b) => a - b);
  return cited.length ? cited : Array.from({ length: batch.last - batch.first + 1 }, (_, i) => batch.first + i);
}
