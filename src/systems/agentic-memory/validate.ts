/**
 * The validation layer between the extractor and the memory index, applied to one batch inside
 * one transaction (with the batch's events and its extraction-log row):
 * - low confidence: dropped (below memory.minConfidence);
 * - mis-citation: cited turns outside the segment removed (counted); an item citing none of it dropped (counted);
 * - entity alignment: names mapped onto one form (entities.ts);
 * - conflict first: a new value of the same single-valued fact (same `attribute`, an entity
 *   shared, not the same sentence), or an item the extractor flags as an update (the most similar
 *   active item sharing an entity, at cosine >= memory.conflictThreshold) -> the new item is
 *   active, the old one superseded with superseded_by pointing at it (never merged into it);
 * - then de-duplication: same entities AND cosine >= memory.dedupThreshold (or the same sentence
 *   under the same key) -> merged into the older item, whose last access moves to the restatement.
 */
import type { MemoryConfig } from './config.js';
import type { Turn } from '../../core/schema.js';
import { parseDay } from '../../retrieval/local/dates.js';
import type { EntityAligner } from './entities.js';
import { forgetExpiredAndEvict, forgettingFields, writeWindow } from './forget.js';
import type { ExtractedItem } from './extract.js';
import type { Batch } from '../../ingest-llm/batches.js';
import type { ExtractionRow, MemoryRow, MemoryStore } from './store.js';
import { cosine } from './vectors.js';
import { DecisionRecorder } from './decisions.js';

export interface BatchContext {
  owner: string;
  scope: number;
  turns: readonly Turn[];
  aligner: EntityAligner;
  cfg: MemoryConfig;
}

export interface BatchOutcome {
  stored: number;
  merged: number;
  superseding: number;
  dropped: number;
  /** Refused by the write cap (stored as forgotten, reason write-cap). */
  capped: number;
  /** Active items forgotten after this batch (decayed below the floor, or evicted over capacity). */
  forgotten: number;
  /** Items citing no turn of their segment (dropped), and cited turns outside it (removed from the items that kept others). */
  miscited: number;
  citationsDropped: number;
}

export function eventId(owner: string, turnId: string): string {
  return `${owner}/${turnId}`;
}

export function memoryId(owner: string, scope: number, batch: Batch, i: number): string {
  return `${owner}@${scope}/${batch.key}/${i}`;
}

/** Items below the confidence floor (not embedded, not stored). */
export function keptItems(items: ExtractedItem[], cfg: MemoryConfig): Array<{ item: ExtractedItem; i: number }> {
  return items.map((item, i) => ({ item, i })).filter(({ item }) => item.confidence >= cfg.minConfidence);
}

/** The extraction-log row of a batch, less what applying it counts. */
export type BatchLog = Omit<
  ExtractionRow,
  | 'items_returned'
  | 'items_stored'
  | 'items_merged'
  | 'items_superseding'
  | 'items_dropped'
  | 'items_miscited'
  | 'citations_dropped'
  | 'status'
  | 'error'
>;

/**
 * Writes the batch: its turns to the event log, its kept items through de-duplication and
 * conflict detection to the index, and the extraction row — all or nothing.
 * `vectors[j]` is the embedding of `keptItems(items)[j]`. `active` (the scope's active items, as
 * activeMemories returns them) is kept current across batches, so the store is not re-read.
 */
export function applyBatch(
  store: MemoryStore,
  ctx: BatchContext,
  batch: Batch,
  items: ExtractedItem[],
  vectors: Float32Array[],
  log: BatchLog,
  active: MemoryRow[] = activeMemories(store, ctx.owner, ctx.scope),
): BatchOutcome {
  const kept = keptItems(items, ctx.cfg);
  const writer = new BatchWriter(store, ctx, batch, active, items.length - kept.length);
  const keptIndex = new Set(kept.map((k) => k.i));
  items.forEach((item, i) => {
    if (!keptIndex.has(i))
      writer.decisions.add({ operation: 'NONE', memory_id: null, old_text: null, new_text: item.content, reason: 'low-confidence' });
  });
  store.transaction(() => {
    writer.appendEvents();
    kept.forEach(({ item, i }, j) => writer.write(item, i, vectors[j]!));
    writer.finish(log, items.length);
  });
  return writer.out;
}

/** One cited, kept item on its way into the index. */
interface Candidate {
  item: ExtractedItem;
  i: number;
  vector: Float32Array;
  entities: string[];
  attribute: string | null;
  /** Its cited turns inside the segment, in history order. */
  sources: string[];
  lastSource: Turn;
  createdDay: number | null;
}

/** Applies one batch's items in order inside the caller's transaction, counting what each became. */
class BatchWriter {
  readonly decisions: DecisionRecorder;
  readonly out: BatchOutcome;
  private readonly position: Map<string, number>;
  private seq: number;

