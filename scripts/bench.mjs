#!/usr/bin/env node
// `npm run bench`: runs every benchmark script in scripts/bench/ (sorted by name) against the
// compiled dist/, printing its figures. Speed and memory targets are checked here, not in tests.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const dir = fileURLToPath(new URL('./bench/', import.meta.url));
const only = process.argv.slice(2);
let failed = 0;
for (const f of readdirSync(dir)
  .filter((f) => f.endsWith('.mjs'))
  .sort()) {
  if (only.length && !only.some((o) => f.includes(o))) continue;
  console.log(`\n=== ${f} ===`);
  const r = spawnSync(process.execPath, ['--expose-gc', join(dir, f)], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`${f}: FAILED (exit ${r.status})`);
  }
}
process.exit(failed ? 1 : 0);
