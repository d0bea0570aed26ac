import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_FILE, ResponseCache, cacheKey, jsonCodec, resolveCacheDir, vectorCodec } from '../../../src/providers/cache.js';
import { tempDir } from '../../helpers/cli.js';

describe('cache keys', () => {
  it('are canonical: key order does not matter, every semantic field does', () => {
    const a = cacheKey({ model: 'm', temperature: 0, messages: [{ role: 'user', content: 'q' }] });
    expect(cacheKey({ messages: [{ content: 'q', role: 'user' }], temperature: 0, model: 'm' })).toBe(a);
    expect(cacheKey({ model: 'm', temperature: 0.5, messages: [{ role: 'user', content: 'q' }] })).not.toBe(a);
    expect(cacheKey({ model: 'm2', temperature: 0, messages: [{ role: 'user', content: 'q' }] })).not.toBe(a);
  });
  it('separate replicates: judge runs 1..3 are three entries', () => {
    const req = { model: 'm', messages: [] };
    const keys = new Set([1, 2, 3].map((r) => cacheKey(req, r)));
    expect(keys.size).toBe(3);
  });
});

describe('cache location', () => {
  it('--cache-dir > RAWRAG_CACHE_DIR > XDG_CACHE_HOME/rawrag > ~/.cache/rawrag', () => {
    expect(resolveCacheDir('/a', { RAWRAG_CACHE_DIR: '/b', XDG_CACHE_HOME: '/c' })).toBe('/a');
    expect(resolveCacheDir(null, { RAWRAG_CACHE_DIR: '/b', XDG_CACHE_HOME: '/c' })).toBe('/b');
    expect(resolveCacheDir(null, { XDG_CACHE_HOME: '/c' })).toBe('/c/rawrag');
    expect(resolveCacheDir(null, { HOME: '/h' })).toMatch(/\.cache\/rawrag$/);
  });
});

describe('ResponseCache', () => {
  it('persists replies across instances, counts hits and misses, never stores errors or rejected replies', async () => {
    const dir = tempDir();
    const c1 = new ResponseCache(dir);
    let calls = 0;
    const compute = async () => ({ text: `reply ${++calls}` });
    const codec = jsonCodec<{ text: string }>();
    expect((await c1.through('reader', 'k1', codec, compute)).cached).toBe(false);
    expect(await c1.through('reader', 'k1', codec, compute)).toEqual({ value: { text: 'reply 1' }, cached: true });
    await expect(
      c1.through('reader', 'k2', codec, async () => {
        throw new Error('429');
      }),
    ).rejects.toThrow('429');
    await c1.through('reader', 'k3', codec, compute, (v) => v.text === 'never');
    expect(c1.counts.reader).toEqual({ hits: 1, misses: 3 });
    c1.close();
    const c2 = new ResponseCache(dir);
    expect(c2.lookup('reader', 'k1', codec)).toEqual({ text: 'reply 1' });
    expect(c2.lookup('reader', 'k2', codec)).toBeUndefined();
    expect(c2.lookup('reader', 'k3', codec)).toBeUndefined();
    c2.close();
  });

  it('sends identical in-flight requests once', async () => {
    const c = new ResponseCache(tempDir());
    let calls = 0;
    const slow = () => new Promise<number>((r) => setTimeout(() => r(++calls), 20));
    const [a, b, d] = await Promise.all([
      c.through('judge', 'same', jsonCodec<number>(), slow),
      c.through('judge', 'same', jsonCodec<number>(), slow),
      c.through('judge', 'other', jsonCodec<number>(), slow),
    ]);
    expect(calls).toBe(2);
    expect(a.value).toBe(b.value);
    expect([a.cached, b.cached, d.cached]).toEqual([false, true, false]);
    c.close();
  });

  it('--no-cache (dir null) stores nothing and creates no file', async () => {
    const dir = tempDir();
    const c = new ResponseCache(null);
    let calls = 0;
    await c.through('reader', 'k', jsonCodec<number>(), async () => ++calls);
    await c.through('reader', 'k', jsonCodec<number>(), async () => ++calls);
    expect(calls).toBe(2);
    expect(existsSync(join(dir, CACHE_FILE))).toBe(false);
  });

  it('stores vectors as float32 bytes and reads them back exactly', () => {
    const v = Float32Array.from([0.1, -2.5, 3e-8, 1]);
    expect([...vectorCodec.decode(vectorCodec.encode(v))]).toEqual([...v]);
  });
});