  constructor(
    private readonly store: MemoryStore,
    private readonly ctx: BatchContext,
    private readonly batch: Batch,
    private readonly active: MemoryRow[],
    dropped: number,
  ) {
    const batchTurns = ctx.turns.slice(batch.first, batch.last + 1);
    this.position = new Map(batchTurns.map((t, j) => [t.id, batch.first + j]));
    this.decisions = new DecisionRecorder(ctx.owner, ctx.scope, batch.key);
    this.out = { stored: 0, merged: 0, superseding: 0, dropped, capped: 0, forgotten: 0, miscited: 0, citationsDropped: 0 };
    this.seq = 0;
  }

  appendEvents(): void {
    const { owner, turns } = this.ctx;
    turns.slice(this.batch.first, this.batch.last + 1).forEach((t, j) =>
      this.store.appendEvent({
        event_id: eventId(owner, t.id),
        owner_id: owner,
        seq: this.batch.first + j,
        timestamp: t.date,
        participants: [t.speaker],
        event_type: 'message',
        content: t.text + t.captions.map((c) => ` [shared an image: ${c}]`).join(''),
        turn_ids: [t.id],
      }),
    );
    this.seq = this.store.nextSeq(owner, this.ctx.scope);
  }

  write(item: ExtractedItem, i: number, vector: Float32Array): void {
    const c = this.cited(item, i, vector);
    if (!c) return;
    // Conflict detection before de-duplication: a new value of a fact is a new version even when
    // it reads like the old one ("lives in Paris" / "lives in Berlin" at cosine 0.91).
    let replaced = c.attribute ? this.active.filter((m) => m.attribute === c.attribute && shareEntity(m.entities, c.entities)) : [];
    // The same value restated under the same key is a duplicate, not a change.
    const restated = replaced.find((m) => sameStatement(m.content, item.content));
    if (restated) replaced = [];
    if (replaced.length === 0 && item.updates && !restated) replaced = this.updated(c);
    const dup =
      replaced.length > 0
        ? undefined
        : (restated ??
          this.active.find((m) => sameSet(m.entities, c.entities) && cosine(m.embedding, vector) >= this.ctx.cfg.dedupThreshold));
    if (dup) this.merge(c, dup, dup === restated);
    else this.storeNew(c, replaced);
  }

  /** The item with its citations checked, or null (dropped and counted) when it cites nothing of its segment. */
  private cited(item: ExtractedItem, i: number, vector: Float32Array): Candidate | null {
    // Cited turns outside the segment (or that do not exist) are the extractor's mistake: dropped and counted;
    // an item left citing nothing of its segment is dropped (never credited to turns it did not come from).
    const cited = [...new Set(item.source_turns)];
    const position = this.position;
    const sources = cited.filter((id) => position.has(id)).sort((a, b) => position.get(a)! - position.get(b)!);
    this.out.citationsDropped += cited.length - sources.length;
    if (sources.length === 0) {
      this.out.miscited++;
      this.decisions.add({ operation: 'NONE', memory_id: null, old_text: null, new_text: item.content, reason: 'miscited' });
      return null;
    }
    const lastSource = this.ctx.turns[position.get(sources[sources.length - 1]!)!]!;
    return {
      item,
      i,
      vector,
      entities: this.ctx.aligner.alignAll(item.entities),
      attribute: item.attribute ? item.attribute.trim().toLowerCase() : null,
      sources,
      lastSource,
      createdDay: parseDay(lastSource.date),
    };
  }

  /** An item the extractor flags as an update replaces the most similar active item sharing an entity, above the conflict threshold. */
  private updated(c: Candidate): MemoryRow[] {
    const best = this.active
      .filter((m) => shareEntity(m.entities, c.entities))
      .map((m) => ({ m, cos: cosine(m.embedding, c.vector) }))
      .filter((x) => x.cos >= this.ctx.cfg.conflictThreshold)
      .sort((a, b) => b.cos - a.cos || a.m.seq - b.m.seq)[0];
    return best ? [best.m] : [];
  }

  /** A duplicate (or a restatement) merged into the older item, whose last access moves to it. */
  private merge(c: Candidate, dup: MemoryRow, restated: boolean): void {
    const { item, createdDay, lastSource } = c;
    dup.source_turns = [...new Set([...dup.source_turns, ...c.sources])];
    // The restatement is an access: recency and decay count from it.
    const access = { at: lastSource.date, day: createdDay };
    this.store.mergeInto(dup.memory_id, dup.source_turns, item.importance, item.confidence, access);
    if (createdDay !== null && (dup.last_access_day === null || createdDay > dup.last_access_day)) {
      dup.last_access_day = createdDay;
      dup.last_access_at = lastSource.date;
    }
    dup.importance = Math.max(dup.importance, item.importance);
    // The extractor proposed an update that restates the stored text: a no-op UPDATE (the audit's class), merged like a duplicate.
    if (item.updates && restated)
      this.decisions.add({
        operation: 'UPDATE',
        memory_id: dup.memory_id,
        old_text: dup.content,
        new_text: item.content.trim(),
        applied: 'NONE',
        reason: 'no-op',
      });
    else
      this.decisions.add({
        operation: 'NONE',
        memory_id: dup.memory_id,
        old_text: dup.content,
        new_text: item.content,
        reason: 'duplicate',
      });
    this.out.merged++;
  }

