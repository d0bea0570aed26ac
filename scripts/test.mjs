#!/usr/bin/env node
// `npm test` and `npm run test:slow`: type-check (tsc --noEmit) beside the vitest run, not before it,
// and fail if either fails. vitest's output streams as it comes; tsc's is held and printed after
// vitest's, under its own heading, so the two never interleave.
//   node scripts/test.mjs fast [vitest args...]   the fast projects (every project but the slow ones)
//   node scripts/test.mjs slow [vitest args...]   the slow projects only (no type-check: `npm test` did it)
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAGES = {
  fast: { projects: ['--project', '!slow*'], typecheck: true },
  // One more worker than vitest.config.ts's: the slow files wait on the processes they start (the
  // CLI, Python sidecars, pip) for part of their time; on 2 cores, 486 s against 509 s (2026-12-07).
  slow: { projects: ['--project', 'slow*', '--maxWorkers', String(Math.max(3, availableParallelism()))], typecheck: false },
};

const [stageName, ...rest] = process.argv.slice(2);
const stage = STAGES[stageName];
if (!stage) {
  process.stderr.write(
    `scripts/test.mjs: the first argument is the stage, one of ${Object.keys(STAGES).join(', ')} (got ${stageName ?? 'none'})\n`,
  );
  process.exit(2);
}

/** Runs a node script from node_modules; resolves with its exit code (and its output when captured). */
function run(script, args, capture) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'node_modules', ...script), ...args], {
      cwd: ROOT,
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    let out = '';
    if (capture) {
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
    }
    child.on('error', (e) => resolve({ code: 1, out: `${script.join('/')}: ${e.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });
}

/**
 * tsc's incremental state, outside the checkout (as vitest's results cache, vitest.config.ts): one
 * folder per checkout. A run after a small change re-checks what it touches, not all (55 s of a core).
 */
const checkout = createHash('sha1').update(ROOT).digest('hex').slice(0, 12);
const buildInfo = join(tmpdir(), `rawrag-tsc-${checkout}`, 'tsconfig.tsbuildinfo');

const started = Date.now();
const typecheck = stage.typecheck
  ? run(['typescript', 'bin', 'tsc'], ['-p', 'tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', buildInfo], true)
      // The page scripts (src/*/browser/) have their own settings: the DOM's types, not Node's.
      .then(async (node) => (node.code !== 0 ? node : run(['typescript', 'bin', 'tsc'], ['-p', 'tsconfig.browser.json'], true)))
      .then((r) => ({ ...r, seconds: (Date.now() - started) / 1000 }))
  : Promise.resolve(null);
const tests = await run(['vitest', 'vitest.mjs'], ['run', ...stage.projects, ...rest], false);
const tc = await typecheck;
if (tc) {
  if (tc.code === 0) process.stdout.write(`\ntypecheck (tsc --noEmit, beside the tests): no errors, ${tc.seconds.toFixed(0)} s\n`);
  else process.stderr.write(`\ntypecheck (tsc --noEmit, beside the tests) FAILED:\n${tc.out}\n`);
}
process.exit(tests.code !== 0 ? tests.code : tc && tc.code !== 0 ? 1 : 0);
