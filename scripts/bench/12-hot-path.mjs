// The offline hot path: `rawrag run locomo` warm (the GloVe cache filled, a new --out each time)
// against a plain BM25 script over the same 256/224 cl100k_base windows
// (scripts/bench/reference/locomo-bm25.mjs: the least a LoCoMo retrieval run must do). The two
// are run in turn, A B A B ..., as whole processes, so each pair sees the same machine; the
// figure is the median of the pairwise wall-time ratios (target <= 2.0). The run's recall is
// checked beside it: the default `local` retriever's recall_all@15 must stay 0.852.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAIRS = Number(process.env.RAWRAG_BENCH_PAIRS ?? 5);
const TARGET_RATIO = 2.0;
const RECALL_ALL_15 = 0.852;
const work = mkdtempSync(join(tmpdir(), 'rawrag-bench-hot-path-'));
let runs = 0;

function timed(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed (exit ${r.status}):\n${r.stderr}`);
  return { seconds, stdout: r.stdout };
}
const rawrag = () => {
  const out = join(work, `run-${runs++}`);
  return { ...timed([join(ROOT, 'bin/rawrag.js'), 'run', 'locomo', '--out', out]), out };
};
const reference = () =>
  timed([
    join(ROOT, 'scripts/bench/reference/locomo-bm25.mjs'),
    join(ROOT, 'datasets/locomo/locomo10.json'),
    join(work, 'reference.jsonl'),
  ]);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const range = (xs) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;

try {
  // Warm-up, not counted: fills the GloVe cache if this machine has none (a one-time build) and
  // the file system's cache for both commands.
  const warm = rawrag();
  const ref = reference();
  const a = [];
  const b = [];
  for (let i = 0; i < PAIRS; i++) {
    a.push(rawrag().seconds);
    b.push(reference().seconds);
  }
  const ratios = a.map((x, i) => x / b[i]);
  const ratio = median(ratios);
  console.log(`rawrag run locomo, warm (new --out each time), against plain BM25 over the same windows; ${PAIRS} pairs, in turn:`);
  console.log(`  rawrag run locomo   wall median ${median(a).toFixed(2)} s (${range(a)})`);
  console.log(`  plain BM25 script   wall median ${median(b).toFixed(2)} s (${range(b)})  [${ref.stdout.trim()}]`);
  console.log(
    `  ratio (pairwise median) ${ratio.toFixed(2)} (${range(ratios)})  target <= ${TARGET_RATIO.toFixed(1)}  ${ratio <= TARGET_RATIO ? 'PASS' : 'FAIL'}`,
  );
  const summary = JSON.parse(readFileSync(join(warm.out, 'summary.json'), 'utf8'));
  const recall = summary.coverage_at_k['15'].all;
  const same = Math.round(recall * 1000) / 1000 === RECALL_ALL_15;
  console.log(`  recall_all@15 ${recall.toFixed(4)} (expected ${RECALL_ALL_15})  ${same ? 'PASS' : 'FAIL'}`);
  process.exitCode = ratio <= TARGET_RATIO && same ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
