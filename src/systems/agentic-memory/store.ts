/**
 * The agentic memory system's stores, in one SQLite database per run (`<run dir>/memory.sqlite`):
 * - `events`: the event log, append-only (one event per conversation turn; never updated);
 * - `memories`: the memory index (the handbook's fields, a version chain through superseded_by);
 * - `extractions`: one row per extraction batch (ok / error), so a resumed run re-extracts
 *   nothing already stored and knows which batches failed.
 * Every batch is written in one transaction: a killed run loses at most the batch in flight.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { openDatabase, type Database } from '../../util/lazy-packages.js';
import { InputError } from '../../util/errors.js';
import { isCorruption } from '../../util/sqlite.js';
import { cacheDiskFailure } from '../../providers/cache.js';

import {
  ADDED_EXTRACTION_COLUMNS,
  ADDED_MEMORY_COLUMNS,
  addColumns,
  compactVerified,
  damagedStoreError,
  encodeVector,
  firstLine,
  memoryFromRaw,
  QUICK_CHECK_MAX_BYTES,
  REQUIRED_COLUMNS,
  SCHEMA,
  type EventRow,
  type ExtractionRow,
  type MemoryRow,
  type RawMemory,
  type StoreTotals,
} from './store-schema.js';

export {
  compactVerified,
  damagedStoreError,
  decodeVector,
  encodeVector,
  MEMORY_DB_FILE,
  PurgeIncompleteError,
  type EventRow,
  type ExtractionRow,
  type MemoryRow,
  type MemoryStatus,
  type StoreTotals,
} from './store-schema.js';

export class MemoryStore {
  readonly db: Database;

  /** `create` false: the file must exist (commands that read a run's store). */
  constructor(
    readonly path: string,
    opts: { create?: boolean; readonly?: boolean } = {},
  ) {
    if (!existsSync(path)) {
      if (opts.create === false || opts.readonly)
        throw new InputError('no agentic memory store here (run with --system agentic-memory first)', { file: path });
      mkdirSync(dirname(path), { recursive: true });
    }
    try {
      this.db = openDatabase(path, { readonly: Boolean(opts.readonly), fileMustExist: opts.create === false || Boolean(opts.readonly) });
    } catch (e) {
      throw isCorruption(e) ? damagedStoreError(path, firstLine(e)) : e;
    }
    try {
      if (!opts.readonly) {
        this.db.pragma('journal_mode = WAL');
        this.db.pragma('synchronous = FULL');
        this.db.pragma('busy_timeout = 5000');
      }
      // Checked before anything is written: a truncated file, a bad header, random bytes or another database's tables.
      this.check();
      if (!opts.readonly) {
        this.db.exec(SCHEMA);
        addColumns(this.db, 'memories', ADDED_MEMORY_COLUMNS);
        addColumns(this.db, 'extractions', ADDED_EXTRACTION_COLUMNS);
      }
    } catch (e) {
      this.db.close();
      if (e instanceof InputError) throw e;
      throw isCorruption(e) ? damagedStoreError(path, firstLine(e)) : (cacheDiskFailure(e, path) ?? e);
    }
  }

  /**
   * A write: SQLite's full disk (SQLITE_FULL, an I/O error) becomes the ENOSPC error naming this
   * file, which stops the run with exit 2 (as the response cache's does); a paid extraction reply
   * is in the response cache already, so the rerun pays for none again.
   */
  private write<R>(fn: () => R): R {
    try {
      return fn();
    } catch (e) {
      throw cacheDiskFailure(e, this.path) ?? e;
    }
  }

  /** Throws the damaged-store error unless the file passes SQLite's quick check and has the store's tables (or none yet). */
  private check(): void {
    // A very large store skips the page-by-page check (it reads every page); its first failing statement still says what is wrong.
    const verdict =
      statSync(this.path).size > QUICK_CHECK_MAX_BYTES
        ? 'ok'
        : (this.db.pragma('quick_check') as Array<{ quick_check: string }>).map((r) => r.quick_check).join('; ');
    if (verdict !== 'ok') throw damagedStoreError(this.path, `quick_check: ${verdict.slice(0, 160)}`);
    const tables = (this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map(
      (r) => r.name,
    );
    // A new, empty file becomes a store; anything else must be one (an older one may lack a table, never all).
    if (tables.length === 0) return;
    const ours = Object.keys(REQUIRED_COLUMNS).filter((t) => tables.includes(t));
    if (ours.length === 0) throw damagedStoreError(this.path, `none of its tables (${tables.slice(0, 5).join(', ')}) is a memory store's`);
    for (const table of ours) {
      const cols = REQUIRED_COLUMNS[table]!;
      const have = new Set((this.db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name));
      const missing = cols.filter((c) => !have.has(c));
      if (missing.length) throw damagedStoreError(this.path, `table '${table}' has no column ${missing.join(', ')}`);
    }
  }

  getMeta(key: string): string | null {
    const r = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return r?.value ?? null;
  }

  setMeta(key: string, value: string): void {
    this.write(() => {
      this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value);
    });
  }

  /** Runs `fn` in one transaction (all or nothing). */
  transaction<T>(fn: () => T): T {
    return this.write(() => {
      return this.db.transaction(fn)();
    });
  }

  /** Appends an event; an event already logged is left as it was (the log is never rewritten). */
  appendEvent(e: EventRow): void {
    this.write(() => {
      this.db
        .prepare(
          'INSERT OR IGNORE INTO events (event_id, owner_id, seq, timestamp, participants, event_type, content, turn_ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          e.event_id,
          e.owner_id,
          e.seq,
          e.timestamp,
          JSON.stringify(e.participants),
          e.event_type,
          e.content,
          JSON.stringify(e.turn_ids),
        );
    });
  }

  insertMemory(m: MemoryRow): void {
    this.write(() => {
      this.db
        .prepare(
          `INSERT INTO memories (memory_id, owner_id, scope, seq, memory_type, content, embedding, entities, attribute, importance, confidence,
             source_event_id, source_turns, batch_key, status, superseded_by, merged_count, created_at, created_day, last_access_at, last_access_day, access_count,
             importance_ceiling, decay_rate, key_attribute, forgotten_reason, forgotten_note, forgotten_at)
           VALUES (@memory_id, @owner_id, @scope, @seq, @memory_type, @content, @embedding, @entities, @attribute, @importance, @confidence,
             @source_event_id, @source_turns, @batch_key, @status, @superseded_by, @merged_count, @created_at, @created_day, @last_access_at, @last_access_day, @access_count,
             @importance_ceiling, @decay_rate, @key_attribute, @forgotten_reason, @forgotten_note, @forgotten_at)`,
        )
        .run({
          ...m,
          embedding: encodeVector(m.embedding),
          entities: JSON.stringify(m.entities),
          source_turns: JSON.stringify(m.source_turns),
          key_attribute: m.key_attribute ? 1 : 0,
        });
    });
  }

  /** An active item leaves recall for good (the row stays, with why; `memory purge` deletes physically). */
  forget(memoryId: string, reason: NonNullable<MemoryRow['forgotten_reason']>, note: string, at: string | null): void {
    this.write(() => {
      this.db
        .prepare(
          "UPDATE memories SET status = 'forgotten', forgotten_reason = ?, forgotten_note = ?, forgotten_at = ? WHERE memory_id = ? AND status = 'active'",
        )
        .run(reason, note, at, memoryId);
    });
  }

  /** Items written (not refused by the write cap) for an owner and horizon with created_day in [from, to). */
  writtenIn(owner: string, scope: number, from: number, to: number): number {
    const r = this.db
      .prepare(
        "SELECT COUNT(*) AS n FROM memories WHERE owner_id = ? AND scope = ? AND created_day >= ? AND created_day < ? AND COALESCE(forgotten_reason, '') <> 'write-cap'",
      )
      .get(owner, scope, from, to) as { n: number };
    return r.n;
  }

  /**
   * A duplicate folds into the older item: its source turns join, importance and confidence keep
   * the higher value, and the restatement is an access (last access moves to its date, when later).
   */
  mergeInto(
    memoryId: string,
    sourceTurns: string[],
    importance: number,
    confidence: number,
    access: { at: string | null; day: number | null } = { at: null, day: null },
  ): void {
    this.write(() => {
      this.db
        .prepare(
          `UPDATE memories SET source_turns = ?, importance = MAX(importance, ?), confidence = MAX(confidence, ?), merged_count = merged_count + 1,
             last_access_at = CASE WHEN ? IS NOT NULL AND (last_access_day IS NULL OR ? > last_access_day) THEN ? ELSE last_access_at END,
             last_access_day = CASE WHEN ? IS NOT NULL AND (last_access_day IS NULL OR ? > last_access_day) THEN ? ELSE last_access_day END
           WHERE memory_id = ?`,
        )
        .run(
          JSON.stringify(sourceTurns),
          importance,
          confidence,
          access.day,
          access.day,
          access.at,
          access.day,
          access.day,
          access.day,
          memoryId,
        );
    });
  }

  /** The old version stays, marked superseded and pointing at the new one (a version chain, never an overwrite). */
  supersede(oldId: string, newId: string): void {
    this.write(() => {
      this.db
        .prepare("UPDATE memories SET status = 'superseded', superseded_by = ? WHERE memory_id = ? AND status = 'active'")
        .run(newId, oldId);
    });
  }

  memories(owner: string, scope?: number): MemoryRow[] {
    const rows = (
      scope === undefined
        ? this.db.prepare('SELECT * FROM memories WHERE owner_id = ? ORDER BY scope, seq').all(owner)
        : this.db.prepare('SELECT * FROM memories WHERE owner_id = ? AND scope = ? ORDER BY seq').all(owner, scope)
    ) as RawMemory[];
    return rows.map(memoryFromRaw);
  }

  memory(id: string): MemoryRow | null {
    const r = this.db.prepare('SELECT * FROM memories WHERE memory_id = ?').get(id) as RawMemory | undefined;
    return r ? memoryFromRaw(r) : null;
  }

  nextSeq(owner: string, scope: number): number {
    const r = this.db
      .prepare('SELECT COALESCE(MAX(seq), -1) + 1 AS n FROM memories WHERE owner_id = ? AND scope = ?')
      .get(owner, scope) as { n: number };
    return r.n;
  }

  event(id: string): EventRow | null {
    const r = this.db.prepare('SELECT * FROM events WHERE event_id = ?').get(id) as
      (Omit<EventRow, 'participants' | 'turn_ids'> & { participants: string; turn_ids: string }) | undefined;
    return r ? { ...r, participants: JSON.parse(r.participants) as string[], turn_ids: JSON.parse(r.turn_ids) as string[] } : null;
  }

  extraction(owner: string, scope: number, batchKey: string): ExtractionRow | null {
    const r = this.db
      .prepare('SELECT * FROM extractions WHERE owner_id = ? AND scope = ? AND batch_key = ?')
      .get(owner, scope, batchKey) as (Omit<ExtractionRow, 'cached'> & { cached: number }) | undefined;
    return r ? { ...r, cached: r.cached === 1 } : null;
  }

  /** Logs a batch's latest attempt (what it cost is in the spend ledger, one row per reply paid for: recordSpend). */
  recordExtraction(x: ExtractionRow): void {
    this.write(() => {
      const key = [x.owner_id, x.scope, x.batch_key];
      // A row from before the ledger: its attempt's cost moves into the ledger before the row is replaced.
      this.db
        .prepare(
          `INSERT INTO extraction_spend (owner_id, scope, batch_key, request_key, prompt_tokens, completion_tokens, cost_usd, at)
           SELECT owner_id, scope, batch_key, request_key, prompt_tokens, completion_tokens, cost_usd, updated_at FROM extractions
           WHERE owner_id = ? AND scope = ? AND batch_key = ? AND spend_logged = 0 AND cached = 0`,
        )
        .run(...key);
      this.db
        .prepare(
          `INSERT OR REPLACE INTO extractions (owner_id, scope, batch_index, batch_key, first_turn, last_turn, model, request_key, status, error, cached,
             prompt_tokens, completion_tokens, cost_usd, items_returned, items_stored, items_merged, items_superseding, items_dropped, updated_at,
             items_invalid, items_miscited, citations_dropped, spend_logged)
           VALUES (@owner_id, @scope, @batch_index, @batch_key, @first_turn, @last_turn, @model, @request_key, @status, @error, @cached,
             @prompt_tokens, @completion_tokens, @cost_usd, @items_returned, @items_stored, @items_merged, @items_superseding, @items_dropped, @updated_at,
             @items_invalid, @items_miscited, @citations_dropped, 1)`,
        )
        .run({
          items_invalid: 0,
          items_miscited: 0,
          citations_dropped: 0,
          ...x,
          cached: x.cached ? 1 : 0,
          updated_at: new Date().toISOString(),
        });
    });
  }

  /**
   * One extraction reply that was paid for (sent, not from the cache), written as soon as it
   * arrives — applied or not, parsable or not — so the store's cost is what was really sent.
   */
  recordSpend(x: {
    owner_id: string;
    scope: number;
    batch_key: string;
    request_key: string;
    prompt_tokens: number;
    completion_tokens: number;
    cost_usd: number | null;
  }): void {
    this.write(() => {
      this.db
        .prepare(
          `INSERT INTO extraction_spend (owner_id, scope, batch_key, request_key, prompt_tokens, completion_tokens, cost_usd, at)
           VALUES (@owner_id, @scope, @batch_key, @request_key, @prompt_tokens, @completion_tokens, @cost_usd, @at)`,
        )
        .run({ ...x, at: new Date().toISOString() });
    });
  }

  /** Notes a request's cache key before it is sent, so a purge finds its reply even if the batch was never logged. */
  noteRequest(owner: string, requestKey: string): void {
    this.write(() => {
      this.db.prepare('INSERT OR IGNORE INTO sent_requests (owner_id, request_key) VALUES (?, ?)').run(owner, requestKey);
    });
  }

  owners(): string[] {
    const rows = this.db
      .prepare('SELECT owner_id FROM events UNION SELECT owner_id FROM memories UNION SELECT owner_id FROM extractions ORDER BY owner_id')
      .all() as Array<{ owner_id: string }>;
    return rows.map((r) => r.owner_id);
  }

  /** Whole-store figures (every run that wrote here, resumed ones included). */
  totals(): StoreTotals {
    const x = this.db
      .prepare(
        `WITH spend AS (
           SELECT prompt_tokens, completion_tokens, cost_usd FROM extraction_spend
           UNION ALL SELECT prompt_tokens, completion_tokens, cost_usd FROM extractions WHERE spend_logged = 0 AND cached = 0
         ), paid AS (
           SELECT COUNT(*) AS req, COALESCE(SUM(prompt_tokens), 0) AS pt, COALESCE(SUM(completion_tokens), 0) AS ct,
             COALESCE(SUM(cost_usd), 0) AS cost, COALESCE(SUM(cost_usd IS NULL), 0) AS unknown_cost FROM spend
         )
         SELECT SUM(status = 'ok') AS ok, SUM(status = 'error') AS err, COALESCE(SUM(status = 'ok' AND cached = 1), 0) AS hits,
           (SELECT req FROM paid) AS req, (SELECT pt FROM paid) AS pt, (SELECT ct FROM paid) AS ct,
           (SELECT cost FROM paid) AS cost, (SELECT unknown_cost FROM paid) AS unknown_cost,
           COALESCE(SUM(items_returned), 0) AS ret, COALESCE(SUM(items_dropped), 0) AS dropped, COALESCE(SUM(items_merged), 0) AS merged,
           COALESCE(SUM(items_invalid), 0) AS invalid, COALESCE(SUM(items_miscited), 0) AS miscited, COALESCE(SUM(citations_dropped), 0) AS cdropped
         FROM extractions`,
      )
      .get() as {
      ok: number | null;
      err: number | null;
      req: number;
      hits: number;
      pt: number;
      ct: number;
      cost: number | null;
      unknown_cost: number | null;
      ret: number;
      dropped: number;
      merged: number;
      invalid: number;
      miscited: number;
      cdropped: number;
    };
    const m = this.db
      .prepare(
        `SELECT COUNT(*) AS n, SUM(status = 'active') AS a, SUM(status = 'superseded') AS s, SUM(status = 'forgotten') AS f,
           SUM(forgotten_reason = 'decayed') AS fd, SUM(forgotten_reason = 'evicted') AS fe, SUM(forgotten_reason = 'write-cap') AS fw FROM memories`,
      )
      .get() as {
      n: number;
      a: number | null;
      s: number | null;
      f: number | null;
      fd: number | null;
      fe: number | null;
      fw: number | null;
    };
    const events = (this.db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
    return {
      batches_ok: x.ok ?? 0,
      batches_error: x.err ?? 0,
      requests: x.req,
      cache_hits: x.hits,
      prompt_tokens: x.pt,
      completion_tokens: x.ct,
      cost_usd: (x.unknown_cost ?? 0) > 0 ? null : (x.cost ?? 0),
      items_returned: x.ret,
      items_dropped: x.dropped,
      items_merged: x.merged,
      items_invalid: x.invalid,
      items_miscited: x.miscited,
      citations_dropped: x.cdropped,
      memories: m.n,
      active: m.a ?? 0,
      superseded: m.s ?? 0,
      forgotten: m.f ?? 0,
      forgotten_by: { decayed: m.fd ?? 0, evicted: m.fe ?? 0, write_cap: m.fw ?? 0 },
      events,
    };
  }

  /** The response-cache keys of an owner's extraction requests, logged or only sent (what a purge also deletes from the cache). */
  extractionRequestKeys(owner: string): string[] {
    const rows = this.db
      .prepare(
        "SELECT request_key FROM extractions WHERE owner_id = ? AND request_key != '' UNION SELECT request_key FROM sent_requests WHERE owner_id = ? ORDER BY 1",
      )
      .all(owner, owner) as Array<{ request_key: string }>;
    return rows.map((r) => r.request_key);
  }

  /** The owner's own text in the store (event contents, item contents): what a purge checks the files for afterwards. */
  ownerTexts(owner: string): string[] {
    const ev = this.db.prepare('SELECT content FROM events WHERE owner_id = ?').all(owner) as Array<{ content: string }>;
    const mem = this.db.prepare('SELECT content FROM memories WHERE owner_id = ?').all(owner) as Array<{ content: string }>;
    return [...ev, ...mem].map((r) => r.content);
  }

  /** The text other owners keep (a piece of it in this owner's text is not this owner's own to check). */
  *otherOwnersTexts(owner: string): Generator<string> {
    for (const t of ['events', 'memories'])
      for (const r of this.db.prepare(`SELECT content FROM ${t} WHERE owner_id != ?`).iterate(owner) as IterableIterator<{
        content: string;
      }>)
        yield r.content;
  }

  /** Every table with an `owner_id` column (the system's own and any added later, e.g. a write-decision log). */
  private ownerTables(): string[] {
    const tables = (
      this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>
    ).map((r) => r.name);
    const owned = tables.filter((t) =>
      (this.db.prepare(`PRAGMA table_info(${t})`).all() as Array<{ name: string }>).some((c) => c.name === 'owner_id'),
    );
    // Items reference events: the index goes before the log.
    return [...owned.filter((t) => t === 'memories'), ...owned.filter((t) => t !== 'memories')];
  }

  /** An owner whose rows are deleted but whose purge was not yet verified (a rerun finishes it). */
  purgePending(owner: string): boolean {
    return this.getMeta(`purge_pending:${owner}`) !== null;
  }

  /**
   * Physical deletion of everything an owner left in the store (every table with an owner_id),
   * then VACUUM and a full WAL checkpoint so the deleted pages are gone from the files, not just
   * unlinked. Throws when another connection (an open reader, a BEGIN without COMMIT) keeps the
   * old pages alive; the rows stay deleted and a rerun of the purge finishes the job.
   */
  purgeOwner(owner: string): { events: number; memories: number; extractions: number } {
    const counts = this.transaction(() => {
      const changed: Record<string, number> = {};
      for (const t of this.ownerTables()) changed[t] = this.db.prepare(`DELETE FROM ${t} WHERE owner_id = ?`).run(owner).changes;
      this.setMeta(`purge_pending:${owner}`, new Date().toISOString());
      return { events: changed.events ?? 0, memories: changed.memories ?? 0, extractions: changed.extractions ?? 0 };
    });
    compactVerified(this.db, this.path);
    this.db.prepare('DELETE FROM meta WHERE key = ?').run(`purge_pending:${owner}`);
    compactVerified(this.db, this.path);
    return counts;
  }

  /** Rows an owner still has in each table (0, 0, 0 after a purge). */
  ownerCounts(owner: string): { events: number; memories: number; extractions: number } {
    const n = (table: string) => (this.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE owner_id = ?`).get(owner) as { n: number }).n;
    return { events: n('events'), memories: n('memories'), extractions: n('extractions') };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