  /** A new item: stored active (superseding what it replaces), or recorded forgotten over the write cap, or as an older version. */
  private storeNew(c: Candidate, replaced: MemoryRow[]): void {
    const { owner, scope, cfg } = this.ctx;
    const fcfg = cfg.forgetting;
    const id = memoryId(owner, scope, this.batch, c.i);
    const proposed = this.decisions.proposals(id, c.item, replaced, cfg.mutations !== false);
    // Add-only memory (-S mutations=false): the new version is stored beside the old, which stays active.
    if (cfg.mutations === false) replaced = [];
    const window = fcfg.enabled ? writeWindow(c.createdDay, fcfg) : null;
    // Over the write cap: recorded (forgotten, reason write-cap), neither recalled nor superseding anything.
    const capped = window !== null && this.store.writtenIn(owner, scope, window.from, window.to) >= fcfg.writeCap;
    const row = this.newRow(c, id);
    if (capped) {
      row.status = 'forgotten';
      row.forgotten_reason = 'write-cap';
      row.forgotten_note = `write cap ${fcfg.writeCap} items per ${fcfg.writeWindowDays} day(s) reached`;
      row.forgotten_at = c.lastSource.date;
      this.store.insertMemory(row);
      proposed.apply('NONE', 'write-cap');
      this.out.capped++;
      return;
    }
    // Versions follow the history, whatever order batches were applied in (a store rebuilt after a
    // partial purge or a lost batch): an item from earlier turns never supersedes a later one; it is
    // recorded as the older version instead.
    const later = replaced.find((old) => batchFirst(old.batch_key) > this.batch.first);
    if (later) {
      row.status = 'superseded';
      row.superseded_by = later.memory_id;
      this.store.insertMemory(row);
      proposed.apply('NONE', 'older-version');
      this.out.stored++;
      return;
    }
    this.store.insertMemory(row);
    proposed.apply();
    this.out.stored++;
    for (const old of replaced) {
      this.store.supersede(old.memory_id, row.memory_id);
      this.active.splice(this.active.indexOf(old), 1);
    }
    if (replaced.length > 0) this.out.superseding++;
    this.active.push(row);
  }

  private newRow(c: Candidate, id: string): MemoryRow {
    const { owner, scope, cfg } = this.ctx;
    const { item, lastSource, createdDay, attribute } = c;
    return {
      memory_id: id,
      owner_id: owner,
      scope,
      seq: this.seq++,
      memory_type: item.memory_type,
      content: item.content.trim(),
      embedding: c.vector,
      entities: c.entities,
      attribute,
      importance: item.importance,
      confidence: item.confidence,
      source_event_id: eventId(owner, c.sources[0]!),
      source_turns: c.sources,
      batch_key: this.batch.key,
      status: 'active',
      superseded_by: null,
      merged_count: 0,
      created_at: lastSource.date,
      created_day: createdDay,
      // A replayed history has no accesses: last access = creation (the design note's mapping).
      last_access_at: lastSource.date,
      last_access_day: createdDay,
      access_count: 0,
      ...forgettingFields({ memory_type: item.memory_type, attribute }, cfg.forgetting),
      forgotten_reason: null,
      forgotten_note: null,
      forgotten_at: null,
    };
  }

  /** Forgetting at the batch's last turn, the decisions and the extraction row. */
  finish(log: BatchLog, returned: number): void {
    const { turns } = this.ctx;
    const out = this.out;
    // "Now" at ingest = the batch's last turn: items whose importance decayed away by then are forgotten, then capacity is enforced.
    const lastTurn = turns[this.batch.last];
    const now = { day: parseDay(lastTurn?.date ?? null), at: lastTurn?.date ?? null };
    out.forgotten = forgetExpiredAndEvict(this.store, this.active, now, this.ctx.cfg.forgetting).length;
    this.decisions.flush(this.store.db);
    this.store.recordExtraction({
      ...log,
      status: 'ok',
      error: null,
      items_returned: returned,
      items_stored: out.stored,
      items_merged: out.merged,
      items_superseding: out.superseding,
      items_dropped: out.dropped,
      items_miscited: out.miscited,
      citations_dropped: out.citationsDropped,
    });
  }
}

export function activeMemories(store: MemoryStore, owner: string, scope: number): MemoryRow[] {
  return store.memories(owner, scope).filter((m) => m.status === 'active');
}

/** `t12-13` -> 12: where in the history a batch starts. */
function batchFirst(key: string): number {
  return Number(/^t(\d+)-/.exec(key)?.[1] ?? -1);
}

/** The same sentence up to case, punctuation and spacing. */
function sameStatement(a: string, b: string): boolean {
  const norm = (x: string) =>
    x
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  return norm(a) === norm(b);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function shareEntity(a: readonly string[], b: readonly string[]): boolean {
  return a.some((x) => b.includes(x));
}
