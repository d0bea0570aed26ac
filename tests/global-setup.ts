import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/** Newest modification time of any file below `dir`. */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/**
 * CLI tests spawn bin/rawrag.js, which runs the compiled dist/: compile it when src/ is newer
 * (`npm ci` already built it, so a fresh clone compiles once). Type errors are reported by
 * `npm run typecheck` (part of `npm test`); tsc still emits, so they do not stop the tests here.
 */
export default function setup(): void {
  const marker = join(ROOT, 'dist', 'cli', 'main.js');
  if (existsSync(marker) && statSync(marker).mtimeMs >= newest(join(ROOT, 'src'))) return;
  const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) process.stderr.write(`warning: tsc reported errors while building dist/:\n${r.stdout.slice(0, 2000)}\n`);
}
