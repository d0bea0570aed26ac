/**
 * The agentic memory system's stores, in one SQLite database per run (`<run dir>/memory.sqlite`):
 * - `events`: the event log, append-only (one event per conversation turn; never updated);
 * - `memories`: the memory index (the handbook's fields, a version chain through superseded_by);
 * - `extractions`: one row per extraction batch (ok / error), so a resumed run re-extracts
 *   nothing already stored and knows which batches failed.
 * Every batch is written in one transaction: a killed run loses at most the batch in flight.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { InputError } from '../../util/errors.js';

export const MEMORY_DB_FILE = 'memory.sqlite';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
  event_id TEXT PRIMARY KEY,
  owner_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  timestamp TEXT,
  participants TEXT NOT NULL,
  event_type TEXT NOT NULL,
  content TEXT NOT NULL,
  turn_ids TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_owner ON events (owner_id, seq);
CREATE TABLE IF NOT EXISTS memories (
  memory_id TEXT PRIMARY KEY,
  owner_id TEXT NOT NULL,
  scope INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  memory_type TEXT NOT NULL CHECK (memory_type IN ('episodic', 'semantic', 'procedural')),
  content TEXT NOT NULL,
  embedding BLOB NOT NULL,
  entities TEXT NOT NULL,
  attribute TEXT,
  importance REAL NOT NULL,
  confidence REAL NOT NULL,
  source_event_id TEXT NOT NULL REFERENCES events (event_id),
  source_turns TEXT NOT NULL,
  batch_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'superseded', 'forgotten')),
  superseded_by TEXT REFERENCES memories (memory_id),
  merged_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT,
  created_day REAL,
  last_access_at TEXT,
  last_access_day REAL,
  access_count INTEGER NOT NULL DEFAULT 0,
  importance_ceiling REAL NOT NULL DEFAULT 1,
  decay_rate REAL NOT NULL DEFAULT 0,
  key_attribute INTEGER NOT NULL DEFAULT 0,
  forgotten_reason TEXT CHECK (forgotten_reason IN ('decayed', 'evicted', 'write-cap')),
  forgotten_note TEXT,
  forgotten_at TEXT
);
CREATE INDEX IF NOT EXISTS memories_owner ON memories (owner_id, scope, seq);
CREATE TABLE IF NOT EXISTS extractions (
  owner_id TEXT NOT NULL,
  scope INTEGER NOT NULL,
  batch_index INTEGER NOT NULL,
  batch_key TEXT NOT NULL,
  first_turn TEXT NOT NULL,
  last_turn TEXT NOT NULL,
  model TEXT NOT NULL,
  request_key TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
  error TEXT,
  cached INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cost_usd REAL,
  items_returned INTEGER NOT NULL DEFAULT 0,
  items_stored INTEGER NOT NULL DEFAULT 0,
  items_merged INTEGER NOT NULL DEFAULT 0,
  items_superseding INTEGER NOT NULL DEFAULT 0,
  items_dropped INTEGER NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (owner_id, scope, batch_key)
);
`;

export type MemoryStatus = 'active' | 'superseded' | 'forgotten';

export interface EventRow {
  event_id: string;
  owner_id: string;
  seq: number;
  timestamp: string | null;
  participants: string[];
  event_type: string;
  content: string;
  turn_ids: string[];
}

export interface MemoryRow {
  memory_id: string;
  owner_id: string;
  /** Visible turns of the history the item was built from (MEME horizons each have their own memory). */
  scope: number;
  /** Insertion order within (owner, scope). */
  seq: number;
  memory_type: 'episodic' | 'semantic' | 'procedural';
  content: string;
  embedding: Float32Array;
  entities: string[];
  /** The extractor's key for a single-valued fact (`caroline.home_city`), null otherwise. */
  attribute: string | null;
  importance: number;
  confidence: number;
  source_event_id: string;
  /** Turn ids the item came from (its source events' turns, merged duplicates' included). */
  source_turns: string[];
  batch_key: string;
  status: MemoryStatus;
  superseded_by: string | null;
  merged_count: number;
  created_at: string | null;
  /** Days since 1970-01-01 of created_at, null when the history's date is unreadable. */
  created_day: number | null;
  last_access_at: string | null;
  last_access_day: number | null;
  access_count: number;
  /** Forgetting (forget.ts): importance counts at most this much; it decays at this rate per day; key attributes never decay. */
  importance_ceiling: number;
  decay_rate: number;
  key_attribute: boolean;
  /** Why a `forgotten` item was forgotten (decayed / evicted / write-cap), with the figures, and "now" when it was. */
  forgotten_reason: 'decayed' | 'evicted' | 'write-cap' | null;
  forgotten_note: string | null;
  forgotten_at: string | null;
}

