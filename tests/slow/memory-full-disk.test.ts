/**
 * Issue 42, item 3, for the agentic memory store (`<run dir>/memory.sqlite`): on a real full tmpfs
 * holding the run directory, SQLite's "database or disk is full" stops the run with exit 2 naming
 * memory.sqlite (as the response cache does, src/providers/cache.ts cacheDiskFailure), never a
 * later file (items.jsonl, manifest.json) nor one failed item per question. Every extraction reply
 * paid for is in the response cache (on another disk): the same command, once there is room,
 * completes paying for no extraction twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeExtractor } from '../helpers/fake-extractor.js';
import { evidenceReader, locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';
import { MEMORY_DB_FILE } from '../../src/systems/agentic-memory/store.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const LIMIT = 6;

describe('the agentic memory store on a full disk', () => {
  const fake = new FakeExtractor({ chat: evidenceReader(ds.questions) });
  const root = tempDir('rawrag-mem-full-');
  const env = loopbackEnv({ openai: 'sk-test-MEMFULL0123456789abcdef' });
  const args = (out: string, cache: string) =>
    locomoRunArgs({ system: 'agentic-memory', retriever: 'openai', out, peer: fake, cache, limit: LIMIT });
  const mounts: string[] = [];
  beforeAll(async () => {
    await fake.start();
  });
  afterAll(async () => {
    await fake.close();
    for (const m of mounts) if (spawnSync('umount', [m]).status !== 0) spawnSync('umount', ['-l', m]);
  });

  it('a run directory on a full tmpfs: exit 2 naming memory.sqlite, no item failed; with room again the same command pays no extraction twice', async (t) => {
    const clean = await rawragInProcess(args(join(root, 'clean'), join(root, 'cache-clean')), env);
    expect(clean.code, clean.stderr).toBe(0);
    const needed = fake.extractionRequests().length;
    expect(needed).toBeGreaterThan(0);

    const disk = join(root, 'tmpfs');
    mkdirSync(disk);
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', disk], { stdio: 'ignore' }).status !== 0) {
      console.warn('memory-full-disk.test.ts: cannot mount a tmpfs here (needs root): skipped');
      return t.skip();
    }
    mounts.push(disk);
    // Room for the manifest, the event log and a few batches' items, not for the conversation's whole store.
    const free = statfsSync(disk).bavail * statfsSync(disk).bsize;
    writeFileSync(join(disk, 'filler'), Buffer.alloc(free - 256 * 1024));
    const out = join(disk, 'run');
    const cache = join(root, 'cache');
    const before = fake.extractionRequests().length;
    const r = await rawragInProcess(args(out, cache), env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${join(out, MEMORY_DB_FILE)}: no space left on device (ENOSPC, write)`);
    expect(r.stderr).not.toMatch(/error: .*(items\.jsonl|manifest\.json)|--retry-errors|items? failed|max-failures/);
    // The disk filled while the one conversation was indexed: no question was answered, none failed.
    expect(existsSync(join(out, 'items.jsonl')) ? readItems(out).filter((i) => i.error) : []).toEqual([]);
    const paidFull = fake.extractionRequests().length - before;
    // Some extractions were paid for before the disk filled.
    expect(paidFull).toBeGreaterThan(0);

    rmSync(join(disk, 'filler'));
    const again = await rawragInProcess(args(out, cache), env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).errors).toBe(0);
    expect(readItems(out)).toHaveLength(LIMIT);
    // Both passes together asked for each extraction once, as the clean run did.
    expect(fake.extractionRequests().length - before).toBe(needed);
  }, 300_000);
});
