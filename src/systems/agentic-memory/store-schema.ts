/**
 * The agentic memory store's SQLite schema (src/systems/agentic-memory/store.ts): its tables, the
 * columns added since the first stores, the row types, vector encoding, and the compaction a purge
 * must verify.
 */
import { existsSync, statSync } from 'node:fs';
import type { Database } from '../../util/lazy-packages.js';
import { InputError } from '../../util/errors.js';

export function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e)
    .split('\n')[0]!
    .slice(0, 160);
}

/**
 * VACUUM, then a TRUNCATE checkpoint that must complete: only then are a deleted row's pages gone
 * from the database file and its WAL. Another connection holding a read snapshot makes the
 * checkpoint stop short (SQLite says so only in its result row): that is an error here, never "vacuumed".
 */
export function compactVerified(db: Database, path: string): void {
  const fail = (why: string) =>
    new PurgeIncompleteError(
      `${path}: ${why}: another process has this database open (a run, a reader, an sqlite3 shell with an open transaction); ` +
        'the deleted rows are gone but their bytes may remain in the file until it is compacted: close that process and run the purge again',
    );
  // Readers are not waited out for long: one that holds a snapshot is the case to report.
  db.pragma('busy_timeout = 500');
  const before = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number; checkpointed: number }>;
  if (before[0] && before[0].busy !== 0) throw fail('the WAL could not be checkpointed');
  try {
    db.exec('VACUUM');
  } catch (e) {
    // A full disk is the user's disk, not another process: the caller names the file (exit 2).
    if (/^SQLITE_(FULL|IOERR)/.test(String((e as { code?: unknown }).code))) throw e;
    throw fail(`VACUUM failed (${firstLine(e)})`);
  }
  const after = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number; checkpointed: number }>;
  const r = after[0];
  if (r && (r.busy !== 0 || (r.log !== -1 && r.log !== r.checkpointed)))
    throw fail(`checkpoint after VACUUM incomplete (${r.checkpointed} of ${r.log} WAL frames copied)`);
  if (existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0) throw fail('its WAL still holds pages after the checkpoint');
}

/** A purge that could not make sure the owner's bytes are gone (exit 2, with what to do). */
export class PurgeIncompleteError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'PurgeIncompleteError';
  }
}

export function addColumns(db: Database, table: string, columns: Array<[string, string]>): void {
  const have = new Set((db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name));
  for (const [name, type] of columns) if (!have.has(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
}

export const MEMORY_DB_FILE = 'memory.sqlite';
export const QUICK_CHECK_MAX_BYTES = 256 * 1024 * 1024;

export const SCHEMA = `
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
  items_invalid INTEGER NOT NULL DEFAULT 0,
  items_miscited INTEGER NOT NULL DEFAULT 0,
  citations_dropped INTEGER NOT NULL DEFAULT 0,
  spend_logged INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (owner_id, scope, batch_key)
);
CREATE TABLE IF NOT EXISTS sent_requests (owner_id TEXT NOT NULL, request_key TEXT NOT NULL, PRIMARY KEY (owner_id, request_key));
CREATE TABLE IF NOT EXISTS extraction_spend (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  owner_id TEXT NOT NULL,
  scope INTEGER NOT NULL,
  batch_key TEXT NOT NULL,
  request_key TEXT NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cost_usd REAL,
  at TEXT NOT NULL
);
`;

/** The tables (and some of their columns) a file must have to be an agentic memory store. */
export const REQUIRED_COLUMNS: Record<string, string[]> = {
  events: ['event_id', 'owner_id', 'content'],
  memories: ['memory_id', 'owner_id', 'scope', 'content', 'embedding', 'status'],
  extractions: ['owner_id', 'scope', 'batch_key', 'status', 'request_key'],
};

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
  /** Reply elements that failed the item check; items citing no turn of their segment; cited turns outside it. */
  items_invalid?: number;
  items_miscited?: number;
  citations_dropped?: number;
}

export interface StoreTotals {
  batches_ok: number;
  batches_error: number;
  /** Extraction requests really sent (failed attempts included; replies from the cache are not requests). */
  requests: number;
  /** Batches answered by the response cache. */
  cache_hits: number;
  /** Tokens and dollars of the requests sent, every attempt (a failed one is paid too). */
  prompt_tokens: number;
  completion_tokens: number;
  /** null when the extractor's price is unknown. */
  cost_usd: number | null;
  items_returned: number;
  items_dropped: number;
  items_merged: number;
  items_invalid: number;
  items_miscited: number;
  citations_dropped: number;
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

export type RawMemory = Omit<MemoryRow, 'embedding' | 'entities' | 'source_turns' | 'key_attribute'> & {
  embedding: Buffer;
  entities: string;
  source_turns: string;
  key_attribute: number;
};

export function memoryFromRaw(r: RawMemory): MemoryRow {
  return {
    ...r,
    embedding: decodeVector(r.embedding),
    entities: JSON.parse(r.entities) as string[],
    source_turns: JSON.parse(r.source_turns) as string[],
    key_attribute: r.key_attribute === 1,
  };
}

/** Columns added after the first stores were written: an older store gets them (with neutral values) when opened. */
export const ADDED_MEMORY_COLUMNS: Array<[string, string]> = [
  ['importance_ceiling', 'REAL NOT NULL DEFAULT 1'],
  ['decay_rate', 'REAL NOT NULL DEFAULT 0'],
  ['key_attribute', 'INTEGER NOT NULL DEFAULT 0'],
  ['forgotten_reason', 'TEXT'],
  ['forgotten_note', 'TEXT'],
  ['forgotten_at', 'TEXT'],
];

/**
 * Extraction-log columns added later. `spend_logged` 0 marks a row written before the spend ledger
 * (extraction_spend) existed: its own figures are what its last attempt cost.
 */
export const ADDED_EXTRACTION_COLUMNS: Array<[string, string]> = [
  ['spend_logged', 'INTEGER NOT NULL DEFAULT 0'],
  ['items_invalid', 'INTEGER NOT NULL DEFAULT 0'],
  ['items_miscited', 'INTEGER NOT NULL DEFAULT 0'],
  ['citations_dropped', 'INTEGER NOT NULL DEFAULT 0'],
];

/** What to do about a damaged store: the one remedy, said the same way everywhere. */
export function damagedStoreError(path: string, why: string): InputError {
  return new InputError(
    `the agentic memory store is damaged or not a memory store (${why}); move it aside (mv ${path} ${path}.damaged) and run the same command again: ` +
      'the store is rebuilt, its extraction replies come from the response cache',
    { file: path },
  );
}
