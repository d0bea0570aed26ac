import { spawnSync } from 'node:child_process';

/**
 * CLI tests spawn bin/rawrag.js, which runs dist/: compile it first. Type errors are reported by
 * `npm run typecheck` (part of `npm test`); tsc still emits, so they do not stop the tests here.
 */
export default function setup(): void {
  const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { encoding: 'utf8' });
  if (r.status !== 0) process.stderr.write(`warning: tsc reported errors while building dist/:\n${r.stdout.slice(0, 2000)}\n`);
}
