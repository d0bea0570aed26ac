// `rawrag report` over a whole results folder of real runs, as a user accumulates them: offline
// ablations on the bundled LoCoMo (k 5/15/60 x window 256/512: 6 runs, 1,540 questions each), on
// the real LongMemEval-S development split (longmemeval_s_cleaned.dev100.json, 100 questions,
// k 5/15/30: 3 runs) and on real BEAM 100K (k 5/15/30: 3 runs) — 12 run directories. Prints the
// size of the index and of each benchmark's page (target: every page < 10 MB; before pages and the
// explorer cap, one 20 MB page for this folder), the time to write them, and in headless Chromium
// the load time of the largest page. The LongMemEval and BEAM files are read from the folder named
// by RAWRAG_SHARED_DATA (else datasets/); a missing one is skipped, saying so.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium, launchChromium, openReport } from '../lib/chromium.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHARED = process.env.RAWRAG_SHARED_DATA ?? join(ROOT, 'datasets');
const LME = join(SHARED, 'longmemeval', 'longmemeval_s_cleaned.dev100.json');
const BEAM = join(SHARED, 'beam', '100K');
const TARGETS = { pageBytes: 10 * 1024 * 1024, loadMs: 5_000 };

const dir = mkdtempSync(join(tmpdir(), 'rawrag-bench-results-'));
const results = join(dir, 'results');
const env = { ...process.env, RAWRAG_CACHE_DIR: process.env.RAWRAG_CACHE_DIR ?? join(dir, 'cache'), NO_COLOR: '1' };
const cli = (args) => spawnSync(process.execPath, [join(ROOT, 'bin', 'rawrag.js'), ...args], { encoding: 'utf8', env });
const common = ['--no-progress', '--no-report', '--no-png', '--resamples', '2000'];

const sweeps = [
  ['locomo', ['ablate', 'locomo', '--k', '5,60', '--window', '512', '--out', join(results, 'locomo-ablate'), ...common]],
  ['longmemeval', ['ablate', 'longmemeval', '--data', LME, '--k', '5,30', '--out', join(results, 'lme-ablate'), ...common], LME],
  ['beam', ['ablate', 'beam', '--data', BEAM, '--k', '5,30', '--out', join(results, 'beam-ablate'), ...common], BEAM],
];
const t0 = performance.now();
for (const [name, args, needs] of sweeps) {
  if (needs && !existsSync(needs)) {
    console.log(`  ${name}: skipped (${needs} not found; set RAWRAG_SHARED_DATA to the folder holding it)`);
    continue;
  }
  const r = cli(args);
  if (r.status !== 0) {
    console.error(r.stderr);
    process.exit(1);
  }
}
const runs = readdirSync(results).flatMap((s) =>
  readdirSync(join(results, s)).filter((v) => existsSync(join(results, s, v, 'manifest.json'))),
);
console.log(`case: a results folder of ${runs.length} run directories (made in ${((performance.now() - t0) / 1000).toFixed(0)} s)`);

const out = join(dir, 'site', 'report.html');
const t1 = performance.now();
const r = cli(['report', results, '--out', out]);
const writeMs = performance.now() - t1;
if (r.status !== 0) {
  console.error(r.stderr);
  process.exit(1);
}
for (const l of r.stdout.trim().split('\n')) console.log(`  ${l.split(dir).join('<tmp>')}`);
let fail = false;
const pages = readdirSync(join(dir, 'site')).map((f) => ({ f, bytes: statSync(join(dir, 'site', f)).size }));
const total = pages.reduce((a, p) => a + p.bytes, 0);
const largest = pages.reduce((a, p) => (p.bytes > a.bytes ? p : a));
const mb = (b) => (b / 1024 / 1024).toFixed(1);
console.log(`  all pages together: ${mb(total)} MB in ${pages.length} files; write ${writeMs.toFixed(0)} ms`);
const pass = largest.bytes < TARGETS.pageBytes;
console.log(`  largest page: ${largest.f} ${mb(largest.bytes)} MB  target < ${mb(TARGETS.pageBytes)} MB  ${pass ? 'PASS' : 'FAIL'}`);
fail ||= !pass;

const chromium = findChromium();
if (!chromium) console.log('  load time in Chromium: SKIPPED (no Chromium: apt-get install -y chromium)');
else {
  const { browser, close } = await launchChromium(chromium);
  try {
    const opened = await openReport(browser, join(dir, 'site', largest.f));
    const ok = opened.loadMs < TARGETS.loadMs;
    console.log(
      `  load ${largest.f} in Chromium until every chart is drawn: ${opened.loadMs.toFixed(0)} ms  target < ${TARGETS.loadMs} ms  ${ok ? 'PASS' : 'FAIL'}`,
    );
    const errors = opened.consoleMessages.filter((m) => m.type === 'error').length + opened.pageErrors.length;
    console.log(`  console errors: ${errors}; network requests: ${opened.requests.length}`);
    fail ||= !ok || errors > 0 || opened.requests.length > 0;
  } finally {
    await close();
  }
}
if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
else console.log(dir);
if (fail) process.exitCode = 1;
