/**
 * Issue 42, item 7: a Ctrl-C in the first moments of a grid was sometimes ignored — the grid ran to
 * its end and exited 0. Cause: for a moment the process had no SIGINT listener (the launcher's
 * early handler removed before the command's guard was installed); Node then closes its signal
 * handle, and a signal already caught but not yet dispatched is dropped. Here the signal is sent
 * at each moment a SIGINT listener is removed (tests/helpers/sigint-at-removal.mjs), and at a
 * spread of early delays: every time the process exits 130 by its own handler (the 2 s the docs
 * promise: scripts/bench/85-grid-interrupt.mjs).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';

const work = tempDir('rawrag-grid-early-int-');
const AT_REMOVAL = join(ROOT, 'tests', 'helpers', 'sigint-at-removal.mjs');
let runs = 0;
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Ended {
  code: number | null;
  killedBy: string | null;
  stderr: string;
  /** ms from the signal to the exit (when the test sent it); null otherwise. */
  stoppedIn: number | null;
}

/** A small offline grid (2 benchmarks x 2 retrievers); `delayMs` set: SIGINT that long after the start. */
function grid(o: { delayMs?: number; sigintAtRemoval?: number }): Promise<Ended> {
  const args = [
    ...(o.sigintAtRemoval ? ['--import', AT_REMOVAL] : []),
    BIN,
    'run',
    'locomo,longmemeval',
    '--retriever',
    'local,local-lexical',
    '--data',
    `longmemeval=${join(ROOT, 'tests/fixtures/longmemeval/longmemeval_oracle.sample.json')}`,
    '--limit',
    '3',
    '--parallel-cells',
    '4',
    '--out',
    join(work, `grid-${++runs}`),
    '--no-progress',
  ];
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', RAWRAG_CACHE_DIR: join(work, 'cache') };
  for (const k of ['OPENAI_API_KEY', 'COHERE_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'OPENAI_BASE_URL']) delete env[k];
  if (o.sigintAtRemoval) env.RAWRAG_TEST_SIGINT_AT_REMOVAL = String(o.sigintAtRemoval);
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  let sentAt: number | null = null;
  const timer =
    o.delayMs === undefined
      ? null
      : setTimeout(() => {
          sentAt = performance.now();
          child.kill('SIGINT');
        }, o.delayMs);
  return new Promise((res) => {
    child.on('close', (code, killedBy) => {
      if (timer) clearTimeout(timer);
      res({ code, killedBy, stderr, stoppedIn: sentAt === null ? null : performance.now() - sentAt });
    });
  });
}

describe('grid: a Ctrl-C is never ignored', () => {
  // 1: the launcher's early handler goes (the command's guard takes over); 2: the grid's watcher
  // goes (the grid has ended; the guard takes over). (3, the guard going on the process's last
  // turn, is not tested: with nothing left to do the process exits 0 before it polls signals.)
  it.each([1, 2])(
    'SIGINT pending while SIGINT listener %i is removed: exit 130, not the grid run to its end',
    async (k) => {
      const r = await grid({ sigintAtRemoval: k });
      expect(r.killedBy, r.stderr).toBeNull();
      expect(r.code, r.stderr).toBe(130);
      expect(r.stderr).toMatch(/rawrag: interrupted by SIGINT/);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    },
    120_000,
  );

  // The 2 s the docs promise is measured by scripts/bench/85-grid-interrupt.mjs (issue 42's "settled":
  // the time in `npm run bench`; beside other test files on two cores a timed assertion fails for the
  // machine's load, as signals.test.ts's did in CI). Here the bound only catches a stop that hangs;
  // tests/unit/util/until-stopped.test.ts asserts that nothing but the flush is awaited after the signal.
  it('SIGINT at a spread of early moments: exit 130 by its own handler (or the end of a grid that finished first), never a hang', async () => {
    let sent = 0;
    for (const delayMs of [200, 500, 800, 1100, 1400, 1700, 2000]) {
      const r = await grid({ delayMs });
      if (r.stoppedIn === null && r.code === 0) continue; // the grid finished before its signal
      sent++;
      // Before the launcher's first line runs, Node's default action ends the process (killed by SIGINT).
      if (r.killedBy !== 'SIGINT') expect(r.code, `${delayMs} ms: ${r.stderr}`).toBe(130);
      expect(r.stderr, `${delayMs} ms`).not.toMatch(/internal error|\n\s+at /);
      expect(r.stoppedIn!, `${delayMs} ms`).toBeLessThan(20_000);
    }
    expect(sent, 'every grid finished before its signal: nothing was tested').toBeGreaterThan(3);
  }, 240_000);
});
