/**
 * Every byte rawrag writes to a file goes through here. write(2) may write fewer bytes than asked
 * (a disk that fills up mid-write returns a short count, and only the next call fails), so a write
 * loops until every byte is down or throws. An appended record is whole or absent: when its write
 * fails, the file is cut back to its size before the record. A file that ends in a torn record (a
 * process killed mid-write) is repaired before anything is appended to it (`repairTornTail`).
 * `diskFaults` is the test seam: ENOSPC at any byte of any write site.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';

/** The test seam (tests set it in-process; nothing in rawrag sets it). */
export const diskFaults = {
  /** Bytes that may still be written; a write beyond them is cut short and the next one fails with ENOSPC. null = no limit. */
  budget: null as number | null,
  /** When an array: every checked write (path, bytes asked for), in order — the write sites a command reaches. */
  log: null as Array<{ path: string; bytes: number }> | null,
  reset(): void {
    this.budget = null;
    this.log = null;
  },
};

/** The error a full disk gives (code ENOSPC, syscall write, the path). */
export function noSpace(path: string): NodeJS.ErrnoException {
  const e = new Error(`ENOSPC: no space left on device, write '${path}'`) as NodeJS.ErrnoException;
  e.code = 'ENOSPC';
  e.errno = -28;
  e.syscall = 'write';
  e.path = path;
  return e;
}

/**
 * write(2) errors carry no path: the file's name is added so the message can say which file. An
 * error naming `insteadOf` (the temporary file a write went through) names `path` instead.
 */
export function withPath(e: unknown, path: string, insteadOf?: string): unknown {
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err === 'object' && (!err.path || (insteadOf !== undefined && err.path === insteadOf))) {
    try {
      err.path = path;
    } catch {
      // a frozen error keeps what it has
    }
  }
  return e;
}

/** One write(2), which may write fewer bytes than asked, as the kernel's may on a filling disk. */
function writeOnce(fd: number, buf: Uint8Array, offset: number, length: number, position: number | null, path: string): number {
  const budget = diskFaults.budget;
  if (budget !== null) {
    if (budget <= 0) throw noSpace(path);
    length = Math.min(length, budget);
  }
  const n = writeSync(fd, buf, offset, length, position);
  if (budget !== null) diskFaults.budget = budget - n;
  return n;
}

/**
 * Writes every byte of `data`, or throws (the error names `path`): at byte `position` of the file,
 * or (null) at the fd's own position — the end, for a file opened to append.
 */
export function writeAllSync(fd: number, data: string | Uint8Array, path: string, position: number | null = null): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  diskFaults.log?.push({ path, bytes: buf.byteLength });
  let offset = 0;
  try {
    while (offset < buf.byteLength) {
      const n = writeOnce(fd, buf, offset, buf.byteLength - offset, position === null ? null : position + offset, path);
      // A write that makes no progress would loop for ever: the disk is full.
      if (n <= 0) throw noSpace(path);
      offset += n;
    }
  } catch (e) {
    throw withPath(e, path);
  }
}

/** Creates or replaces `path` with `data`, flushed to the disk (fsync) before it is closed. */
export function writeFileDurable(path: string, data: string | Uint8Array): void {
  const fd = openSync(path, 'w');
  try {
    writeAllSync(fd, data, path);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends `lines` (each a record without its newline) to the append-mode `fd` as one write: all of
 * them, or — when the write fails — none (the file is cut back to its size before them).
 */
export function appendRecordsSync(fd: number, lines: readonly string[], path: string): void {
  if (lines.length === 0) return;
  const size = fstatSync(fd).size;
  try {
    writeAllSync(fd, lines.join('\n') + '\n', path);
  } catch (e) {
    try {
      ftruncateSync(fd, size);
    } catch {
      // The partial record stays; repairTornTail cuts it before the next append.
    }
    throw e;
  }
}

/**
 * Appends records to the JSON Lines file `path` (created if absent), durably (fsync) when asked:
 * a torn tail left by a killed writer is repaired first (a note on stderr), so a record is never
 * glued onto half of another. For files appended now and then; a run's items keep their file open
 * (src/run-files/run-dir.ts).
 */
export function appendRecordsToFile(path: string, lines: readonly string[], opts: { fsync?: boolean } = {}): void {
  if (lines.length === 0) return;
  const fd = openSync(path, 'a+');
  try {
    const note = repairTornTail(fd, path);
    if (note) process.stderr.write(`note: ${note}\n`);
    appendRecordsSync(fd, lines, path);
    if (opts.fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const TAIL_CHUNK = 64 * 1024;

/**
 * The reader rule for a JSON Lines file about to be appended to, applied by its writer: every
 * newline-terminated line is a record; a last line without its newline is a record that only lacks
 * the newline when it parses as JSON (the newline is added), and otherwise the torn write of a
 * record that never finished (it is cut off, back to the end of the last complete record). `fd`
 * must be open for reading and writing. Returns what was done, for a note, or null.
 */
export function repairTornTail(fd: number, path: string): string | null {
  const size = fstatSync(fd).size;
  if (size === 0) return null;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  if (last[0] === 0x0a) return null;
  // Back to the last newline, a chunk at a time (a torn item can be megabytes long).
  let start = size;
  let cut = 0;
  while (start > 0) {
    const from = Math.max(0, start - TAIL_CHUNK);
    const chunk = Buffer.alloc(start - from);
    readSync(fd, chunk, 0, chunk.length, from);
    const nl = chunk.lastIndexOf(0x0a);
    if (nl >= 0) {
      cut = from + nl + 1;
      break;
    }
    start = from;
  }
  const tail = Buffer.alloc(size - cut);
  readSync(fd, tail, 0, tail.length, cut);
  const line = lineNumberAt(fd, cut);
  if (parses(tail.toString('utf8'))) {
    writeAllSync(fd, '\n', path, size);
    return `${path}: line ${line} lacked its newline (the record is whole); added it`;
  }
  ftruncateSync(fd, cut);
  return `${path}: cut a torn last line (line ${line}, ${tail.length} bytes: a record whose write did not finish); the records before it are kept`;
}

/** 1-based number of the line that starts at byte `offset`. */
function lineNumberAt(fd: number, offset: number): number {
  let lines = 1;
  const buf = Buffer.alloc(TAIL_CHUNK);
  for (let pos = 0; pos < offset;) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, offset - pos), pos);
    if (n <= 0) break;
    for (let i = 0; i < n; i++) if (buf[i] === 0x0a) lines++;
    pos += n;
  }
  return lines;
}

function parses(text: string): boolean {
  const t = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (!t.trim()) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/** The repair of `path` (if it exists and needs one), opening it itself; the note or null. */
export function repairTornTailOf(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  try {
    return repairTornTail(fd, path);
  } finally {
    closeSync(fd);
  }
}
