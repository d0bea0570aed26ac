/**
 * The run directory's lock under real concurrency (issue 42, item 9): a stale lock (its process
 * gone) found by several processes at the same instant is taken over by exactly one of them; the
 * others are told the directory is in use. Each trial starts real Node processes that wait for
 * the same wall-clock instant, then take the lock (dist/run-files/lock.js, as the CLI does).
 */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';

const LOCK = join(ROOT, 'dist', 'run-files', 'lock.js');

/** A child that takes the lock of `dir` at `at` (ms since the epoch) and holds it for a moment: prints `taken` or `refused: ...`. */
const CHILD = `
const { acquireRunLock } = await import(process.argv[1]);
const [dir, at] = [process.argv[2], Number(process.argv[3])];
while (performance.timeOrigin + performance.now() < at) {}
try {
  const lock = acquireRunLock(dir, 'test');
  process.stdout.write('taken ' + (lock.tookOver ?? 'fresh') + '\\n');
  await new Promise((r) => setTimeout(r, 2500)); // held until every rival has tried
  lock.release();
} catch (e) {
  process.stdout.write('refused: ' + e.message + '\\n');
}
`;

function racer(dir: string, at: number): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, LOCK, dir, String(at)], { cwd: ROOT });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', () => resolve(out.trim()));
  });
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('a stale run lock taken over by concurrent processes', () => {
  it('exactly one of four processes takes it over, in every one of 12 trials', async () => {
    const work = tempDir('rawrag-lock-');
    for (let trial = 0; trial < 12; trial++) {
      const dir = join(work, `run-${trial}`);
      mkdirSync(dir);
      const stale = { pid: deadPid(), host: hostname(), started_at: '2026-01-01T00:00:00.000Z', command: 'killed' };
      writeFileSync(join(dir, '.rawrag.lock'), JSON.stringify(stale) + '\n');
      const at = Date.now() + 1500; // after all four have started
      const outcomes = await Promise.all([0, 1, 2, 3].map(() => racer(dir, at)));
      const taken = outcomes.filter((o) => o.startsWith('taken'));
      expect(taken, outcomes.join('\n')).toHaveLength(1);
      // (the one may also be a process that found the stale lock already removed by a rival and made it anew)
      expect(taken[0]).toMatch(new RegExp(`^taken (took over a stale lock of pid ${stale.pid}|fresh)`));
      for (const o of outcomes.filter((x) => !x.startsWith('taken')))
        expect(o).toMatch(/^refused: .*this run directory is in use by pid \d+/);
      // Released by its holder; no guard or temporary file is left.
      expect(existsSync(join(dir, '.rawrag.lock'))).toBe(false);
      expect(spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout).toBe('');
    }
  }, 120_000);

  it('a live lock is never taken over', async () => {
    const dir = join(tempDir('rawrag-lock-'), 'run');
    mkdirSync(dir);
    const live = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), command: 'this test' };
    writeFileSync(join(dir, '.rawrag.lock'), JSON.stringify(live) + '\n');
    const out = await racer(dir, Date.now());
    expect(out).toMatch(new RegExp(`^refused: .*in use by pid ${process.pid}`));
    expect(JSON.parse(readFileSync(join(dir, '.rawrag.lock'), 'utf8')).pid).toBe(process.pid);
  });
});
