/**
 * The validation layer between the extractor and the memory index, applied to one batch inside
 * one transaction (with the batch's events and its extraction-log row):
 * - low confidence: dropped (below memory.minConfidence);
 * - entity alignment: names mapped onto one form (entities.ts);
 * - de-duplication: same entities AND cosine >= memory.dedupThreshold -> merged into the older item;
 * - conflict: a new value of the same single-valued fact (same `attribute`, an entity shared), or
 *   an item the extractor flags as an update (the most similar active item sharing an entity, at
 *   cosine >= memory.conflictThreshold) -> the new item is active, the old one superseded with
 *   superseded_by pointing at it.
 */
import type { MemoryConfig } from './config.js';
import type { Turn } from '../../core/schema.js';
import { parseDay } from '../../retrieval/local/dates.js';
import type { EntityAligner } from './entities.js';
import { forgetExpiredAndEvict, forgettingFields, writeWindow } from './forget.js';
import type { Batch, ExtractedItem } from './extract.js';
import type { ExtractionRow, MemoryRow, MemoryStore } from './store.js';
import { cosine } from './vectors.js';

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
  log: Omit<ExtractionRow, 'items_returned' | 'items_stored' | 'items_merged' | 'items_superseding' | 'items_dropped' | 'status' | 'error'>,
  active: MemoryRow[] = activeMemories(store, ctx.owner, ctx.scope),
): BatchOutcome {
  const { owner, scope, turns, aligner, cfg } = ctx;
  const batchTurns = turns.slice(batch.first, batch.last + 1);
  const position = new Map(batchTurns.map((t, j) => [t.id, batch.first + j]));
  const kept = keptItems(items, cfg);
  const out: BatchOutcome = { stored: 0, merged: 0, superseding: 0, dropped: items.length - kept.length, capped: 0, forgotten: 0 };
  const fcfg = cfg.forgetting;
  store.transaction(() => {
    batchTurns.forEach((t, j) =>
      store.appendEvent({
        event_id: eventId(owner, t.id),
        owner_id: owner,
        seq: batch.first + j,
        timestamp: t.date,
        participants: [t.speaker],
        event_type: 'message',
        content: t.text + t.captions.map((c) => ` [shared an image: ${c}]`).join(''),
        turn_ids: [t.id],
      }),
    );
    let seq = store.nextSeq(owner, scope);
    kept.forEach(({ item, i }, j) => {
      const vector = vectors[j]!;
      const entities = aligner.alignAll(item.entities);
      // Cited turns outside the segment are the extractor's mistake: the item is traced to the segment instead.
      let sources = [...new Set(item.source_turns.filter((id) => position.has(id)))].sort((a, b) => position.get(a)! - position.get(b)!);
      if (sources.length === 0) sources = batchTurns.map((t) => t.id);
      const dup = active.find((m) => sameSet(m.entities, entities) && cosine(m.embedding, vector) >= cfg.dedupThreshold);
      if (dup) {
        dup.source_turns = [...new Set([...dup.source_turns, ...sources])];
        store.mergeInto(dup.memory_id, dup.source_turns, item.importance, item.confidence);
        out.merged++;
        return;
      }
      const attribute = item.attribute ? item.attribute.trim().toLowerCase() : null;
      let replaced = attribute ? active.filter((m) => m.attribute === attribute && shareEntity(m.entities, entities)) : [];
      if (replaced.length === 0 && item.updates) {
        const best = active
          .filter((m) => shareEntity(m.entities, entities))
          .map((m) => ({ m, cos: cosine(m.embedding, vector) }))
          .filter((x) => x.cos >= cfg.conflictThreshold)
          .sort((a, b) => b.cos - a.cos || a.m.seq - b.m.seq)[0];
        if (best) replaced = [best.m];
      }
      const lastSource = turns[position.get(sources[sources.length - 1]!)!]!;
      const createdDay = parseDay(lastSource.date);
      const window = fcfg.enabled ? writeWindow(createdDay, fcfg) : null;
      // Over the write cap: recorded (forgotten, reason write-cap), neither recalled nor superseding anything.
      const capped = window !== null && store.writtenIn(owner, scope, window.from, window.to) >= fcfg.writeCap;
      const row: MemoryRow = {
        memory_id: memoryId(owner, scope, batch, i),
        owner_id: owner,
        scope,
        seq: seq++,
        memory_type: item.memory_type,
        content: item.content.trim(),
        embedding: vector,
        entities,
        attribute,
        importance: item.importance,
        confidence: item.confidence,
        source_event_id: eventId(owner, sources[0]!),
        source_turns: sources,
        batch_key: batch.key,
        status: 'active',
        superseded_by: null,
        merged_count: 0,
        created_at: lastSource.date,
        created_day: createdDay,
        // A replayed history has no accesses: last access = creation (the design note's mapping).
        last_access_at: lastSource.date,
        last_access_day: createdDay,
        access_count: 0,
        ...forgettingFields({ memory_type: item.memory_type, attribute }, fcfg),
        forgotten_reason: null,
        forgotten_note: null,
        forgotten_at: null,
      };
      if (capped) {
        row.status = 'forgotten';
        row.forgotten_reason = 'write-cap';
        row.forgotten_note = `write cap ${fcfg.writeCap} items per ${fcfg.writeWindowDays} day(s) reached`;
        row.forgotten_at = lastSource.date;
        store.insertMemory(row);
        out.capped++;
        return;
      }
      store.insertMemory(row);
      out.stored++;
      for (const old of replaced) {
        store.supersede(old.memory_id, row.memory_id);
        active.splice(active.indexOf(old), 1);
      }
      if (replaced.length > 0) out.superseding++;
      active.push(row);
    });
    // "Now" at ingest = the batch's last turn: items whose importance decayed away by then are forgotten, then capacity is enforced.
    const lastTurn = turns[batch.last];
    out.forgotten = forgetExpiredAndEvict(
      store,
      active,
      { day: parseDay(lastTurn?.date ?? null), at: lastTurn?.date ?? null },
      fcfg,
    ).length;
    store.recordExtraction({
      ...log,
      status: 'ok',
      error: null,
      items_returned: items.length,
      items_stored: out.stored,
      items_merged: out.merged,
      items_superseding: out.superseding,
      items_dropped: out.dropped,
    });
  });
  return out;
}

export function activeMemories(store: MemoryStore, owner: string, scope: number): MemoryRow[] {
  return store.memories(owner, scope).filter((m) => m.status === 'active');
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function shareEntity(a: readonly string[], b: readonly string[]): boolean {
  return a.some((x) => b.includes(x));
}
