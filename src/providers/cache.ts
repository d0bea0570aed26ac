/**
 * The response cache: SQLite (better-sqlite3), content-addressed. A key is the sha256 of the
 * canonical semantic request (provider, model, inputs or messages, temperature, max tokens,
 * top_n, dimensions, response format, ...) plus a replicate index, so the judge's runs 1..3 are
 * distinct entries. Transport settings (timeouts, retries, concurrency, base URLs) are not in
 * the key. Errors and empty replies are never stored; identical requests in flight are sent once.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { canonicalJson } from '../util/hash.js';
import { sha256Hex } from '../util/fsx.js';
import { isCorruption, moveAside, openSqliteCache } from '../util/sqlite.js';

/** --cache-dir > RAWRAG_CACHE_DIR > $XDG_CACHE_HOME/rawrag > ~/.cache/rawrag. */
export function resolveCacheDir(flag: string | null | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag);
  if (env.RAWRAG_CACHE_DIR) return resolve(env.RAWRAG_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return resolve(env.XDG_CACHE_HOME, 'rawrag');
  return join(homedir(), '.cache', 'rawrag');
}

export const CACHE_FILE = 'responses.sqlite';
/** Bumped when the meaning of stored values changes; old entries are then simply never hit. */
const NAMESPACE = 'rawrag.cache/1';

export function cacheKey(request: Record<string, unknown>, replicate = 0): string {
  return sha256Hex(canonicalJson({ ns: NAMESPACE, request, replicate }));
}

export interface Codec<T> {
  encode(value: T): Buffer;
  decode(buf: Buffer): T;
}

export const jsonCodec = <T>(): Codec<T> => ({
  encode: (v) => Buffer.from(JSON.stringify(v), 'utf8'),
  decode: (b) => JSON.parse(b.toString('utf8')) as T,
});

/** Float32 little-endian: a 1536-d vector is 6 KB instead of ~30 KB of JSON. */
export const vectorCodec: Codec<Float32Array> = {
  encode: (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength),
  decode: (b) => {
    const out = new Float32Array(b.byteLength / 4);
    Buffer.from(out.buffer).set(b);
    return out;
  },
};

/** The test seam (tests set it in-process; nothing in rawrag sets it): a cache file that cannot grow past its pages at open (a full disk, SQLITE_FULL). */
export const cacheFaults = { full: false };

/**
 * SQLite's full-disk and write failures of the cache file as the filesystem error they are (code
 * ENOSPC, syscall write, the file's path): they stop the command with exit 2 naming the file
 * (src/util/fsx.ts isLocalFsFailure), never one question's error. null for any other error.
 */
export function cacheDiskFailure(e: unknown, path: string): NodeJS.ErrnoException | null {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== 'string' || !/^SQLITE_(FULL|IOERR)/.test(code)) return null;
  const err = new Error(`no space left on device, write '${path}' (${code}: ${(e as Error).message})`) as NodeJS.ErrnoException;
  err.code = 'ENOSPC';
  err.syscall = 'write';
  err.path = path;
  return err;
}

/** In-flight requests per cache file ('' = no cache), for every ResponseCache of the process. */
const INFLIGHT = new Map<string, Map<string, Promise<unknown>>>();

export interface CacheCounts {
  hits: number;
  misses: number;
}

export class ResponseCache {
  private db: Database.Database | null = null;
  private getStmt: Database.Statement | null = null;
  private putStmt: Database.Statement | null = null;
  /**
   * Requests in flight, shared by every cache of the process on the same file: the cells of a grid
   * (a session each) that ask the same thing at once send it once.
   */
  private readonly inflight: Map<string, Promise<unknown>>;
  readonly counts: Record<string, CacheCounts> = {};
  /**
   * Set when a reply could not be stored because the disk is full (an ENOSPC error naming the
   * file). The reply is still handed to its caller (a paid reply is used, not thrown away); the run
   * starts no new question after it (`fullSignal`) and then stops with exit 2 naming the file.
   */
  full: NodeJS.ErrnoException | null = null;
  private readonly fullCtl = new AbortController();

  /** `dir` null = caching off (--no-cache): every request is sent, nothing is stored. */
  constructor(
    readonly dir: string | null,
    private readonly file: string = CACHE_FILE,
  ) {
    const where = dir === null ? '' : join(dir, file);
    let shared = INFLIGHT.get(where);
    if (!shared) INFLIGHT.set(where, (shared = new Map()));
    this.inflight = shared;
  }

  get enabled(): boolean {
    return this.dir !== null;
  }

  /** Opened on first use, so runs that never call a provider never create a cache file. */
  private open(): Database.Database {
    if (!this.db) {
      // A corrupt file is checked for here, moved aside and replaced (one line on stderr).
      const { db } = openSqliteCache(join(this.dir!, this.file), (d) => {
        d.pragma('journal_mode = WAL');
        d.pragma('busy_timeout = 5000');
        d.exec(
          'CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, role TEXT NOT NULL, value BLOB NOT NULL, created_at TEXT NOT NULL)',
        );
        // The seam: the file may not grow past the pages it has (SQLite raises the limit to them), as on a full disk.
        if (cacheFaults.full) d.pragma('max_page_count = 1');
      });
      this.getStmt = db.prepare('SELECT value FROM responses WHERE key = ?');
      this.putStmt = db.prepare('INSERT OR REPLACE INTO responses (key, role, value, created_at) VALUES (?, ?, ?, ?)');
      this.db = db;
    }
    return this.db;
  }

