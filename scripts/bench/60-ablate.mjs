// `rawrag ablate` economy: the offline LoCoMo sweep k in {1,5,10,15,30,60,120} (7 variants, one
// window size) against ONE offline run of the reference, both in this process after a warm-up
// (tokenizer and retriever loaded once, as a CLI process would). The ablation's time includes
// the paired bootstrap, the table, CSV and SVG. Target: ablation < 3 x single run (wall time).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dist = (p) => join(ROOT, 'dist', p);
const { RunConfigSchema } = await import(dist('systems/registry.js'));
const { getBenchmark } = await import(dist('benchmarks/registry.js'));
const { executeRun } = await import(dist('pipeline/run.js'));
const { effectivePolicy } = await import(dist('pipeline/plan.js'));
const { planVariants } = await import(dist('ablate/variants.js'));
const { runAblation } = await import(dist('ablate/engine.js'));
const { analyseAblation } = await import(dist('ablate/paired-table.js'));
const { writeAblation } = await import(dist('ablate/output.js'));

const TARGET_RATIO = 3;
const KS = [1, 5, 10, 15, 30, 60, 120];
const work = mkdtempSync(join(tmpdir(), 'rawrag-bench-ablate-'));
const quiet = { log() {} };
const cfg = RunConfigSchema.parse({ benchmark: 'locomo' });
const benchmark = getBenchmark('locomo');

async function timed(fn) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const cpu = process.cpuUsage(cpu0);
  return { value, wall: (performance.now() - t0) / 1000, cpu: (cpu.user + cpu.system) / 1e6 };
}

try {
  // Warm-up: load the tokenizer and the embedded retriever's resources once.
  await executeRun({ cfg: { ...cfg, limit: 5 }, out: join(work, 'warm') }, quiet);

  const single = await timed(() => executeRun({ cfg, out: join(work, 'run') }, quiet));
  const variants = planVariants(cfg, effectivePolicy(benchmark, cfg), {
    k: KS,
    window: [],
    stride: null,
    candidates: [],
    noRerank: false,
    noExpand: false,
  });
  const ablation = await timed(async () => {
    const outcome = await runAblation({ base: cfg, variants, out: join(work, 'ablation') }, quiet);
    const table = analyseAblation(outcome.variants, { resamples: 20_000, seed: 0 });
    writeAblation(outcome, table, { png: false });
    return { outcome, table };
  });
  const { outcome, table } = ablation.value;

  console.log(`single offline run (k=15, 1,540 questions): wall ${single.wall.toFixed(2)} s, cpu ${single.cpu.toFixed(2)} s`);
  console.log(
    `ablation k in {${KS.join(',')}} (${variants.length} variants, incl. bootstrap + table + SVG): wall ${ablation.wall.toFixed(2)} s, cpu ${ablation.cpu.toFixed(2)} s`,
  );
  console.log(
    `  shared work: ${outcome.work.indexBuilds} index builds, ${outcome.work.searches} first-stage searches (a single run: 10 and 1,540)`,
  );
  console.log(
    `  coverage by k: ${table.rows
      .slice()
      .sort((a, b) => a.k - b.k)
      .map((r) => `k=${r.k} ${(100 * r.coverage).toFixed(2)}%`)
      .join(', ')}`,
  );
  const ratio = ablation.wall / single.wall;
  const cpuRatio = ablation.cpu / single.cpu;
  const ok = ratio < TARGET_RATIO;
  console.log(
    `ablation / single run: wall ${ratio.toFixed(2)}x, cpu ${cpuRatio.toFixed(2)}x (target < ${TARGET_RATIO}x wall): ${ok ? 'PASS' : 'FAIL'}`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
