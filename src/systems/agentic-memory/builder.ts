/**
 * Building the agentic memory of one (episode, horizon): the batches not yet stored are extracted
 * together (the session bounds concurrency) and applied strictly in history order, since
 * de-duplication and superseding depend on what earlier batches stored. A failed batch stops the
 * later ones from being applied (their replies are cached), so versions are never reversed.
 */
import { existsSync } from 'node:fs';
import type { ChatModel } from '../../providers/chat.js';
import type { ModelEntry } from '../../providers/models.js';
import { costOf } from '../../providers/usage.js';
import { countReply, noFigures, type ProcessFigures } from '../../ingest-llm/llm-step.js';
import type { IngestedEpisode } from '../../core/ingested-episode.js';
import type { Embedder } from '../../core/retriever.js';
import { InputError } from '../../util/errors.js';
import { isDeferred } from '../../providers/batch/defer.js';
import { isLocalFsFailure } from '../../util/fsx.js';
import { batchesOf, type Batch } from '../../ingest-llm/batches.js';
import type { memoryConfig } from './config.js';
import type { EntityAligner } from './entities.js';
import {
  EXTRACTION_JSON_SCHEMA,
  extractionMessages,
  isParsableExtraction,
  readExtraction,
  type extractionLimits,
  type ExtractedItem,
} from './extract.js';
import { MemoryStore } from './store.js';
import { activeMemories, applyBatch, keptItems } from './validate.js';
import { recordFailedBatch } from './decisions.js';

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

const NO_REPLY = { request_key: '', cached: false, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };

/** The run's memory store, opened on first use and bound to the embedder that built it. */
export class LazyStore {
  private store: MemoryStore | null = null;

  constructor(
    readonly path: string,
    private readonly embedderName: string,
  ) {
    // A damaged store (a resume on it) stops the run here, with the remedy, before anything is written.
    if (existsSync(path)) new MemoryStore(path, { readonly: true }).close();
  }

  get(): MemoryStore {
    if (!this.store) {
      this.store = new MemoryStore(this.path);
      const built = this.store.getMeta('embedder');
      if (built === null) this.store.setMeta('embedder', this.embedderName);
      else if (built !== this.embedderName) {
        throw new InputError(
          `this memory store was built with embedder '${built}', this run embeds with '${this.embedderName}' (keys or endpoints changed?); use another --out`,
          { file: this.path },
        );
      }
    }
    return this.store;
  }

  /** The store's totals; a resumed run that opened no episode still reports the store it holds. */
  totals(): ReturnType<MemoryStore['totals']> | null {
    if (this.store) return this.store.totals();
    if (!existsSync(this.path)) return null;
    const s = new MemoryStore(this.path, { readonly: true });
    try {
      return s.totals();
    } finally {
      s.close();
    }
  }

  close(): void {
    this.store?.close();
  }
}

/** What applying an episode's batches in order came to. */
interface Applied {
  failed: { batch: Batch; error: string } | null;
  failures: number;
  deferred: Error | null;
}

export class MemoryBuilder {
  /** What this process sent (cache hits cost nothing). */
  readonly stats: ProcessFigures = noFigures();
  private readonly building = new Map<string, Promise<Record<string, number>>>();

  constructor(
    private readonly entry: ModelEntry,
    private readonly extractor: ChatModel,
    readonly limits: ReturnType<typeof extractionLimits>,
    private readonly mcfg: ReturnType<typeof memoryConfig>,
    private readonly embedder: Embedder,
    private readonly store: LazyStore,
  ) {}

  /**
   * The episode's memory built once per (episode, horizon), however many questions ask for it at once;
   * `progress` hears batches extracted of the episode's batches (stored ones included) as replies arrive.
   */
  built(ep: IngestedEpisode, aligner: EntityAligner, progress?: (done: number, total: number) => void): Promise<Record<string, number>> {
    const key = `${ep.episode.id}\u0000${ep.visibleTurns}`;
    let p = this.building.get(key);
    if (!p) {
      p = this.build(ep, aligner, progress);
      this.building.set(key, p);
      p.catch(() => this.building.delete(key));
    }
    return p;
  }

