/**
 * One writer per run directory. Two processes appending to (or one rewriting) the same
 * items.jsonl lose or duplicate items, so every writer (`run`, `ablate`, `judge`, batch
 * collection) holds `.rawrag.lock`, created exclusively, naming its pid and host. A lock whose
 * process is gone (same host, pid not alive) is stale and taken over, with a note.
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { writeAllSync } from '../util/checked-write.js';
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

/** Takes the directory's lock or throws an InputError naming the process that holds it. */
export function acquireRunLock(dir: string, command = process.argv.slice(2).join(' ')): RunLock {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const me: LockInfo = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), command };
  let tookOver: string | null = null;
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const held = readLock(path);
      const stale = held === null ? false : held.host === me.host && !alive(held.pid);
      if (!stale || attempt > 0) {
        const who = held
          ? `pid ${held.pid} on ${held.host} since ${held.started_at} (${held.command || 'rawrag'})`
          : 'another process (unreadable lock file)';
        throw new InputError(
          `this run directory is in use by ${who}; wait for it to finish, or remove ${LOCK_FILE} if that process is gone`,
          { file: dir },
        );
      }
      tookOver = `took over a stale lock of pid ${held!.pid} (no longer running)`;
      unlinkSync(path);
      continue;
    }
    try {
      writeAllSync(fd, JSON.stringify(me) + '\n', path);
    } catch (e) {
      // A half-written lock would read as another process's: none is left.
      closeSync(fd);
      unlinkSync(path);
      throw e;
    }
    closeSync(fd);
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
  throw new Error('unreachable');
}
