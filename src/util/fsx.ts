import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync, createReadStream } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { InputError } from './errors.js';
import { jsonErrorOffset } from './json-position.js';

/** Writes a file so that readers see either the old or the new content, never a half-written one. */
export function writeFileAtomic(path: string, data: string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export function writeJsonAtomic(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value, null, 2) + '\n');
}

/** Reads and parses a JSON file, turning every failure into an InputError naming the file. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: path });
  }
  return parseJsonText(text, path);
}

export function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const m = /position (\d+)/.exec(msg);
    let place: string | undefined;
    const pos = m ? Number(m[1]) : jsonErrorOffset(text);
    if (pos >= 0) {
      const before = text.slice(0, pos);
      const line = before.split('\n').length;
      const col = pos - before.lastIndexOf('\n');
      place = `line ${line}, column ${col}`;
    }
    throw new InputError(`invalid JSON (${msg.split('\n')[0]!.slice(0, 120)})`, { file, place });
  }
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
