/**
 * Issue 42, item 3: the response cache on a full disk (SQLite's SQLITE_FULL, "database or disk is
 * full", through the seam `cacheFaults.full`: the cache file may not grow past the pages it has).
 * The run stops with exit 2 naming the cache file, not one failed item per question; every reply
 * received is used and its item recorded (no new question starts after the disk filled, those in
 * flight finish); the same command, once there is room, completes paying for no reply twice.
 * On a real full tmpfs (where one can be mounted) the cache cannot even be created: the same.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { cacheWithWordVectors } from '../helpers/test-cache.js';
import { evidenceReader, locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';
import { cacheFaults, CACHE_FILE } from '../../src/providers/cache.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const LIMIT = 12;

describe('the response cache on a full disk', () => {
  const api = new FakeApi({ chat: evidenceReader(ds.questions) });
  const root = tempDir('rawrag-cache-full-');
  const env = loopbackEnv({ openai: 'sk-test-CACHEFULL0123456789' });
  const args = (out: string, cache: string) => locomoRunArgs({ out, peer: api, chatOnly: true, cache, retriever: 'local', limit: LIMIT });
  const paid = () => api.requests.filter((q) => q.path.endsWith('/chat/completions')).length;

  beforeAll(async () => {
    await api.start();
  });
  afterAll(async () => {
    await api.close();
  });
  afterEach(() => {
    cacheFaults.full = false;
  });
  const mounts: string[] = [];
  afterAll(() => {
    for (const m of mounts) if (spawnSync('umount', [m]).status !== 0) spawnSync('umount', ['-l', m]);
  });

  it('stops with exit 2 naming the cache file; the replies received are recorded; the same command then completes paying for none again', async () => {
    // A clean run: how many replies the questions take.
    const clean = await rawragInProcess(args(join(root, 'clean'), cacheWithWordVectors(join(root, 'cache-clean'))), env);
    expect(clean.code, clean.stderr).toBe(0);
    const needed = paid();
    expect(needed).toBeGreaterThanOrEqual(2 * LIMIT);

    const cache = cacheWithWordVectors(join(root, 'cache-full'));
    const out = join(root, 'full');
    cacheFaults.full = true;
    const before = paid();
    const r = await rawragInProcess(args(out, cache), env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${join(cache, CACHE_FILE)}: no space left on device (ENOSPC, write)`);
    expect(r.stderr).not.toMatch(/--retry-errors|items? failed/);
    const recorded = readItems(out);
    expect(recorded.filter((i) => i.error)).toEqual([]);
    // The disk filled before the end: the run stopped early, and every item it paid for is recorded.
    expect(recorded.length).toBeGreaterThan(0);
    expect(recorded.length).toBeLessThan(LIMIT);

    cacheFaults.full = false;
    const again = await rawragInProcess(args(out, cache), env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).errors).toBe(0);
    expect(readItems(out)).toHaveLength(LIMIT);
    // No reply paid twice: both passes together asked what one clean run asks.
    expect(paid() - before).toBe(needed);
  }, 300_000);

  it('on a real full tmpfs, a cache SQLite cannot even create: exit 2 naming it, no item failed, then no reply paid twice', async (t) => {
    const disk = join(root, 'tmpfs');
    mkdirSync(disk);
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk], { stdio: 'ignore' }).status !== 0) {
      console.warn('cache-full-disk.test.ts: cannot mount a tmpfs here (needs root): the real full-disk case is skipped');
      return t.skip();
    }
    mounts.push(disk);
    const lexical = (out: string, cache: string) =>
      locomoRunArgs({ out, peer: api, chatOnly: true, cache, retriever: 'local-lexical', limit: LIMIT });
    const cleanStart = paid();
    const clean = await rawragInProcess(lexical(join(root, 'lexical-clean'), join(root, 'lexical-cache')), env);
    expect(clean.code, clean.stderr).toBe(0);
    const needed = paid() - cleanStart;
    const before = paid();
    // Ten pages free: not enough for SQLite's table and its write-ahead log.
    const cache = join(disk, 'cache');
    mkdirSync(cache);
    const free = statfsSync(disk).bavail * statfsSync(disk).bsize;
    writeFileSync(join(disk, 'filler'), Buffer.alloc(free - 40_960));
    const out = join(root, 'lexical-full');
    const r = await rawragInProcess(lexical(out, cache), env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${join(cache, CACHE_FILE)}: no space left on device (ENOSPC, write)`);
    expect(r.stderr).not.toMatch(/--retry-errors|items? failed|max-failures/);
    const recorded = readItems(out);
    expect(recorded.filter((i) => i.error)).toEqual([]);
    expect(recorded.length).toBeLessThan(LIMIT);
    rmSync(join(disk, 'filler'));
    const again = await rawragInProcess(lexical(out, cache), env);
    expect(again.code, again.stderr).toBe(0);
    expect(readItems(out)).toHaveLength(LIMIT);
    // Both passes together asked what the clean run asked.
    expect(paid() - before).toBe(needed);
  }, 300_000);
});