  /** Extracts the batches of (episode, horizon) not yet stored, applying them in history order. */
  private async build(
    ep: IngestedEpisode,
    aligner: EntityAligner,
    progress?: (done: number, total: number) => void,
  ): Promise<Record<string, number>> {
    const t0 = performance.now();
    const s = this.store.get();
    const owner = ep.episode.id;
    const scope = ep.visibleTurns;
    // This episode's own calls (episodes are built concurrently: the process totals would mix them).
    const mine = noFigures();
    const batches = batchesOf(ep.episode.turns, ep.visibleTurns, this.mcfg.batch, this.limits);
    const todo = batches.filter((b) => s.extraction(owner, scope, b.key)?.status !== 'ok');
    let replied = batches.length - todo.length;
    progress?.(replied, batches.length);
    const results = todo.map((b) => this.extract(ep, b, mine).finally(() => progress?.(++replied, batches.length)));
    // A full disk throws from one batch; applyInOrder stops at the first, the others end handled (their replies are in the response cache).
    for (const p of results) p.catch(() => {});
    const { failed, failures, deferred } = await this.applyInOrder(ep, aligner, results);
    // Deferred requests: the pipeline defers the episode's questions until the batch job returns.
    if (deferred) throw deferred;
    if (failed) {
      const turns = ep.episode.turns;
      throw new Error(
        `agentic memory: extraction failed for ${failures} of ${todo.length} batches of ${owner} (first: turns ${turns[failed.batch.first]!.id}..${turns[failed.batch.last]!.id}: ${failed.error}); stored batches are kept, --retry-errors extracts the rest`,
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
  }

  /** Applies the replies as they come, in batch order; after a failed (or deferred) batch, later ones wait. */
  private async applyInOrder(ep: IngestedEpisode, aligner: EntityAligner, results: Promise<BatchResult>[]): Promise<Applied> {
    const s = this.store.get();
    const owner = ep.episode.id;
    const scope = ep.visibleTurns;
    const active = activeMemories(s, owner, scope);
    const out: Applied = { failed: null, failures: 0, deferred: null };
    for (const p of results) {
      const r = await p;
      if ('deferred' in r) {
        // Later batches wait for this one's reply from the batch job (applied in order next time).
        out.deferred ??= r.deferred;
        continue;
      }
      if (out.deferred) continue;
      const log = {
        owner_id: owner,
        scope,
        batch_index: r.batch.index,
        batch_key: r.batch.key,
        first_turn: ep.episode.turns[r.batch.first]!.id,
        last_turn: ep.episode.turns[r.batch.last]!.id,
        model: this.entry.name,
        ...(('reply' in r && r.reply) || NO_REPLY),
      };
      if (r.ok && !out.failed) {
        applyBatch(s, { owner, scope, turns: ep.episode.turns, aligner, cfg: this.mcfg }, r.batch, r.items, r.vectors, log, active);
        continue;
      }
      // After a failed batch, later ones wait (their replies are cached): applying them first would reverse versions.
      if (!r.ok) {
        out.failures++;
        out.failed ??= { batch: r.batch, error: r.error };
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
    }
    return out;
  }

  /** One batch's extraction request and its items' vectors; failures are returned, not thrown. */
  private async extract(ep: IngestedEpisode, batch: Batch, mine: ProcessFigures): Promise<BatchResult> {
    const messages = extractionMessages(ep.episode.turns, batch);
    // Structured outputs where the model honours them (the reply cannot leave the schema); a checked plain-JSON reply otherwise.
    const request = {
      messages,
      temperature: 0,
      maxTokens: this.mcfg.maxTokens,
      jsonMode: false,
      ...(this.entry.structuredOutputs ? { jsonSchema: EXTRACTION_JSON_SCHEMA } : {}),
    };
    const request_key = this.extractor.keyOf(request, 0);
    let reply: ReplyFigures | null = null;
    try {
      // Noted before it is sent: a purge finds the cached reply even if the batch is never logged (a kill, a failed batch).
      this.store.get().noteRequest(ep.episode.id, request_key);
      // Only a parsable reply is cached: a malformed one is asked again by --retry-errors (its cost is logged all the same).
      const r = await this.extractor.complete(request, 0, isParsableExtraction);
      const usage = { prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens, search_units: 0 };
      const cost = costOf(usage, this.extractor.pricesOf(r));
      reply = { request_key, cached: r.cached, prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens, cost_usd: cost };
      // Paid for now, whether or not the batch is applied later (a failed earlier batch, a kill): the ledger keeps it.
      if (!r.cached) {
        const spend = { owner_id: ep.episode.id, scope: ep.visibleTurns, batch_key: batch.key, request_key, cost_usd: cost };
        this.store.get().recordSpend({ ...spend, prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens });
      }
      countReply(this.stats, r, cost);
      countReply(mine, r, cost);
      const { items, invalid } = readExtraction(r.text);
      reply.items_invalid = invalid;
      const kept = keptItems(items, this.mcfg);
      const vectors = kept.length
        ? await this.embedder.embed(
            kept.map((k) => k.item.content),
            'document',
          )
        : [];
      return { batch, ok: true, items, vectors, reply };
    } catch (e) {
      if (isDeferred(e)) return { batch, ok: false, deferred: e };
      // A full disk under memory.sqlite stops the run naming it (exit 2), never one batch's error.
      if (isLocalFsFailure(e)) throw e;
      return { batch, ok: false, error: (e as Error).message, reply: reply ?? { ...NO_REPLY, request_key } };
    }
  }
}
