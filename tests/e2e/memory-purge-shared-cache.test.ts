/**
 * Issue 42 item 5: `rawrag memory purge` with a response cache shared by two owners. The byte
 * check looks only for what is the purged owner's own (never a key of rawrag's reply schema, never
 * text another owner's kept replies hold), so the purge succeeds, the other owner's replies stay,
 * and not a byte of the purged owner's content is left in the cache file. A second purge still
 * checks and says what it checked. A full disk during the purge exits 2 naming the file.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createAgenticMemorySource } from '../../src/systems/agentic-memory/source.js';
import { CACHE_FILE } from '../../src/providers/cache.js';
import type { Episode } from '../../src/core/schema.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeExtractor } from '../helpers/fake-extractor.js';
import {
  BERLIN,
  DOG,
  PARIS,
  contextFor,
  fixtureScript,
  ingested,
  memoryConfigFor,
  memoryEpisode,
  sessionFor,
} from '../unit/agentic-memory/fixture.js';

/** A second owner with its own words and turn ids (so its replies are the fake's default: one item per turn). */
function otherEpisode(): Episode {
  const ep = memoryEpisode('conv-n');
  return {
    ...ep,
    turns: ep.turns.map((t, i) => ({ ...t, id: t.id.replace(/^D/, 'E'), text: `Jonah opened dance studio number ${i} downtown.` })),
  };
}

let fake: FakeExtractor;
let runDir: string;
let cacheDir: string;
const mounts: string[] = [];

beforeEach(async () => {
  const script = fixtureScript();
  script!.script!['D5:1'] = '[]';
  fake = await new FakeExtractor(script).start();
  runDir = tempDir('rawrag-purge-run-');
  cacheDir = tempDir('rawrag-purge-cache-');
});
afterEach(async () => {
  await fake.close();
});
afterAll(() => {
  for (const m of mounts) if (spawnSync('umount', [m]).status !== 0) spawnSync('umount', ['-l', m]);
});

async function buildTwoOwners(run: string, cache: string): Promise<void> {
  const cfg = memoryConfigFor();
  const session = sessionFor(fake.url, cache);
  const source = await createAgenticMemorySource(cfg, session, { runDir: run });
  await source.open(ingested(memoryEpisode()), contextFor(cfg));
  await source.open(ingested(otherEpisode()), contextFor(cfg));
  await source.close?.();
  session.close();
  writeFileSync(join(run, 'manifest.json'), JSON.stringify({ schema: 'rawrag.run/2', system: 'agentic-memory', benchmark: 'locomo', setting: 'test', config: { system: 'agentic-memory' } }));
}

const cacheBytes = (dir: string): Buffer =>
  Buffer.concat(
    readdirSync(dir)
      .filter((f) => f.startsWith(CACHE_FILE))
      .map((f) => readFileSync(join(dir, f))),
  );

function extractRows(dir: string): number {
  const db = new Database(join(dir, CACHE_FILE), { readonly: true });
  try {
    return (db.prepare("SELECT COUNT(*) AS n FROM responses WHERE role = 'extract'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('memory purge with a response cache shared by two owners', () => {
  it("purges one owner (exit 0), keeps the other owner's replies, leaves no byte of the purged content; a second purge still checks", async () => {
    await buildTwoOwners(runDir, cacheDir);
    const before = extractRows(cacheDir);
    expect(cacheBytes(cacheDir).includes('Jonah opened dance studio')).toBe(true);
    expect(cacheBytes(cacheDir).includes(BERLIN)).toBe(true);

    const purge = await rawragInProcess(['memory', 'purge', runDir, '--owner', 'conv-m', '--cache-dir', cacheDir]);
    expect(purge.code, purge.stderr).toBe(0);
    expect(purge.stdout).toContain('response cache (--cache-dir): 8 of 8 extraction replies and 0 cached reader answers deleted');
    expect(purge.stdout).toMatch(/checked for \d+ pieces of the owner's own text/);
    expect(extractRows(cacheDir)).toBe(before - 8);
    const bytes = cacheBytes(cacheDir);
    for (const gone of [BERLIN, PARIS, DOG, 'Melanie might like dogs.']) expect(bytes.includes(gone), gone).toBe(false);
    expect(bytes.includes('Jonah opened dance studio number 3 downtown.')).toBe(true);

    // The owner's rows are gone: a second purge has nothing of this owner to delete and says so, naming what it checked.
    const again = await rawragInProcess(['memory', 'purge', runDir, '--owner', 'conv-n', '--cache-dir', cacheDir]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/checked for [1-9]\d* pieces of the owner's own text/);
    expect(extractRows(cacheDir)).toBe(0);
    expect(cacheBytes(cacheDir).includes('Jonah opened dance studio')).toBe(false);
  });

  it("a rerun after a purge whose cache check failed checks the owner's own text again (never an empty check)", async () => {
    await buildTwoOwners(runDir, cacheDir);
    // The cache rows of conv-m deleted by hand, as a purge that stopped after the cache step leaves them.
    const db = new Database(join(cacheDir, CACHE_FILE));
    db.prepare("DELETE FROM responses WHERE role = 'extract' AND CAST(value AS TEXT) LIKE '%Caroline%'").run();
    db.close();
    const purge = await rawragInProcess(['memory', 'purge', runDir, '--owner', 'conv-m', '--cache-dir', cacheDir]);
    expect(purge.code, purge.stderr).toBe(0);
    expect(purge.stdout).toMatch(/checked for [1-9]\d* pieces of the owner's own text/);
    const bytes = cacheBytes(cacheDir);
    expect(bytes.includes(BERLIN)).toBe(false);
  });
});

function tmpfs(size: string): string | null {
  const dir = tempDir('rawrag-purge-mnt-');
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  if (r.status !== 0) return null;
  mounts.push(dir);
  return dir;
}
const canMount = (() => {
  const probe = tmpfs('64k');
  if (!probe) console.warn('memory-purge-shared-cache.test.ts: cannot mount a tmpfs here (needs root): the full-disk case is skipped');
  return probe !== null;
})();

describe.skipIf(!canMount)('memory purge on a full disk', () => {
  it('exits 2 naming the cache file (not an internal error)', async () => {
    await buildTwoOwners(runDir, cacheDir);
    const small = tmpfs('4m')!;
    const smallCache = join(small, 'cache');
    mkdirSync(smallCache);
    cpSync(join(cacheDir, CACHE_FILE), join(smallCache, CACHE_FILE));
    const s = statfsSync(small);
    writeFileSync(join(small, 'filler'), Buffer.alloc(s.bavail * s.bsize));
    const purge = await rawragInProcess(['memory', 'purge', runDir, '--owner', 'conv-m', '--cache-dir', smallCache]);
    expect(purge.code, purge.stderr).toBe(2);
    expect(purge.stderr).toContain(`rawrag: error: ${join(smallCache, CACHE_FILE)}`);
    expect(purge.stderr).toMatch(/disk is full|no space left/);
  });
});
