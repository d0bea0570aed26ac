import { createHash } from 'node:crypto';
import { renameSync, rmSync, createReadStream } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { InputError } from './errors.js';
import { withPath, writeFileDurable } from './checked-write.js';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { readTextFile } from './text.js';

/**
 * Writes a file so that readers see either the old or the new content, never a half-written one:
 * every byte into a temporary file beside it (checked, fsynced), then one rename. On any failure
 * the temporary file is removed and the old file is as it was.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = tempPathFor(path);
  try {
    writeFileDurable(tmp, data);
    renameSync(tmp, path);
  } catch (e) {
    // A full disk or a vanished folder must not leave `.<name>.<pid>.tmp` behind.
    rmSync(tmp, { force: true });
    throw withPath(e, path, tmp);
  }
}

/** The temporary file a write of `path` goes through first: in the same folder (one rename, same filesystem), hidden, per process. */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
}

/** errno codes that describe the user's filesystem (permissions, space, a file where a folder should be), not a bug. */
const USER_FS_CODES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a path component is a file, not a folder',
  EEXIST: 'already exists (as a file?)',
  EISDIR: 'is a folder, not a file',
  ENAMETOOLONG: 'name too long',
  EMFILE: 'too many open files',
};

/**
 * A filesystem failure of this machine (a full disk, a read-only folder) from a file operation:
 * it stops the command (exit 2 naming the file); it is never one question's error.
 */
export function isLocalFsFailure(e: unknown): boolean {
  const err = e as NodeJS.ErrnoException;
  return Boolean(err && typeof err.code === 'string' && typeof err.syscall === 'string' && err.code in USER_FS_CODES);
}

/**
 * One line for a filesystem error caused by the user's situation (`/out: permission denied
 * (EACCES, mkdir)`), or null when `e` is not one (then it is a bug and keeps its stack trace).
 */
export function describeFsError(e: unknown, fallbackPath?: string): string | null {
  const err = e as NodeJS.ErrnoException;
  if (!err || typeof err.code !== 'string') return null;
  // Node's recursive mkdir reports ENOENT, not EROFS/EACCES, under a read-only parent.
  if (err.code === 'ENOENT' && err.syscall === 'mkdir') {
    return `${err.path ?? fallbackPath ?? 'output'}: cannot create this folder (ENOENT, mkdir; is a parent read-only or gone?)`;
  }
  if (!(err.code in USER_FS_CODES)) return null;
  const where = err.path ?? (err as { dest?: string }).dest ?? fallbackPath;
  const op = err.syscall ? `, ${err.syscall}` : '';
  return `${where ?? 'output'}: ${USER_FS_CODES[err.code]} (${err.code}${op})`;
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');
}

/** Reads and parses a JSON file, turning every failure into an InputError naming the file. */
export function readJsonFile(path: string): unknown {
  // Strict UTF-8 with a byte-order mark dropped, like every input file.
  return parseJsonText(readTextFile(path), path);
}

export function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0]!.slice(0, 120);
    const found = jsonSyntaxError(text);
    // Node's own position is exact inside a string; the library's names the token where Node gives none.
    const m = /position (\d+)/.exec(msg);
    const pos = m ? Number(m[1]) : (found?.offset ?? -1);
    let place: string | undefined;
    if (pos >= 0) {
      const before = text.slice(0, pos);
      const line = before.split('\n').length;
      const col = pos - before.lastIndexOf('\n');
      place = `line ${line}, column ${col}`;
    }
    throw new InputError(`invalid JSON (${msg}${found ? `; ${found.code}` : ''})`, { file, place });
  }
}

/** The first syntax error of strict JSON (no comments, no trailing commas) by jsonc-parser, or null. */
function jsonSyntaxError(text: string): { offset: number; code: string } | null {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  return first ? { offset: first.offset, code: printParseErrorCode(first.error) } : null;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Streams a file through sha256 (data files can be gigabytes). */
export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}
