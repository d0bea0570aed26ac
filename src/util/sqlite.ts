/**
 * Opening rawrag's SQLite files (the response cache, the local sentence-vector store). They are
 * caches: a corrupt one (a torn disk, a truncated copy, garbage written over it) is moved aside to
 * `<file>.corrupt-<time>` and replaced by an empty one, with one line on stderr naming both, so
 * a run recomputes instead of turning every item into an error.
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { openDatabase, type Database } from './lazy-packages.js';

/** Files above this size skip the full `PRAGMA quick_check` on open (it reads every page); the first failing statement still catches them. */
const QUICK_CHECK_MAX_BYTES = 256 * 1024 * 1024;

const CORRUPTION_CODES = new Set([
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_CORRUPT_VTAB',
  'SQLITE_CORRUPT_SEQUENCE',
  'SQLITE_CORRUPT_INDEX',
]);

/** Whether an error from better-sqlite3 says the file itself is damaged (not busy, not read-only). */
export function isCorruption(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'string' && (CORRUPTION_CODES.has(code) || code.startsWith('SQLITE_CORRUPT'))) return true;
  return /database disk image is malformed|file is not a database/i.test(String((e as Error)?.message ?? ''));
}

export interface OpenedSqlite {
  db: Database;
  /** Set when the file was found corrupt and replaced: where the old one went. */
  movedAside?: string;
}

/** Where notes go (stderr by default; tests may collect them). */
export type NoteSink = (line: string) => void;
const toStderr: NoteSink = (line) => process.stderr.write(line + '\n');

/**
 * Opens (creating if needed) the SQLite cache at `path`, runs `setup` (pragmas, tables), and checks
 * it. A corrupt file is moved aside, the note is written, and a fresh file is opened in its place.
 */
export function openSqliteCache(path: string, setup: (db: Database) => void, note: NoteSink = toStderr): OpenedSqlite {
  mkdirSync(dirname(path), { recursive: true });
  try {
    return { db: openChecked(path, setup) };
  } catch (e) {
    if (!isCorruption(e)) throw e;
    const movedAside = moveAside(path, e, note);
    return { db: openChecked(path, setup), movedAside };
  }
}

function openChecked(path: string, setup: (db: Database) => void): Database {
  const db = openDatabase(path);
  try {
    setup(db);
    if (statSync(path).size <= QUICK_CHECK_MAX_BYTES) {
      const rows = db.pragma('quick_check') as Array<{ quick_check: string }>;
      const verdict = rows.map((r) => r.quick_check).join('; ');
      if (verdict !== 'ok')
        throw Object.assign(new Error(`database disk image is malformed (quick_check: ${verdict.slice(0, 200)})`), {
          code: 'SQLITE_CORRUPT',
        });
    }
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/**
 * Renames a corrupt cache file (and its -wal/-shm companions) to `<file>.corrupt-<time>` and says
 * so in one line. Returns the new name.
 */
export function moveAside(path: string, cause: unknown, note: NoteSink = toStderr): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const target = `${path}.corrupt-${stamp}`;
  renameSync(path, target);
  for (const side of ['-wal', '-shm', '-journal']) {
    // The companions belong to the damaged file; a fresh database must not replay them.
    if (existsSync(path + side)) {
      try {
        renameSync(path + side, target + side);
      } catch {
        rmSync(path + side, { force: true });
      }
    }
  }
  const why = String((cause as Error)?.message ?? cause)
    .split('\n')[0]!
    .slice(0, 160);
  note(`rawrag: warning: cache file ${path} is corrupt (${why}); moved it to ${target} and started an empty cache`);
  return target;
}