  /** Damage the open-time check missed surfaces in a statement: move the file aside once, reopen, go on. */
  private guarded<R>(statement: () => R): R {
    this.open();
    try {
      return statement();
    } catch (e) {
      if (!isCorruption(e)) throw e;
      this.close();
      moveAside(join(this.dir!, this.file), e);
      this.open();
      return statement();
    }
  }

  private count(role: string, hit: boolean): void {
    const c = (this.counts[role] ??= { hits: 0, misses: 0 });
    if (hit) c.hits++;
    else c.misses++;
  }

  /** A stored value, or undefined (counted as a hit or a miss for `role`). */
  lookup<T>(role: string, key: string, codec: Codec<T>, valid: (value: T) => boolean = () => true): T | undefined {
    if (!this.enabled) {
      this.count(role, false);
      return undefined;
    }
    let row: { value: Buffer } | undefined;
    try {
      row = this.guarded(() => this.getStmt!.get(key) as { value: Buffer } | undefined);
    } catch (e) {
      // A cache that cannot be opened or read for a full disk (SQLite cannot create its table or
      // WAL): a miss, the request is sent and its reply used, and the run stops as when a reply
      // cannot be stored (exit 2 naming the file), not one failed item per question.
      const full = cacheDiskFailure(e, join(this.dir!, this.file));
      if (!full) throw e;
      this.markFull(full);
      row = undefined;
    }
    let value: T | undefined;
    if (row) {
      try {
        value = codec.decode(row.value);
      } catch {
        value = undefined; // an undecodable entry is a miss; the fresh reply replaces it
      }
      if (value !== undefined && !valid(value)) value = undefined;
    }
    this.count(role, value !== undefined);
    return value;
  }

  /** Stores `value`; a full disk throws an ENOSPC error naming the cache file (the caller keeps the reply elsewhere: a batch's stays at the provider). */
  store<T>(role: string, key: string, value: T, codec: Codec<T>): void {
    if (!this.enabled) return;
    const bytes = codec.encode(value);
    try {
      this.guarded(() => this.putStmt!.run(key, role, bytes, new Date().toISOString()));
    } catch (e) {
      throw cacheDiskFailure(e, join(this.dir!, this.file)) ?? e;
    }
  }

  /**
   * Stores a reply just received; on a full disk it is not stored but still returned to its caller
   * (used and recorded with its item), the failure kept in `full` and `fullSignal` aborted.
   */
  keep<T>(role: string, key: string, value: T, codec: Codec<T>): void {
    try {
      this.store(role, key, value, codec);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err?.code !== 'ENOSPC' || err.path !== join(this.dir!, this.file)) throw e;
      this.markFull(err);
    }
  }

  /** The disk under the cache is full: kept in `full`, `fullSignal` aborted (no new question starts). */
  private markFull(err: NodeJS.ErrnoException): void {
    this.full ??= err;
    if (!this.fullCtl.signal.aborted) this.fullCtl.abort(err);
  }

  /** Aborted once a reply could not be stored (a full disk): no new question should start. */
  get fullSignal(): AbortSignal {
    return this.fullCtl.signal;
  }

  /** Drops one entry (a batch reply its caller could not use). */
  delete(key: string): void {
    if (!this.enabled) return;
    this.open().prepare('DELETE FROM responses WHERE key = ?').run(key);
  }

  /**
   * The cached value for `key`, or `compute()`'s (stored only when `storable` says it is a real
   * answer). A stored value that `storable` rejects (written by an older version that checked
   * less) counts as a miss and is asked again. Concurrent calls with the same key share one computation.
   */
  async through<T>(
    role: string,
    key: string,
    codec: Codec<T>,
    compute: () => Promise<T>,
    storable: (value: T) => boolean = () => true,
  ): Promise<{ value: T; cached: boolean }> {
    const pending = this.inflight.get(key) as Promise<T> | undefined;
    if (pending) {
      this.count(role, true);
      return { value: await pending, cached: true };
    }
    const hit = this.lookup(role, key, codec, storable);
    if (hit !== undefined) return { value: hit, cached: true };
    const p = (async () => {
      const value = await compute();
      if (storable(value)) this.keep(role, key, value, codec);
      return value;
    })();
    this.inflight.set(key, p);
    try {
      return { value: await p, cached: false };
    } finally {
      this.inflight.delete(key);
    }
  }

  /** Registers an in-flight computation made elsewhere (batched embeddings), for sharing. */
  shareInflight<T>(key: string, p: Promise<T>): void {
    this.inflight.set(key, p);
    p.then(
      () => this.inflight.delete(key),
      () => this.inflight.delete(key),
    );
  }

  inflightFor<T>(key: string): Promise<T> | undefined {
    return this.inflight.get(key) as Promise<T> | undefined;
  }

  close(): void {
    this.db?.close();
    this.db = null;
  }
}
