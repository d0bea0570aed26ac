/**
 * A corrupt SQLite cache is detected on open, named, moved aside and replaced by an empty one
 * (src/util/sqlite.ts, used by the response cache and the local sentence-vector store).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { existsSync, openSync, readdirSync, statSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { ResponseCache, jsonCodec } from '../../src/providers/cache.js';
import { tempDir } from '../helpers/cli.js';

afterEach(() => vi.restoreAllMocks());

function filled(dir: string, rows: number): void {
  const c = new ResponseCache(dir);
  for (let i = 0; i < rows; i++) c.store('reader', `key-${i}`, { text: `reply ${i} `.repeat(50) }, jsonCodec());
  c.close();
}

function reopened(dir: string): { value: unknown; notes: string[] } {
  const notes: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (notes.push(String(s)), true));
  const c = new ResponseCache(dir);
  const value = c.lookup('reader', 'key-1', jsonCodec());
  // The fresh cache works: a store then a lookup round-trips.
  c.store('reader', 'new', { text: 'fresh' }, jsonCodec());
  expect(c.lookup('reader', 'new', jsonCodec())).toEqual({ text: 'fresh' });
  c.close();
  vi.restoreAllMocks();
  return { value, notes };
}

describe('corrupt response cache', () => {
  it('garbage over the header: moved aside, named, a fresh cache in its place', () => {
    const dir = tempDir();
    filled(dir, 5);
    const file = join(dir, 'responses.sqlite');
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('this is not sqlite at all'), 0, 25, 0);
    closeSync(fd);
    const { value, notes } = reopened(dir);
    expect(value).toBeUndefined();
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      new RegExp(
        `cache file ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is corrupt \\(file is not a database\\); moved it to .*responses\\.sqlite\\.corrupt-\\d{4}-`,
      ),
    );
    const aside = readdirSync(dir).filter((f) => f.startsWith('responses.sqlite.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(statSync(join(dir, aside[0]!)).size).toBeGreaterThan(0);
  });

  it('damaged pages in the middle: caught by quick_check on open', () => {
    const dir = tempDir();
    filled(dir, 400);
    const file = join(dir, 'responses.sqlite');
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(16 * 4096);
    const fd = openSync(file, 'r+');
    // Overwrite pages 3..6 (b-tree pages of the table) with noise.
    const noise = Buffer.alloc(4 * 4096, 0xa5);
    writeSync(fd, noise, 0, noise.length, 2 * 4096);
    closeSync(fd);
    const { value, notes } = reopened(dir);
    expect(value).toBeUndefined();
    expect(notes.join('')).toMatch(/responses\.sqlite is corrupt \(.*(malformed|not a database).*\); moved it to/);
    expect(existsSync(file)).toBe(true);
  });

  it('a healthy cache is kept and says nothing', () => {
    const dir = tempDir();
    filled(dir, 3);
    const { value, notes } = reopened(dir);
    expect(value).toEqual({ text: 'reply 1 '.repeat(50) });
    expect(notes).toEqual([]);
    expect(readdirSync(dir).filter((f) => f.includes('corrupt'))).toEqual([]);
  });

  it('an empty file of zeros is not mistaken for damage', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'responses.sqlite'), '');
    const { notes } = reopened(dir);
    expect(notes).toEqual([]);
  });
});
