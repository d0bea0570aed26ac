// Install size: what a cold `npm ci` fetches (issue 43: under 150 MB; the word-vector package
// alone was a 118 MB tarball). package.json, package-lock.json and .npmrc are copied into a
// temporary folder and installed there with an empty temporary npm cache (no install scripts); the
// bytes of every response are read back from that cache's index: the tarballs, and the packages'
// metadata documents npm fetches when the lock lacks their `resolved` URLs (the target counts both).
// RAWRAG_BENCH_SKIP_INSTALL=1 skips it; so does a registry that cannot be reached or an install
// slower than RAWRAG_BENCH_INSTALL_TIMEOUT_S (default 900): "skipped", not a failure.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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
for (const f of ['package.json', 'package-lock.json', '.npmrc']) if (existsSync(join(ROOT, f))) cpSync(join(ROOT, f), join(work, f));
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
const entries = Object.entries(lock.packages ?? {}).filter(([p, e]) => p !== '' && !e.link);
const withResolved = entries.filter(([, e]) => e.resolved).length;
const t0 = performance.now();
const timeoutS = Number(process.env.RAWRAG_BENCH_INSTALL_TIMEOUT_S ?? 900);
const r = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--cache', cache], {
  cwd: work,
  encoding: 'utf8',
  timeout: timeoutS * 1000,
});
const seconds = (performance.now() - t0) / 1000;
const offline = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH/.test(r.stderr ?? '');
if (r.error || offline) {
  console.log(`install size: skipped (${r.error ? `npm ci did not finish within ${timeoutS} s` : 'the registry cannot be reached'})`);
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}
if (r.status !== 0) {
  console.log(`install size: npm ci failed (exit ${r.status}):\n${r.stderr.slice(-2000)}`);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
}
// The cache index: one JSON line per stored response, with its URL (key) and size.
const tarballs = new Map();
let fetched = 0;
let metadata = 0;
let tarballCount = 0;
let metadataBytes = 0;
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
        if (m) {
          tarballs.set(m[1], (tarballs.get(m[1]) ?? 0) + e.size);
          tarballCount++;
        } else {
          metadata++;
          metadataBytes += e.size;
        }
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
console.log(
  `cold npm ci (${tarballs.size} tarballs, ${seconds.toFixed(0)} s; the lock has resolved URLs for ${withResolved} of ${entries.length} packages):`,
);
console.log(
  `  tarballs ${mb(total)} MB + ${metadata} metadata documents ${mb(metadataBytes)} MB = ${mb(fetched)} MB fetched; node_modules ${mb(installed)} MB on disk`,
);
console.log('  largest:');
for (const [name, size] of [...tarballs].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`    ${mb(size).padStart(6)} MB  ${name}`);
const ok = fetched / 1e6 < TARGET_MB;
console.log(`  fetched ${mb(fetched)} MB (target < ${TARGET_MB} MB)  ${ok ? 'PASS' : 'FAIL'}`);
rmSync(work, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
