/**
 * Data on stdout (`rawrag export` without --out): every byte written, or a clear error. Into a
 * file (`> out.csv`), the bytes go through the checked writer (a full disk is exit 2 naming stdout,
 * and what was written of this output is cut back off); into a pipe whose reader has gone (`| head`),
 * the command ends quietly, as a pipeline expects.
 */
import { fstatSync, ftruncateSync, readlinkSync } from 'node:fs';
import { writeAllSync } from './checked-write.js';

let closed = false;
let watched = false;
/** Bytes the running command has handed to stdout (reset as each command starts). */
let printed = 0;

/** Called as a command starts (src/cli/main.ts): nothing of it printed yet. */
export function resetPrinted(): void {
  printed = 0;
}

/** Whether the running command has printed anything to stdout (an interrupt's line says so). */
export function hasPrinted(): boolean {
  return printed > 0;
}

/** The reader of stdout went away (EPIPE): nothing more is written there. */
export function stdoutClosed(): boolean {
  return closed;
}

/**
 * Once per process: stdout's 'error' events are handled instead of crashing the process. A closed
 * pipe (EPIPE) is the reader's choice, not an error; any other failure is reported once and makes
 * the exit code 2.
 */
export function watchStdout(report: (e: NodeJS.ErrnoException) => void): void {
  if (watched) return;
  watched = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') {
      closed = true;
      return;
    }
    if (closed) return;
    closed = true;
    report(e);
  });
}

/**
 * Every command's output to stdout goes through here (or writeStdout, which also waits for a pipe
 * to drain). Into a regular file every byte is written or the command stops (exit 2 naming the
 * file, what this call wrote cut back off): Node's own stream for a file ignores a short write,
 * so a full disk would leave a truncated file and exit 0. Into a pipe or terminal the stream
 * writes, and its errors are reported by watchStdout (a closed pipe is no error).
 */
export function printOut(data: string | Uint8Array): boolean {
  if (closed) return true;
  printed += data.length;
  const file = regularFileStdout();
  if (file === null) return process.stdout.write(data);
  try {
    writeAllSync(1, data, stdoutName());
  } catch (e) {
    // No partial output: the file is cut back to what it held before this write.
    try {
      ftruncateSync(1, file);
    } catch {
      // a file that cannot be cut keeps its bytes; the error says what happened
    }
    throw e;
  }
  return true;
}

/** `stdout (/the/file)` where the system says which file stdout is, else `stdout`. */
function stdoutName(): string {
  try {
    return `stdout (${readlinkSync('/proc/self/fd/1')})`;
  } catch {
    return 'stdout';
  }
}

/** Writes `data` to stdout; resolves when it is written (or the reader has gone), throws on a write failure. */
export async function writeStdout(data: string | Uint8Array): Promise<void> {
  if (closed) return;
  if (!printOut(data)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        process.stdout.off('drain', done);
        process.stdout.off('error', done);
        resolve();
      };
      process.stdout.once('drain', done);
      process.stdout.once('error', done);
    });
  }
}

/** stdout's size when it is a regular file written through its own stream (not captured by a test), else null. */
function regularFileStdout(): number | null {
  if (Object.hasOwn(process.stdout, 'write')) return null; // replaced (an in-process test captures it)
  try {
    const st = fstatSync(1);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}
