/**
 * The run directory's lock under real concurrency (issue 42, item 9): a stale lock (its process
 * gone) found by several processes at the same instant is taken over by exactly one of them; the
 * others are told the directory is in use. Each trial starts real Node processes that, once all
 * are ready, wait for the same wall-clock instant, then take the lock (dist/run-files/lock.js, as
 * the CLI does). The holder keeps it until every rival has tried (the test tells it when), so a
 * trial lasts as long as its processes take to start, not a fixed wait.
 */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT, tempDir } from '../helpers/cli.js';

const LOCK = join(ROOT, 'dist', 'run-files', 'lock.js');

/**
 * A child that says `ready`, reads the instant to take the lock of `dir` at (ms since the epoch),
 * then prints `taken ...` (and releases the lock on the next line it reads) or `refused: ...`.
 */
const CHILD = `
const { createInterface } = await import('node:readline');
const { acquireRunLock } = await import(process.argv[1]);
const dir = process.argv[2];
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
process.stdout.write('ready\\n');
const at = Number((await lines.next()).value);
while (performance.timeOrigin + performance.now() < at) {}
try {
  const lock = acquireRunLock(dir, 'test');
  process.stdout.write('taken ' + (lock.tookOver ?? 'fresh') + '\\n');
  await lines.next(); // held until every rival has tried
  lock.release();
} catch (e) {
  process.stdout.write('refused: ' + e.message + '\\n');
}
process.exit(0);
`;

/** A racer process and its stdout lines, in order. */
interface Racer {
  child: ChildProcessWithoutNullStreams;
  line: () => Promise<string>;
  closed: Promise<void>;
}

function racer(dir: string): Racer {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, LOCK, dir], { cwd: ROOT });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  // A rival that was refused has exited: the release line written to it goes nowhere.
  child.stdin.on('error', () => {});
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const closed = new Promise<void>((r) => child.on('close', () => r()));
  return {
    child,
    line: async () => {
      const next = await lines.next();
      return next.done ? `(exited: ${err.trim()})` : next.value;
    },
    closed,
  };
}

/** Four processes race for the lock of `dir` at one instant; their outcome lines, after the holder released it. */
async function race(dir: string, n = 4): Promise<string[]> {
  const racers = Array.from({ length: n }, () => racer(dir));
  const ready = await Promise.all(racers.map((r) => r.line()));
  expect(ready).toEqual(racers.map(() => 'ready'));
  const at = Date.now() + 100; // every child has read it by then, and spins to it
  for (const r of racers) r.child.stdin.write(`${at}\n`);
  const outcomes = await Promise.all(racers.map((r) => r.line()));
  for (const r of racers) r.child.stdin.end('release\n');
  await Promise.all(racers.map((r) => r.closed));
  return outcomes;
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
      const outcomes = await race(dir);
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
    const [out] = await race(dir, 1);
    expect(out).toMatch(new RegExp(`^refused: .*in use by pid ${process.pid}`));
    expect(JSON.parse(readFileSync(join(dir, '.rawrag.lock'), 'utf8')).pid).toBe(process.pid);
  });
});
