/**
 * The built-in agentic memory system as an evidence source (src/core/evidence-source.ts):
 * at ingest an LLM extracts memory items from the visible history, batch by batch, into the run's
 * SQLite stores (store.ts) through the validation layer (validate.ts); per question, recall
 * (recall.ts) picks the items the reader is shown, in a labelled block that each benchmark's own
 * reader prompt shows in place of RAW-RAG's evidence.
 *
 * Resumable and idempotent: a batch whose extraction is logged `ok` is never extracted again;
 * replies come through the response cache (only parsable ones are cached), so a re-run of an
 * unchanged configuration sends no request at all.
 */
import { join } from 'node:path';
import type { RunConfig } from '../../config/schema.js';
import type { EpisodeEvidence, EvidenceSource, SourceContext } from '../../core/evidence-source.js';
import { ChatModel } from '../../providers/chat.js';
import type { ModelEntry } from '../../providers/models.js';
import type { ProviderSession } from '../../providers/session.js';
import type { IngestedEpisode } from '../../core/ingested-episode.js';
import type { Evidence } from '../../core/ingested-episode.js';
import { parseDay } from '../../retrieval/local/dates.js';
import type { Embedder } from '../../core/retriever.js';
import type { ItemRecord } from '../../core/item.js';
import { coverage } from '../../core/coverage.js';
import { InputError } from '../../util/errors.js';
import { extractorModel, memoryConfig } from './config.js';
import { memoryEmbedder } from './embedder.js';
import { EntityAligner, questionEntities } from './entities.js';
import { extractionLimits } from './extract.js';
import { injectionBlock, scoreMemories } from './recall.js';
import { MEMORY_DB_FILE, type MemoryRow } from './store.js';
import { round } from '../../util/num.js';
import { LazyStore, MemoryBuilder } from './builder.js';

export interface MemorySourceOptions {
  /** The run directory; the stores go to `<runDir>/memory.sqlite`. */
  runDir: string;
}

/**
 * Checks everything that could stop the system (extractor model, endpoint, key, embedder) and
 * throws an InputError naming what is missing; nothing is written until the first episode opens.
 */
export async function createAgenticMemorySource(
  cfg: RunConfig,
  session: ProviderSession,
  opts: MemorySourceOptions,
): Promise<EvidenceSource> {
  const mcfg = memoryConfig(cfg);
  const { entry, extractor } = openExtractor(cfg, session);
  const notes: string[] = [];
  const embedder = memoryEmbedder(cfg, session, notes);
  const store = new LazyStore(join(opts.runDir, MEMORY_DB_FILE), embedder.name);
  const builder = new MemoryBuilder(entry, extractor, extractionLimits(entry, mcfg), mcfg, embedder, store);
  const system = `agentic-memory/${entry.name}`;
  return {
    system,
    name: `${system}+${embedder.name}`,
    capabilities: {
      remote: true,
      llmAtIngest: true,
      questionRole: 'embed',
      ranksWindows: false,
      cheapDeepRanking: false,
      configSections: ['memory'],
    },
    notes,
    async prefetch(questions) {
      // Every question's embedding in as few requests as the API allows (remote embedders batch a tick's texts).
      await embedder.embed([...new Set(questions.map((q) => q.text))], 'query');
    },
    async open(ep: IngestedEpisode, ctx: SourceContext): Promise<EpisodeEvidence> {
      const speakers = speakersOf(ep);
      const aligner = new EntityAligner(speakers);
      const ingest = await builder.built(ep, aligner, ctx.ingestProgress);
      const memories = store.get().memories(ep.episode.id, ep.visibleTurns);
      return new MemoryEvidence(ep, memories, embedder, aligner, speakers, mcfg, ingest);
    },
    report: () => ({ memory: memoryReport(store, builder, entry, embedder.name, mcfg) }),
    async close() {
      store.close();
    },
  };
}

/** The extractor model (-S extractor, else the reader), its key and endpoint checked. */
function openExtractor(cfg: RunConfig, session: ProviderSession): { entry: ModelEntry; extractor: ChatModel } {
  const extractorName = extractorModel(cfg);
  if (!extractorName) {
    throw new InputError(
      'agentic memory needs an LLM to extract memories: give -S extractor=MODEL (or --reader MODEL, which it then uses)',
      { place: '-S extractor' },
    );
  }
  const entry = session.model(extractorName, 'reader');
  const a = session.availability(entry, 'reader');
  if (!a.ok)
    throw new InputError(`agentic memory cannot extract: ${a.reason.replace('reader model', 'extractor model')}`, {
      place: '-S extractor',
    });
  // Its own usage role: the reader's provider table counts answers only.
  return { entry, extractor: new ChatModel(session, 'extract', entry, a.endpoint) };
}

