/**
 * An offline LoCoMo run with a corrupt `sentence-vectors.sqlite` in its cache dir (issue 20, item
 * 5; `local-dense` reads that store, the default `local` no longer needs it): it completes without
 * item errors and says, once, which file it moved aside.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { cacheWithWordVectors } from '../helpers/test-cache.js';

describe('corrupt sentence-vector store', () => {
  it('rawrag run locomo --retriever local-dense --limit 20 completes with a one-line note naming the file', async () => {
    const work = tempDir();
    const cache = cacheWithWordVectors(join(work, 'cache'));
    const file = join(cache, 'sentence-vectors.sqlite');
    writeFileSync(file, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(8176, 0x5a)]));
    const out = join(work, 'run');
    const r = await rawragInProcess(['run', 'locomo', '--retriever', 'local-dense', '--limit', '20', '--out', out, '--no-progress'], {
      RAWRAG_CACHE_DIR: cache,
    });
    expect(r.code).toBe(0);
    const notes = r.stderr.split('\n').filter((l) => l.includes('is corrupt'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(`cache file ${file} is corrupt`);
    expect(notes[0]).toMatch(/moved it to .*sentence-vectors\.sqlite\.corrupt-/);
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(m.status).toBe('complete');
    expect(m.questions).toEqual({ selected: 20, done: 20, errors: 0 });
    expect(readdirSync(cache).filter((f) => f.startsWith('sentence-vectors.sqlite.corrupt-'))).toHaveLength(1);
    // The next run finds a healthy store: no note.
    const again = await rawragInProcess(
      ['run', 'locomo', '--retriever', 'local-dense', '--limit', '20', '--out', join(work, 'run2'), '--no-progress'],
      {
        RAWRAG_CACHE_DIR: cache,
      },
    );
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('is corrupt');
  }, 120_000);
});
