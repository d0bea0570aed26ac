/**
 * `rawrag memory purge`: one owner's data deleted physically wherever this system put it — the
 * run's memory store (every table with an owner), the response cache's extraction replies (logged
 * or only sent) and the reader's cached answers to the owner's questions — and checked by
 * searching the files' bytes afterwards. It takes the run directory's lock, so it never races a
 * live run (which would write the owner back, or merge into a deleted row), and it fails loudly
 * when another connection keeps the old pages alive. Run again, it finishes a purge that stopped.
 */
import { MANIFEST_FILE, readRunItemLines, readRunManifest } from '../../run-files/record.js';
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openDatabase } from '../../util/lazy-packages.js';
import { CACHE_FILE, resolveCacheDir } from '../../providers/cache.js';
import { acquireRunLock } from '../../run-files/lock.js';
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

/**
 * The string values of a reply (never its keys: `"source_turns"` is rawrag's own schema, in every
 * owner's reply), raw as written, so `needlesOf` cuts them where the stored JSON escapes.
 */
export function replyValues(text: string): string[] {
  const out: string[] = [];
  let found = false;
  for (const m of text.matchAll(/"((?:[^"\\]|\\.)*)"(\s*:)?/g)) {
    found = true;
    if (!m[2]) out.push(m[1]!);
  }
  return found ? out : [text];
}

/** The needles no kept row holds: text shared with another owner (or the schema) is not this owner's own to check. */
export function ownNeedles(needles: string[], kept: Iterable<Buffer | string>): { own: string[]; shared: number } {
  let left = needles.map((n) => ({ n, b: Buffer.from(n, 'utf8') }));
  const before = left.length;
  for (const row of kept) {
    if (left.length === 0) break;
    const bytes = typeof row === 'string' ? Buffer.from(row, 'utf8') : row;
    left = left.filter((x) => !bytes.includes(x.b));
  }
  return { own: left.map((x) => x.n), shared: before - left.length };
}

/** SQLite's full-disk and write failures: the user's disk (exit 2 naming the file), not a bug. */
export function diskFailure(e: unknown, file: string): InputError | null {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== 'string' || !/^SQLITE_(FULL|IOERR)/.test(code)) return null;
  let free: number | null = null;
  try {
    const s = statfsSync(dirname(file));
    free = s.bavail * s.bsize;
  } catch {
    free = null;
  }
  const why = code === 'SQLITE_FULL' || free === 0 ? 'no space left on device' : 'the disk refused a write';
  return new InputError(`${why} (${code}: ${(e as Error).message}); the purge is not finished: free some space and run it again`, { file });
}

const sqliteFiles = (path: string) => [path, `${path}-wal`, `${path}-journal`];

/** The cache folder the run used: --cache-dir, else the one its manifest records, else the default (said so). */
function runCacheDir(runDir: string, flag: string | undefined): { dir: string | null; how: string } {
  if (flag) return { dir: resolveCacheDir(flag), how: '--cache-dir' };
  // Through the run record (src/run-files/record.ts): a manifest it refuses stops the purge, naming the file.
  const recorded: unknown = existsSync(join(runDir, MANIFEST_FILE))
    ? (readRunManifest(runDir).manifest as { cache_dir?: unknown }).cache_dir
    : undefined;
  if (recorded === null) return { dir: null, how: 'the run used --no-cache' };
  if (typeof recorded === 'string') return { dir: recorded, how: "the run's manifest" };
  return {
    dir: resolveCacheDir(undefined),
    how: "the default (the run's manifest records no cache folder: give --cache-dir if the run used another)",
  };
}

/** The answers the run's items hold for the owner's questions (their cached reader replies go too). */
function ownerAnswers(runDir: string, owner: string): Set<string> {
  const out = new Set<string>();
  // A torn last line is skipped (nothing of it was cached as an answer); any other bad line is refused by its line.
  for (const { item } of readRunItemLines(runDir))
    if (item.episode === owner && typeof item.answer === 'string' && item.answer.trim() !== '') out.add(item.answer);
  return out;
}

interface CachePurge {
  file: string;
  extraction: number;
  reader: number;
  /** Pieces of the owner's own text searched for in the file's bytes, and those left out because a kept row holds them too. */
  checked: number;
  shared: number;
}

/** Deletes the extraction replies (by key) and the reader's replies equal to the owner's answers; compacted and byte-checked. */
function purgeCache(cacheDir: string, keys: string[], answers: Set<string>, ownerTexts: string[]): CachePurge | null {
  const file = join(cacheDir, CACHE_FILE);
  if (!existsSync(file)) return null;
  try {
    return purgeCacheFile(file, keys, answers, ownerTexts);
  } catch (e) {
    throw diskFailure(e, file) ?? e;
  }
}

function purgeCacheFile(file: string, keys: string[], answers: Set<string>, ownerTexts: string[]): CachePurge {
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
        if (text) texts.push(...replyValues(text));
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
    // Only what is the owner's own: a piece another owner's kept reply (or the judge's) holds too stays in the file rightly.
    const kept = db.prepare('SELECT key, value FROM responses').iterate() as IterableIterator<{ key: string; value: Buffer }>;
    const { own, shared } = ownNeedles(
      needlesOf([...texts, ...answers, ...ownerTexts]),
      (function* () {
        for (const r of kept) {
          yield r.key;
          yield r.value;
        }
      })(),
    );
    compactVerified(db, file);
    const left = filesHolding(sqliteFiles(file), own);
    if (left.length)
      throw new PurgeIncompleteError(
        `${left[0]!.file}: the deleted replies' text is still in the file ("${left[0]!.needle.slice(0, 40)}"); run the purge again`,
      );
    return { file, ...counts, checked: own.length, shared };
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
      const texts = store.ownerTexts(owner);
      const needles = ownNeedles(needlesOf(texts), store.otherOwnersTexts(owner)).own;
      const keys = store.extractionRequestKeys(owner);
      // The cache first: its keys come from the store, so a purge that stops here can be run again
      // (and checks the owner's text from the store again, not only the replies it still finds).
      const cache = runCacheDir(runDir, opts.cacheDir);
      const cached = cache.dir ? purgeCache(cache.dir, keys, ownerAnswers(runDir, owner), texts) : null;
      let removed: ReturnType<MemoryStore['purgeOwner']>;
      try {
        removed = store.purgeOwner(owner);
      } catch (e) {
        throw diskFailure(e, path) ?? e;
      }
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
          : `response cache (${cache.how}): ${cached.extraction} of ${keys.length} extraction replies and ${cached.reader} cached reader answers deleted; file compacted, ` +
            (cached.checked > 0
              ? `checked for ${cached.checked} pieces of the owner's own text: no byte of them left`
              : "nothing of the owner's own text was left to check for (the store holds none of it any more)") +
            (cached.shared > 0 ? ` (${cached.shared} pieces also in kept replies of other owners or roles were not searched)` : '');
      return [
        `purged owner ${owner} from ${path}: ${removed.events} events, ${removed.memories} memories, ${removed.extractions} extraction rows deleted` +
          `${pending ? ' (finishing an earlier purge)' : ''}; read back: 0 rows left; database vacuumed and checkpointed, ` +
          (needles.length > 0
            ? `no byte of the owner's text left (${needles.length} pieces checked)`
            : "none of the owner's text was left to check for"),
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
