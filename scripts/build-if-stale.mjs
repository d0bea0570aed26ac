#!/usr/bin/env node
// Compiles src/ to dist/ unless dist/ is already newer than every source and build setting.
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

const marker = join(ROOT, 'dist', 'cli', 'main.js');
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => join(ROOT, p));
if (existsSync(marker) && statSync(marker).mtimeMs >= Math.max(...inputs.map(newest))) process.exit(0);
const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
process.exit(r.status ?? 1);
