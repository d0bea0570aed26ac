import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/**
 * CLI tests spawn bin/rawrag.js, which runs the compiled dist/: compile it when src/ is newer
 * (`npm ci` already built it, so a fresh clone compiles once). Type errors are reported by
 * `npm test`'s type-check (run beside the tests); tsc still emits, so they do not stop the tests here.
 */
export default function setup(): void {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) process.stderr.write(`warning: tsc reported errors while building dist/:\n${r.stdout.slice(0, 2000)}\n`);
}