export interface ExtractionRow {
  owner_id: string;
  scope: number;
  batch_index: number;
  batch_key: string;
  first_turn: string;
  last_turn: string;
  model: string;
  request_key: string;
  status: 'ok' | 'error';
  error: string | null;
  cached: boolean;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
  items_returned: number;
  items_stored: number;
  items_merged: number;
  items_superseding: number;
  items_dropped: number;
}

export interface StoreTotals {
  batches_ok: number;
  batches_error: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** null when the extractor's price is unknown. */
  cost_usd: number | null;
  items_returned: number;
  items_dropped: number;
  items_merged: number;
  memories: number;
  active: number;
  superseded: number;
  forgotten: number;
  forgotten_by: { decayed: number; evicted: number; write_cap: number };
  events: number;
}

export function encodeVector(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function decodeVector(b: Buffer): Float32Array {
  const out = new Float32Array(b.byteLength / 4);
  Buffer.from(out.buffer).set(b);
  return out;
}

type RawMemory = Omit<MemoryRow, 'embedding' | 'entities' | 'source_turns' | 'key_attribute'> & {
  embedding: Buffer;
  entities: string;
  source_turns: string;
  key_attribute: number;
};

function memoryFromRaw(r: RawMemory): MemoryRow {
  return {
    ...r,
    embedding: decodeVector(r.embedding),
    entities: JSON.parse(r.entities) as string[],
    source_turns: JSON.parse(r.source_turns) as string[],
    key_attribute: r.key_attribute === 1,
  };
}

/** Columns added after the first stores were written: an older store gets them (with neutral values) when opened. */
const ADDED_MEMORY_COLUMNS: Array<[string, string]> = [
  ['importance_ceiling', 'REAL NOT NULL DEFAULT 1'],
  ['decay_rate', 'REAL NOT NULL DEFAULT 0'],
  ['key_attribute', 'INTEGER NOT NULL DEFAULT 0'],
  ['forgotten_reason', 'TEXT'],
  ['forgotten_note', 'TEXT'],
  ['forgotten_at', 'TEXT'],
];

export class MemoryStore {
  readonly db: Database.Database;

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
    this.db = new Database(path, { readonly: Boolean(opts.readonly) });
    if (!opts.readonly) {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
      this.db.pragma('busy_timeout = 5000');
      this.db.exec(SCHEMA);
      const have = new Set((this.db.prepare('PRAGMA table_info(memories)').all() as Array<{ name: string }>).map((c) => c.name));
      for (const [name, type] of ADDED_MEMORY_COLUMNS) if (!have.has(name)) this.db.exec(`ALTER TABLE memories ADD COLUMN ${name} ${type}`);
    }
  }

  getMeta(key: string): string | null {
    const r = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return r?.value ?? null;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value);
  }

  /** Runs `fn` in one transaction (all or nothing). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** Appends an event; an event already logged is left as it was (the log is never rewritten). */
  appendEvent(e: EventRow): void {
    this.db
      .prepare(
        'INSERT OR IGNORE INTO events (event_id, owner_id, seq, timestamp, participants, event_type, content, turn_ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(e.event_id, e.owner_id, e.seq, e.timestamp, JSON.stringify(e.participants), e.event_type, e.content, JSON.stringify(e.turn_ids));
  }

  insertMemory(m: MemoryRow): void {
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
  }

  /** An active item leaves recall for good (the row stays, with why; `memory purge` deletes physically). */
  forget(memoryId: string, reason: NonNullable<MemoryRow['forgotten_reason']>, note: string, at: string | null): void {
    this.db
      .prepare(
        "UPDATE memories SET status = 'forgotten', forgotten_reason = ?, forgotten_note = ?, forgotten_at = ? WHERE memory_id = ? AND status = 'active'",
      )
      .run(reason, note, at, memoryId);
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

  /** A duplicate folds into the older item: its source turns join, importance and confidence keep the higher value. */
  mergeInto(memoryId: string, sourceTurns: string[], importance: number, confidence: number): void {
    this.db
      .prepare(
        'UPDATE memories SET source_turns = ?, importance = MAX(importance, ?), confidence = MAX(confidence, ?), merged_count = merged_count + 1 WHERE memory_id = ?',
      )
      .run(JSON.stringify(sourceTurns), importance, confidence, memoryId);
  }

  /** The old version stays, marked superseded and pointing at the new one (a version chain, never an overwrite). */
  supersede(oldId: string, newId: string): void {
    this.db
      .prepare("UPDATE memories SET status = 'superseded', superseded_by = ? WHERE memory_id = ? AND status = 'active'")
      .run(newId, oldId);
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

  recordExtraction(x: ExtractionRow): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO extractions (owner_id, scope, batch_index, batch_key, first_turn, last_turn, model, request_key, status, error, cached,
           prompt_tokens, completion_tokens, cost_usd, items_returned, items_stored, items_merged, items_superseding, items_dropped, updated_at)
         VALUES (@owner_id, @scope, @batch_index, @batch_key, @first_turn, @last_turn, @model, @request_key, @status, @error, @cached,
           @prompt_tokens, @completion_tokens, @cost_usd, @items_returned, @items_stored, @items_merged, @items_superseding, @items_dropped, @updated_at)`,
      )
      .run({ ...x, cached: x.cached ? 1 : 0, updated_at: new Date().toISOString() });
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
        `SELECT SUM(status = 'ok') AS ok, SUM(status = 'error') AS err, COALESCE(SUM(prompt_tokens), 0) AS pt, COALESCE(SUM(completion_tokens), 0) AS ct,
           SUM(cost_usd) AS cost, SUM(cost_usd IS NULL) AS unknown_cost, COALESCE(SUM(items_returned), 0) AS ret, COALESCE(SUM(items_dropped), 0) AS dropped,
           COALESCE(SUM(items_merged), 0) AS merged FROM extractions`,
      )
      .get() as {
      ok: number | null;
      err: number | null;
      pt: number;
      ct: number;
      cost: number | null;
      unknown_cost: number | null;
      ret: number;
      dropped: number;
      merged: number;
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
      prompt_tokens: x.pt,
      completion_tokens: x.ct,
      cost_usd: (x.unknown_cost ?? 0) > 0 ? null : (x.cost ?? 0),
      items_returned: x.ret,
      items_dropped: x.dropped,
      items_merged: x.merged,
      memories: m.n,
      active: m.a ?? 0,
      superseded: m.s ?? 0,
      forgotten: m.f ?? 0,
      forgotten_by: { decayed: m.fd ?? 0, evicted: m.fe ?? 0, write_cap: m.fw ?? 0 },
      events,
    };
  }

  /**
   * Physical deletion of everything an owner left in the store (events, memories, extraction
   * log), then VACUUM so the deleted pages are gone from the file, not just unlinked.
   */
  /** The response-cache keys of an owner's logged extraction requests (what a purge also deletes from the cache). */
  extractionRequestKeys(owner: string): string[] {
    const rows = this.db.prepare("SELECT request_key FROM extractions WHERE owner_id = ? AND request_key != ''").all(owner) as Array<{
      request_key: string;
    }>;
    return rows.map((r) => r.request_key);
  }

  purgeOwner(owner: string): { events: number; memories: number; extractions: number } {
    const counts = this.transaction(() => ({
      memories: this.db.prepare('DELETE FROM memories WHERE owner_id = ?').run(owner).changes,
      events: this.db.prepare('DELETE FROM events WHERE owner_id = ?').run(owner).changes,
      extractions: this.db.prepare('DELETE FROM extractions WHERE owner_id = ?').run(owner).changes,
    }));
    // The WAL may still hold the deleted pages: fold it into the file before VACUUM rewrites it.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.exec('VACUUM');
    this.db.pragma('wal_checkpoint(TRUNCATE)');
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
