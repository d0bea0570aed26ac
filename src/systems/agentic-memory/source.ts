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
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunConfig } from '../../config/schema.js';
import type { EpisodeEvidence, EvidenceSource } from '../../core/evidence-source.js';
import { ChatModel } from '../../providers/chat.js';
import type { ProviderSession } from '../../providers/session.js';
import { costOf } from '../../providers/usage.js';
import { countReply, noFigures, type ProcessFigures } from '../../ingest/llm-step.js';
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
import {
  EXTRACTION_JSON_SCHEMA,
  extractionLimits,
  extractionMessages,
  isParsableExtraction,
  readExtraction,
  type ExtractedItem,
} from './extract.js';
import { batchesOf, type Batch } from '../../ingest/batches.js';
import { injectionBlock, scoreMemories } from './recall.js';
import { MEMORY_DB_FILE, MemoryStore, type MemoryRow } from './store.js';
import { activeMemories, applyBatch, keptItems } from './validate.js';
import { round } from '../../util/num.js';
import { isDeferred } from '../../providers/batch/defer.js';
import { recordFailedBatch } from './decisions.js';

export interface MemorySourceOptions {
  /** The run directory; the stores go to `<runDir>/memory.sqlite`. */
  runDir: string;
}

type BatchResult =
  | { batch: Batch; ok: true; items: ExtractedItem[]; vectors: Float32Array[]; reply: ReplyFigures }
  | { batch: Batch; ok: false; error: string; reply: ReplyFigures | null }
  /** Batch mode (--batch): the request went into a provider batch job; the episode waits for it. */
  | { batch: Batch; ok: false; deferred: Error };

interface ReplyFigures {
  request_key: string;
  cached: boolean;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
  /** Reply elements that failed the item check (dropped). */
  items_invalid?: number;
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
  const extractor = new ChatModel(session, 'extract', entry, a.endpoint);
  const limits = extractionLimits(entry, mcfg);
  const notes: string[] = [];
  const embedder = memoryEmbedder(cfg, session, notes);
  const dbPath = join(opts.runDir, MEMORY_DB_FILE);
  // A damaged store (a resume on it) stops the run here, with the remedy, before anything is written.
  if (existsSync(dbPath)) new MemoryStore(dbPath, { readonly: true }).close();
  let store: MemoryStore | null = null;
  const openStore = (): MemoryStore => {
    if (!store) {
      store = new MemoryStore(dbPath);
      const built = store.getMeta('embedder');
      if (built === null) store.setMeta('embedder', embedder.name);
      else if (built !== embedder.name) {
        throw new InputError(
          `this memory store was built with embedder '${built}', this run embeds with '${embedder.name}' (keys or endpoints changed?); use another --out`,
          { file: dbPath },
        );
      }
    }
    return store;
  };
  const stats: ProcessFigures = noFigures();
  const building = new Map<string, Promise<Record<string, number>>>();

  /** One batch's extraction request and its items' vectors; failures are returned, not thrown. */
  const extract = async (ep: IngestedEpisode, batch: Batch, mine: ProcessFigures): Promise<BatchResult> => {
    const messages = extractionMessages(ep.episode.turns, batch);
    // Structured outputs where the model honours them (the reply cannot leave the schema); a checked plain-JSON reply otherwise.
    const request = {
      messages,
      temperature: 0,
      maxTokens: mcfg.maxTokens,
      jsonMode: false,
      ...(entry.structuredOutputs ? { jsonSchema: EXTRACTION_JSON_SCHEMA } : {}),
    };
    const request_key = extractor.keyOf(request, 0);
    let reply: ReplyFigures | null = null;
    try {
      // Noted before it is sent: a purge finds the cached reply even if the batch is never logged (a kill, a failed batch).
      openStore().noteRequest(ep.episode.id, request_key);
      // Only a parsable reply is cached: a malformed one is asked again by --retry-errors (its cost is logged all the same).
      const r = await extractor.complete(request, 0, isParsableExtraction);
      const cost = costOf(
        { prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens, search_units: 0 },
        extractor.pricesOf(r),
      );
      reply = { request_key, cached: r.cached, prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens, cost_usd: cost };
      // Paid for now, whether or not the batch is applied later (a failed earlier batch, a kill): the ledger keeps it.
      if (!r.cached)
        openStore().recordSpend({
          owner_id: ep.episode.id,
          scope: ep.visibleTurns,
          batch_key: batch.key,
          request_key,
          prompt_tokens: r.prompt_tokens,
          completion_tokens: r.completion_tokens,
          cost_usd: cost,
        });
      countReply(stats, r, cost);
      countReply(mine, r, cost);
      const { items, invalid } = readExtraction(r.text);
      reply.items_invalid = invalid;
      const kept = keptItems(items, mcfg);
      const vectors = kept.length
        ? await embedder.embed(
            kept.map((k) => k.item.content),
            'document',
          )
        : [];
      return { batch, ok: true, items, vectors, reply };
    } catch (e) {
      if (isDeferred(e)) return { batch, ok: false, deferred: e };
      return {
        batch,
        ok: false,
        error: (e as Error).message,
        reply: reply ?? { request_key, cached: false, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 },
      };
    }
  };

