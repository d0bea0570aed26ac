// Install size: what a cold `npm ci` fetches (issue 43: under 150 MB; the word-vector package
// alone was a 118 MB tarball). package.json and package-lock.json are copied into a temporary
// folder and installed there with an empty temporary npm cache (no install scripts: the bytes
// fetched are the registry's tarballs); the tarball bytes are read back from that cache's index.
// RAWRAG_BENCH_SKIP_INSTALL=1 skips it (no registry reachable).
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TARGET_MB = 150;
if (process.env.RAWRAG_BENCH_SKIP_INSTALL) {
  console.log('install size: skipped (RAWRAG_BENCH_SKIP_INSTALL)');
  process.exit(0);
}
const work = mkdtempSync(join(tmpdir(), 'rawrag-bench-install-'));
const cache = join(work, 'npm-cache');
for (const f of ['package.json', 'package-lock.json']) cpSync(join(ROOT, f), join(work, f));
const t0 = performance.now();
const r = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--cache', cache], { cwd: work, encoding: 'utf8' });
const seconds = (performance.now() - t0) / 1000;
if (r.status !== 0) {
  console.log(`install size: npm ci failed (exit ${r.status}):\n${r.stderr.slice(-2000)}`);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
}
// The cache index: one JSON line per stored response, with its URL (key) and size.
const tarballs = new Map();
let fetched = 0;
const walk = (dir) => {
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, f.name);
    if (f.isDirectory()) walk(p);
    else
      for (const line of readFileSync(p, 'utf8').split('\n')) {
        const tab = line.indexOf('\t');
        if (tab < 0) continue;
        const e = JSON.parse(line.slice(tab + 1));
        if (typeof e.size !== 'number') continue;
        fetched += e.size;
        const m = /\/((?:@[^/]+\/)?[^/]+)\/-\/[^/]+\.tgz$/.exec(e.key);
        if (m) tarballs.set(m[1], (tarballs.get(m[1]) ?? 0) + e.size);
      }
  }
};
walk(join(cache, '_cacache', 'index-v5'));
const du = (dir) => {
  let n = 0;
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, f.name);
    n += f.isDirectory() ? du(p) : statSync(p).size;
  }
  return n;
};
const installed = du(join(work, 'node_modules'));
const mb = (b) => (b / 1e6).toFixed(1);
const total = [...tarballs.values()].reduce((a, b) => a + b, 0);
console.log(`cold npm ci (${tarballs.size} tarballs, ${seconds.toFixed(0)} s):`);
console.log(`  tarballs fetched ${mb(total)} MB (all responses ${mb(fetched)} MB); node_modules ${mb(installed)} MB on disk`);
console.log('  largest:');
for (const [name, size] of [...tarballs].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`    ${mb(size).padStart(6)} MB  ${name}`);
const ok = total / 1e6 < TARGET_MB;
console.log(`  tarballs ${mb(total)} MB (target < ${TARGET_MB} MB)  ${ok ? 'PASS' : 'FAIL'}`);
rmSync(work, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
