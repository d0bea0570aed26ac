#!/usr/bin/env node
// Compiles src/ to dist/ and bundles the page scripts (scripts/build-browser.mjs) unless dist/ is
// already newer than every source and build setting.
// `prepare` runs it: `npm ci` builds a fresh clone once, and npm's own re-runs of `prepare`
// (npx linking the project into its cache on a first `npx rawrag`) cost nothing when nothing
// changed. The test suite's global set-up runs it too, so CLI tests never spawn a stale dist/.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Newest modification time of any file below `dir` (or of the file itself). */
function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = 0;
  for (const e of readdirSync(path)) t = Math.max(t, newest(join(path, e)));
  return t;
}

const markers = [join('cli', 'main.js'), join('browser', 'report.js'), join('browser', 'live.js')].map((p) => join(ROOT, 'dist', p));
const inputs = [
  'src',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.browser.json',
  'package.json',
  join('scripts', 'build-browser.mjs'),
].map((p) => join(ROOT, p));
const newestInput = Math.max(...inputs.map(newest));
if (markers.every((m) => existsSync(m) && statSync(m).mtimeMs >= newestInput)) process.exit(0);
const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const steps = [[tsc, '-p', join(ROOT, 'tsconfig.build.json')], [join(ROOT, 'scripts', 'build-browser.mjs')]];
for (const args of steps) {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