/** The store's figures for the run's summary: what building it cost, what it holds, how recall was set. */
function memoryReport(
  store: LazyStore,
  builder: MemoryBuilder,
  entry: ModelEntry,
  embedderName: string,
  mcfg: ReturnType<typeof memoryConfig>,
): Record<string, unknown> {
  const totals = store.totals();
  const { limits } = builder;
  return {
    store: store.path,
    extractor: entry.name,
    embedder: embedderName,
    batch: mcfg.batch,
    batch_limits: { max_turns: limits.maxTurns, max_segment_tokens: limits.maxSegmentTokens, context_window: limits.contextWindow },
    structured_outputs: entry.structuredOutputs,
    // What building the whole store cost (from its extraction log, resumed runs included): requests
    // really sent, failed attempts included; replies from the cache are neither calls nor dollars ...
    ingest: {
      extraction_calls: totals ? totals.requests : 0,
      cache_hits: totals ? totals.cache_hits : 0,
      batches: totals ? totals.batches_ok : 0,
      failed_batches: totals ? totals.batches_error : 0,
      prompt_tokens: totals?.prompt_tokens ?? 0,
      completion_tokens: totals?.completion_tokens ?? 0,
      cost_usd: totals ? totals.cost_usd : 0,
    },
    // ... and what this process sent (cache hits cost nothing).
    this_run: { ...builder.stats },
    items: totals ? storedItems(totals) : null,
    warnings: storeWarnings(totals),
    recall: { weights: mcfg.weights, items: mcfg.items, tokens: mcfg.tokens, include_superseded: mcfg.includeSuperseded },
    forgetting: mcfg.forgetting,
  };
}

type StoreTotals = NonNullable<ReturnType<LazyStore['totals']>>;

function storedItems(totals: StoreTotals): Record<string, unknown> {
  return {
    returned: totals.items_returned,
    stored: totals.memories,
    active: totals.active,
    superseded: totals.superseded,
    forgotten: totals.forgotten,
    forgotten_by: totals.forgotten_by,
    merged: totals.items_merged,
    dropped: totals.items_dropped,
    invalid: totals.items_invalid,
    miscited: totals.items_miscited,
    citations_dropped: totals.citations_dropped,
    events: totals.events,
  };
}

function storeWarnings(totals: StoreTotals | null): string[] {
  const warnings: string[] = [];
  if (totals && totals.batches_ok > 0 && totals.memories === 0)
    warnings.push(
      `the memory store holds 0 items after ${totals.batches_ok} extraction batches: every question was answered from an empty memory ` +
        `(the extractor returned ${totals.items_returned} items; check its replies with rawrag memory show or the extractions table)`,
    );
  if (totals && totals.items_miscited + totals.citations_dropped > 0)
    warnings.push(
      `the extractor cited turns outside their segment: ${totals.citations_dropped} citations removed, ${totals.items_miscited} items citing nothing of their segment dropped`,
    );
  return warnings;
}

/** The speakers of the visible history, and the adapter's speaker list when it gives one. */
function speakersOf(ep: IngestedEpisode): string[] {
  const out = new Set<string>();
  const meta = ep.episode.meta?.speakers;
  if (Array.isArray(meta)) for (const s of meta) if (typeof s === 'string') out.add(s);
  for (const t of ep.episode.turns.slice(0, ep.visibleTurns)) if (t.speaker) out.add(t.speaker);
  return [...out];
}

class MemoryEvidence implements EpisodeEvidence {
  private readonly lastDay: number | null;
  private readonly position: Map<string, number>;

  constructor(
    ep: IngestedEpisode,
    private readonly memories: MemoryRow[],
    private readonly embedder: Embedder,
    private readonly aligner: EntityAligner,
    private readonly speakers: string[],
    private readonly cfg: ReturnType<typeof memoryConfig>,
    readonly ingest: Record<string, number>,
  ) {
    const visible = ep.episode.turns.slice(0, ep.visibleTurns);
    this.position = new Map(visible.map((t, i) => [t.id, i]));
    let last: number | null = null;
    for (let i = visible.length - 1; i >= 0 && last === null; i--) last = parseDay(visible[i]!.date);
    this.lastDay = last;
  }

  async evidenceFor(q: Parameters<EpisodeEvidence['evidenceFor']>[0], item: ItemRecord): Promise<Evidence> {
    const [vector] = await this.embedder.embed([q.text], 'query');
    const focus = questionEntities(q.text, this.aligner, this.speakers);
    const nowDay = parseDay(q.questionDate) ?? this.lastDay;
    const scored = scoreMemories(this.memories, { vector: vector!, focus, nowDay }, this.cfg);
    const block = injectionBlock(scored, this.cfg);
    const turns = [...new Set(block.injected.flatMap((s) => s.memory.source_turns))].sort(
      (a, b) => (this.position.get(a) ?? 0) - (this.position.get(b) ?? 0),
    );
    const gold = new Set(q.evidence);
    item.retrieved = [];
    item.recalled = block.injected.map((s) => ({
      memory_id: s.memory.memory_id,
      score: round(s.score, 6),
      parts: { cos: round(s.parts.cos, 6), entity: s.parts.entity, recency: round(s.parts.recency, 6), importance: s.parts.importance },
      content: s.memory.content,
      source_event: s.memory.source_event_id,
      turns: s.memory.source_turns,
    }));
    item.evidence_turns = turns;
    item.evidence_tokens = block.tokens;
    item.coverage = coverage(turns, q.evidence);
    item.coverage_at_k = {};
    // Pollution: injected items none of whose source turns holds gold evidence (unknown without gold).
    item.metrics.pollution =
      gold.size === 0 || block.injected.length === 0
        ? null
        : block.injected.filter((s) => !s.memory.source_turns.some((t) => gold.has(t))).length / block.injected.length;
    item.details.memory = { focus, now_day: nowDay, recallable: scored.length, injected: block.injected.length };
    // One memory block: the labelled injection, with the turns its items came from.
    const sourceTurns = turns.flatMap((id) => (this.position.has(id) ? [this.position.get(id)!] : []));
    return { turnIndices: [], turnIds: [], blocks: [{ text: block.text, turns: sourceTurns, kind: 'memory' }], tokens: block.tokens };
  }
}
