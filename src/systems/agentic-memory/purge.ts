/**
 * `rawrag memory purge`: one owner's data deleted physically wherever this system put it — the
 * run's memory store (every table with an owner), the response cache's extraction replies (logged
 * or only sent) and the reader's cached answers to the owner's questions — and checked by
 * searching the files' bytes afterwards. It takes the run directory's lock, so it never races a
 * live run (which would write the owner back, or merge into a deleted row), and it fails loudly
 * when another connection keeps the old pages alive. Run again, it finishes a purge that stopped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../util/lazy-packages.js';
import { CACHE_FILE, resolveCacheDir } from '../../providers/cache.js';
import { acquireRunLock } from '../../run/lock.js';
import { InputError } from '../../util/errors.js';
import { MEMORY_DB_FILE, MemoryStore, PurgeIncompleteError, compactVerified } from './store.js';

/** Pieces of the owner's text long enough to be its own, cut where JSON would escape a character (so they match inside stored JSON too). */
export function needlesOf(texts: Iterable<string>, minLength = 12): string[] {
  const out = new Set<string>();
  for (const t of texts) for (const piece of t.split(/["\\\u0000-\u001f]+/)) if (piece.trim().length >= minLength) out.add(piece);
  return [...out];
}

/** Which of `files` (those that exist) still hold any of `needles`, byte for byte. */
export function filesHolding(files: string[], needles: string[]): Array<{ file: string; needle: string }> {
  const out: Array<{ file: string; needle: string }> = [];
  if (needles.length === 0) return out;
  const bufs = needles.map((n) => Buffer.from(n, 'utf8'));
  for (const file of files) {
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    const i = bufs.findIndex((b) => bytes.includes(b));
    if (i >= 0) out.push({ file, needle: needles[i]! });
  }
  return out;
}

const sqliteFiles = (path: string) => [path, `${path}-wal`, `${path}-journal`];

/** The cache folder the run used: --cache-dir, else the one its manifest records, else the default (said so). */
function runCacheDir(runDir: string, flag: string | undefined): { dir: string | null; how: string } {
  if (flag) return { dir: resolveCacheDir(flag), how: '--cache-dir' };
  const manifest = join(runDir, 'manifest.json');
  let recorded: unknown = undefined;
  try {
    recorded = (JSON.parse(readFileSync(manifest, 'utf8')) as { cache_dir?: unknown }).cache_dir;
  } catch {
    recorded = undefined;
  }
  if (recorded === null) return { dir: null, how: 'the run used --no-cache' };
  if (typeof recorded === 'string') return { dir: recorded, how: "the run's manifest" };
  return {
    dir: resolveCacheDir(undefined),
    how: "the default (the run's manifest records no cache folder: give --cache-dir if the run used another)",
  };
}

/** The answers the run's items hold for the owner's questions (their cached reader replies go too). */
function ownerAnswers(runDir: string, owner: string): Set<string> {
  const file = join(runDir, 'items.jsonl');
  const out = new Set<string>();
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const item = JSON.parse(line) as { episode?: string; answer?: unknown };
      if (item.episode === owner && typeof item.answer === 'string' && item.answer.trim() !== '') out.add(item.answer);
    } catch {
      /* a torn last line: nothing of it was cached as an answer */
    }
  }
  return out;
}

interface CachePurge {
  file: string;
  extraction: number;
  reader: number;
}

/** Deletes the extraction replies (by key) and the reader's replies equal to the owner's answers; compacted and byte-checked. */
function purgeCache(cacheDir: string, keys: string[], answers: Set<string>): CachePurge | null {
  const file = join(cacheDir, CACHE_FILE);
  if (!existsSync(file)) return null;
  const db = openDatabase(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const texts: string[] = [];
    const get = db.prepare('SELECT value FROM responses WHERE key = ?');
    const del = db.prepare('DELETE FROM responses WHERE key = ?');
    const replyText = (value: Buffer): string | null => {
      try {
        const v = JSON.parse(value.toString('utf8')) as { text?: unknown };
        return typeof v.text === 'string' ? v.text : null;
      } catch {
        return null;
      }
    };
    const counts = db.transaction(() => {
      let extraction = 0;
      for (const k of keys) {
        const row = get.get(k) as { value: Buffer } | undefined;
        if (!row) continue;
        const text = replyText(row.value);
        if (text) texts.push(text);
        extraction += del.run(k).changes;
      }
      let reader = 0;
      if (answers.size > 0) {
        for (const row of db.prepare("SELECT key, value FROM responses WHERE role = 'reader'").all() as Array<{
          key: string;
          value: Buffer;
        }>) {
          const text = replyText(row.value);
          if (text !== null && answers.has(text)) reader += del.run(row.key).changes;
        }
      }
      return { extraction, reader };
    })();
    compactVerified(db, file);
    const left = filesHolding(sqliteFiles(file), needlesOf([...texts, ...answers]));
    if (left.length)
      throw new PurgeIncompleteError(
        `${left[0]!.file}: the deleted replies' text is still in the file ("${left[0]!.needle.slice(0, 40)}"); run the purge again`,
      );
    return { file, ...counts };
  } finally {
    db.close();
  }
}

export async function purgeOwner(runDir: string, owner: string, opts: { cacheDir?: string }): Promise<string> {
  const path = join(runDir, MEMORY_DB_FILE);
  if (!existsSync(path)) throw new InputError('no agentic memory store here (run with --system agentic-memory first)', { file: path });
  // A live run would write the owner back (or merge a restatement into a deleted row): one writer at a time.
  const lock = acquireRunLock(runDir, `memory purge --owner ${owner}`);
  try {
    const store = new MemoryStore(path, { create: false });
    try {
      const owners = store.owners();
      const pending = store.purgePending(owner);
      if (!owners.includes(owner) && !pending) {
        const list = owners.length > 8 ? `${owners.slice(0, 8).join(', ')}, ...` : owners.join(', ');
        throw new InputError(`owner '${owner}' has nothing in this store (owners: ${list || 'none'})`, { file: path, place: '--owner' });
      }
      const needles = needlesOf(store.ownerTexts(owner));
      const keys = store.extractionRequestKeys(owner);
      // The cache first: its keys come from the store, so a purge that stops here can be run again.
      const cache = runCacheDir(runDir, opts.cacheDir);
      const cached = cache.dir ? purgeCache(cache.dir, keys, ownerAnswers(runDir, owner)) : null;
      const removed = store.purgeOwner(owner);
      const left = store.ownerCounts(owner);
      if (left.events + left.memories + left.extractions > 0)
        throw new PurgeIncompleteError(`${path}: purge of '${owner}' left rows behind: ${JSON.stringify(left)}`);
      const hits = filesHolding(sqliteFiles(path), needles);
      if (hits.length)
        throw new PurgeIncompleteError(
          `${hits[0]!.file}: the owner's text is still in the file ("${hits[0]!.needle.slice(0, 40)}") after VACUUM; run the purge again`,
        );
      const cacheLine = !cache.dir
        ? `response cache: none (${cache.how})`
        : cached === null
          ? `response cache: no ${CACHE_FILE} in ${cache.dir} (from ${cache.how}): nothing to delete there` +
            (keys.length ? `; ${keys.length} extraction replies of this owner may be in another cache folder (give --cache-dir)` : '')
          : `response cache (${cache.how}): ${cached.extraction} of ${keys.length} extraction replies and ${cached.reader} cached reader answers deleted; file compacted, no byte of them left`;
      return [
        `purged owner ${owner} from ${path}: ${removed.events} events, ${removed.memories} memories, ${removed.extractions} extraction rows deleted` +
          `${pending ? ' (finishing an earlier purge)' : ''}; read back: 0 rows left; database vacuumed and checkpointed, no byte of the owner's text left`,
        cacheLine,
        "note: the run's items.jsonl still holds this owner's questions, answers and recalled text, and the judge's cached verdicts on them stay in the cache; delete or rewrite them if they must go too",
      ].join('\n');
    } finally {
      store.close();
    }
  } finally {
    lock.release();
  }
}
