/**
 * One writer per run directory. Two processes appending to (or one rewriting) the same
 * items.jsonl lose or duplicate items, so every writer (`run`, `ablate`, `judge`, batch
 * collection) holds `.rawrag.lock`, created exclusively, naming its pid and host. A lock whose
 * process is gone (same host, pid not alive) is stale and taken over, with a note; of processes
 * taking over the same stale lock at once, exactly one gets it (a takeover guard, below).
 */
import { linkSync, mkdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { withPath, writeFileDurable } from '../util/checked-write.js';
import { tempPathFor } from '../util/fsx.js';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../util/errors.js';

export const LOCK_FILE = '.rawrag.lock';

interface LockInfo {
  pid: number;
  host: string;
  started_at: string;
  command: string;
}

export interface RunLock {
  readonly path: string;
  /** Set when a stale lock was taken over: what it said. */
  readonly tookOver: string | null;
  release(): void;
}

/** Locks this process holds: released when it exits without releasing them (a signal's handler calls process.exit). */
const held = new Set<RunLock>();
let exitHooked = false;

function holdUntilExit(lock: RunLock): void {
  held.add(lock);
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const l of [...held]) l.release();
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(path: string): LockInfo | null {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockInfo>;
    return typeof info.pid === 'number' && typeof info.host === 'string' ? (info as LockInfo) : null;
  } catch {
    return null;
  }
}

/**
 * The process writing `dir` now (its lock names a live process, or one on another host), else null:
 * a reader that must not take a half-written run for a whole one (`judge --rejudge`) asks this.
 */
export function liveLockHolder(dir: string): string | null {
  const held = readLock(join(dir, LOCK_FILE));
  if (held === null) return null;
  if (held.host === hostname() && !alive(held.pid)) return null;
  return `pid ${held.pid} on ${held.host} since ${held.started_at} (${held.command || 'rawrag'})`;
}

/** Takes the directory's lock or throws an InputError naming the process that holds it. */
export function acquireRunLock(dir: string, command = process.argv.slice(2).join(' ')): RunLock {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const me: LockInfo = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), command };
  let tookOver: string | null = null;
  // A rival taking over the same stale lock holds the takeover guard for a moment: wait, then look again.
  for (let attempt = 0; ; attempt++) {
    if (createLock(path, me)) break;
    const held = readLock(path);
    const stale = held !== null && held.host === me.host && !alive(held.pid);
    if (!stale) {
      // Released in between, or replaced by a rival's takeover between our create and our read: look again.
      if (held === null && attempt < 5) {
        sleepSync(5);
        continue;
      }
      throw inUse(dir, held);
    }
    const outcome = takeOver(path, held!, me);
    if (outcome === 'taken') {
      tookOver = `took over a stale lock of pid ${held!.pid} (no longer running)`;
      break;
    }
    if (outcome === 'lost' || attempt >= TAKEOVER_WAITS) throw inUse(dir, readLock(path) ?? held);
    sleepSync(TAKEOVER_WAIT_MS);
  }
  let released = false;
  const lock: RunLock = {
    path,
    tookOver,
    release() {
      if (released) return;
      released = true;
      held.delete(lock);
      // Only our own lock is removed (a takeover by another process leaves theirs in place).
      if (readLock(path)?.pid === me.pid) {
        try {
          unlinkSync(path);
        } catch {
          /* already gone */
        }
      }
    },
  };
  holdUntilExit(lock);
  return lock;
}

const TAKEOVER_WAITS = 40;
const TAKEOVER_WAIT_MS = 25;

function inUse(dir: string, held: LockInfo | null): InputError {
  const who = held
    ? `pid ${held.pid} on ${held.host} since ${held.started_at} (${held.command || 'rawrag'})`
    : 'another process (unreadable lock file)';
  return new InputError(`this run directory is in use by ${who}; wait for it to finish, or remove ${LOCK_FILE} if that process is gone`, {
    file: dir,
  });
}

/**
 * Creates the lock with its content in one step: written whole to a file of this process, then
 * hard-linked into place (link fails if the lock exists), so no reader ever sees an empty lock.
 * False when a lock is there.
 */
function createLock(path: string, me: LockInfo): boolean {
  const tmp = tempPathFor(path);
  try {
    writeFileDurable(tmp, JSON.stringify(me) + '\n');
    linkSync(tmp, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw withPath(e, path, tmp);
    return false;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Replaces the stale lock `was` by this process's, so that of processes doing this at the same
 * instant exactly one wins: each must first create the takeover guard (exclusive); the one that
 * does checks the lock still says `was` (not a winner's new lock), removes it and creates its own.
 * 'busy': another process holds the guard (look again shortly); 'lost': the lock changed meanwhile.
 */
function takeOver(path: string, was: LockInfo, me: LockInfo): 'taken' | 'busy' | 'lost' {
  const guard = `${path}.takeover`;
  if (!createGuard(guard, me)) return 'busy';
  try {
    const now = readLock(path);
    if (now === null || now.pid !== was.pid || now.started_at !== was.started_at) return 'lost';
    unlinkSync(path);
    return createLock(path, me) ? 'taken' : 'lost';
  } finally {
    rmSync(guard, { force: true });
  }
}

/** The takeover guard, created exclusively; one left by a process killed while holding it is removed first. */
function createGuard(guard: string, me: LockInfo): boolean {
  if (createLock(guard, me)) return true;
  const holder = readLock(guard);
  if (holder !== null && holder.host === me.host && !alive(holder.pid)) {
    rmSync(guard, { force: true });
    return createLock(guard, me);
  }
  return false;
}

/** A short blocking wait (the lock is taken before anything else runs; no event loop is needed). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