  /** Extracts the batches of (episode, horizon) not yet stored, applying them in history order. */
  const build = async (ep: IngestedEpisode, aligner: EntityAligner): Promise<Record<string, number>> => {
    const t0 = performance.now();
    const s = openStore();
    const owner = ep.episode.id;
    const scope = ep.visibleTurns;
    // This episode's own calls (episodes are built concurrently: the process totals would mix them).
    const mine = noFigures();
    const todo = batchesOf(ep.episode.turns, ep.visibleTurns, mcfg.batch, limits).filter(
      (b) => s.extraction(owner, scope, b.key)?.status !== 'ok',
    );
    // Requests go out together (the session bounds concurrency); items are applied strictly in order,
    // since de-duplication and superseding depend on what earlier batches stored.
    const results = todo.map((b) => extract(ep, b, mine));
    const active = activeMemories(s, owner, scope);
    let failed: { batch: Batch; error: string } | null = null;
    let failures = 0;
    let deferred: Error | null = null;
    for (const p of results) {
      const r = await p;
      if ('deferred' in r) {
        // Later batches wait for this one's reply from the batch job (applied in order next time).
        deferred ??= r.deferred;
        continue;
      }
      if (deferred) continue;
      const log = {
        owner_id: owner,
        scope,
        batch_index: r.batch.index,
        batch_key: r.batch.key,
        first_turn: ep.episode.turns[r.batch.first]!.id,
        last_turn: ep.episode.turns[r.batch.last]!.id,
        model: entry.name,
        ...(('reply' in r && r.reply) || { request_key: '', cached: false, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }),
      };
      if (!r.ok || failed) {
        // After a failed batch, later ones wait (their replies are cached): applying them first would reverse versions.
        if (!r.ok) {
          failures++;
          failed ??= { batch: r.batch, error: r.error };
          s.recordExtraction({
            ...log,
            status: 'error',
            error: r.error,
            items_returned: 0,
            items_stored: 0,
            items_merged: 0,
            items_superseding: 0,
            items_dropped: 0,
          });
          recordFailedBatch(s.db, owner, scope, r.batch.key, r.error);
        }
        continue;
      }
      applyBatch(s, { owner, scope, turns: ep.episode.turns, aligner, cfg: mcfg }, r.batch, r.items, r.vectors, log, active);
    }
    // Deferred requests: the pipeline defers the episode's questions until the batch job returns.
    if (deferred) throw deferred;
    if (failed) {
      throw new Error(
        `agentic memory: extraction failed for ${failures} of ${todo.length} batches of ${owner} (first: turns ${ep.episode.turns[failed.batch.first]!.id}..${ep.episode.turns[failed.batch.last]!.id}: ${failed.error}); stored batches are kept, --retry-errors extracts the rest`,
      );
    }
    return {
      ms: Math.round(performance.now() - t0),
      extraction_batches: todo.length,
      extraction_requests: mine.requests,
      extraction_cache_hits: mine.cache_hits,
      extraction_prompt_tokens: mine.prompt_tokens,
      extraction_completion_tokens: mine.completion_tokens,
    };
  };

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
    async open(ep: IngestedEpisode): Promise<EpisodeEvidence> {
      const speakers = speakersOf(ep);
      const aligner = new EntityAligner(speakers);
      const key = `${ep.episode.id}\u0000${ep.visibleTurns}`;
      let p = building.get(key);
      if (!p) {
        p = build(ep, aligner);
        building.set(key, p);
        p.catch(() => building.delete(key));
      }
      const ingest = await p;
      const memories = openStore().memories(ep.episode.id, ep.visibleTurns);
      return new MemoryEvidence(ep, memories, embedder, aligner, speakers, mcfg, ingest);
    },
    report() {
      // A resumed run that opened no episode still reports the store it holds.
      const totals = store ? store.totals() : existsSync(dbPath) ? readTotals(dbPath) : null;
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
      return {
        memory: {
          store: dbPath,
          extractor: entry.name,
          embedder: embedder.name,
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
          this_run: { ...stats },
          items: totals
            ? {
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
              }
            : null,
          warnings,
          recall: { weights: mcfg.weights, items: mcfg.items, tokens: mcfg.tokens, include_superseded: mcfg.includeSuperseded },
          forgetting: mcfg.forgetting,
        },
      };
    },
    async close() {
      store?.close();
    },
  };
}

function readTotals(path: string): ReturnType<MemoryStore['totals']> {
  const s = new MemoryStore(path, { readonly: true });
  try {
    return s.totals();
  } finally {
    s.close();
  }
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
