// `rawrag stats` speed. (1) The library's paired bootstrap: 50,000 resamples over 2,071 items
// (MemoryAgentBench's paper subset) under 1 s CPU per pair. (2) A whole analysis in-process.
// (3) Through the CLI, CPU time of the child process (the code's cost; wall time also counts
// other processes sharing the machine): one pair of 2,071 items with coverage and utilization
// < 1.5 s; 5 systems x 3,000 items < 10 s, both at the default 50,000 resamples.
import { pairedBootstrap } from '../../dist/stats/index.js';
import { analyse } from '../../dist/stats/compute-tables.js';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const N = 2071;
const RESAMPLES = 50_000;
const PAIRS = 5;
const TARGET_MS = 1000;

let state = 12345;
const rand = () => (state = (state * 16807) % 2147483647) / 2147483647;
/** Item scores as the judge writes them: the mean of three 0/1 runs. */
const scores = (p) => Array.from({ length: N }, () => [0, 1, 2].reduce((s) => s + (rand() < p ? 1 : 0), 0) / 3);

const wall = [];
const cpu = [];
for (let k = 0; k < PAIRS; k++) {
  const a = scores(0.55);
  const b = scores(0.5);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = pairedBootstrap(a, b, { resamples: RESAMPLES, seed: k });
  wall.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
  if (k === 0)
    console.log(`pair 0: delta ${r.delta.toFixed(4)} CI [${r.ciLow.toFixed(4)}, ${r.ciHigh.toFixed(4)}] p ${r.p.toExponential(2)}`);
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const cpuMedian = median(cpu);
console.log(`paired bootstrap, ${RESAMPLES} resamples x ${N} items, ${PAIRS} pairs:`);
console.log(
  `  wall per pair: median ${median(wall).toFixed(0)} ms (min ${Math.min(...wall).toFixed(0)}, max ${Math.max(...wall).toFixed(0)})`,
);
console.log(`  CPU per pair:  median ${cpuMedian.toFixed(0)} ms  target < ${TARGET_MS} ms  ${cpuMedian < TARGET_MS ? 'PASS' : 'FAIL'}`);

// Whole analysis: 3 systems on MemoryAgentBench-shaped runs (10 sources, judge votes, coverage).
const sources = [
  'ruler_qa1_197K',
  'ruler_qa2_421K',
  'longmemeval_s*',
  'eventqa_full',
  'icl_banking77_5900shot_balance',
  'recsys_redial_full',
  'infbench_sum_eng_shots2',
  'detective_qa',
  'factconsolidation_sh_262k',
  'factconsolidation_mh_262k',
];
const runs = ['RAW-RAG/local', 'Mem0', 'MemOS'].map((system, s) => ({
  dir: system,
  label: system,
  system,
  benchmark: 'memoryagentbench',
  setting: 'memoryagentbench/gpt-4o-mini',
  status: 'complete',
  notes: [],
  items: Array.from({ length: N }, (_, i) => {
    const votes = [0, 1, 2].map(() => (rand() < 0.5 - 0.05 * s ? 1 : 0));
    return {
      id: `q${i}`,
      score: votes.reduce((x, y) => x + y) / 3,
      type: sources[i % sources.length],
      coverage: rand() < 0.7,
      votes,
      episode: null,
      meta: null,
      error: null,
    };
  }),
}));
const c0 = process.cpuUsage();
const t0 = performance.now();
const report = analyse(runs, { resamples: RESAMPLES, seed: 0, allPairs: false });
const t = performance.now() - t0;
const c = process.cpuUsage(c0);
console.log(
  `full analysis (3 systems x ${N} items, ${RESAMPLES} resamples: leaderboard CIs for ${sources.length} sources + 4 competencies,` +
    ` 2 pairs, Cochran's Q, coverage x utilization): wall ${(t / 1000).toFixed(1)} s, CPU ${((c.user + c.system) / 1e6).toFixed(1)} s` +
    ` (overall ${report.families[0].leaderboard.map((r) => `${r.system} ${(100 * r.columns.overall.accuracy).toFixed(2)}`).join(', ')})`,
);

// Through the CLI (a child process, CPU time of the child from bash's `time`): run directories
// written as `rawrag run` writes them (judge votes, coverage), then `rawrag stats` on them.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'rawrag-bench-stats-'));
function writeRuns(root, systems, n, types, benchmark) {
  systems.forEach((system, s) => {
    const dir = join(root, `run${s}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'manifest.json'),
      // The first system is the paper's method, as rawrag's own manifests say (`reference`): each other one is paired with it.
      JSON.stringify({
        system,
        benchmark,
        setting: `${benchmark}/gpt-4o-mini`,
        status: 'complete',
        ...(s === 0 ? { reference: true } : {}),
      }),
    );
    const lines = Array.from({ length: n }, (_, i) => {
      const votes = [0, 1, 2].map(() => (rand() < 0.6 - 0.04 * s ? 1 : 0));
      return JSON.stringify({
        id: `q${i}`,
        score: votes.reduce((x, y) => x + y) / 3,
        judge: votes,
        type: types[i % types.length],
        coverage: rand() < 0.7,
      });
    });
    writeFileSync(join(dir, 'items.jsonl'), lines.join('\n') + '\n');
  });
}
function cliStats(root, extra = []) {
  const cmd = `TIMEFORMAT='%U %S %R'; time node ${JSON.stringify(join(ROOT, 'bin/rawrag.js'))} stats ${JSON.stringify(root)} --out ${JSON.stringify(join(root, 'out'))} ${extra.join(' ')} > /dev/null`;
  const r = spawnSync('bash', ['-c', cmd], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`rawrag stats failed: ${r.stderr}`);
  const [user, sys, real] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { cpu: user + sys, wall: real };
}
const cases = [
  {
    name: `1 pair x ${N} items (MemoryAgentBench sources, coverage + utilization)`,
    systems: ['RAW-RAG/local', 'Mem0'],
    n: N,
    types: sources,
    benchmark: 'memoryagentbench',
    target: 1.5,
  },
  {
    name: '5 systems x 3000 items (LoCoMo types, coverage + utilization)',
    systems: ['RAW-RAG/local', 'Mem0', 'MemOS', 'A-Mem', 'Zep'],
    n: 3000,
    types: ['single-hop', 'multi-hop', 'temporal', 'open-domain'],
    benchmark: 'locomo',
    target: 10,
  },
];
let failed = cpuMedian >= TARGET_MS;
try {
  for (const c of cases) {
    const root = join(work, c.name.replace(/[^a-z0-9]+/gi, '-'));
    writeRuns(root, c.systems, c.n, c.types, c.benchmark);
    const t = cliStats(root);
    const ok = t.cpu < c.target;
    failed ||= !ok;
    console.log(
      `rawrag stats, ${c.name}, ${RESAMPLES} resamples: CPU ${t.cpu.toFixed(2)} s, wall ${t.wall.toFixed(2)} s  target < ${c.target} s CPU  ${ok ? 'PASS' : 'FAIL'}`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed) process.exitCode = 1;
