/**
 * What a report is made of, read from the paths the user gives: run directories (manifest.json,
 * items.jsonl, summary.json), `rawrag stats` outputs (stats.json) and `rawrag ablate` outputs
 * (ablation.json). Statistics come from src/stats: a stats.json found is used as written,
 * otherwise the runs are analysed here with the same code `rawrag stats` uses.
 */
import { readRun } from '../run-files/record.js';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { getBenchmark, listBenchmarks } from '../benchmarks/registry.js';
import type { Dataset } from '../core/schema.js';
import type { RunConfig } from '../config/schema.js';
import { loadDataset } from '../pipeline/plan.js';
import { analyseYielding, type StatsReport } from '../stats/compute-tables.js';
import { findRunDirs, loadRun, type LoadedRun } from '../stats/load.js';
import { InputError } from '../util/errors.js';
import { calibrationLine, isCalibrationDir, readCalibration } from '../calibrate/collect.js';
import { readJsonFile } from '../util/fsx.js';
import { yieldToEventLoop } from '../util/yield.js';

/** Bootstrap settings when the report computes the statistics itself (no stats.json given). */
export const REPORT_RESAMPLES = 10_000;

export interface RunInput {
  dir: string;
  label: string;
  loaded: LoadedRun;
  manifest: Record<string, unknown>;
  summary: Record<string, unknown> | null;
  /** items.jsonl lines as written (rawrag's ItemRecord, or an external system's minimal lines); last line per id. */
  items: Array<Record<string, unknown>>;
}

export interface AblationInput {
  dir: string;
  label: string;
  data: Record<string, unknown>;
}

export interface ReportInputs {
  runs: RunInput[];
  stats: StatsReport;
  /** Where the statistics came from: a stats.json path, or how they were computed. */
  statsSource: string;
  ablations: AblationInput[];
  /** The benchmark data each run was made from, for the evidence text (null when it cannot be read). */
  datasets: Map<RunInput, Dataset | null>;
  notes: string[];
}

export interface CollectOptions {
  /** Statistics already computed (by `rawrag stats`): used instead of reading or computing them. */
  stats?: { report: StatsReport; source: string };
  /** Ablation outputs a command is writing now (`rawrag ablate`): used in place of the ablation.json in the same folder. */
  ablations?: Array<{ dir: string; data: Record<string, unknown> }>;
  /**
   * Benchmark data loaded by an earlier call, kept by the caller (`rawrag view` collects the same
   * folder again and again): key -> the data, or why it could not be read.
   */
  datasets?: Map<string, Promise<{ dataset: Dataset | null; error: string | null }>>;
}

export async function collectInputs(paths: string[], opts: CollectOptions = {}): Promise<ReportInputs> {
  const notes: string[] = [];
  const allDirs = findRunDirs(paths);
  // Judge calibrations are not systems: a note each (its figures), not a leaderboard row.
  for (const d of allDirs.filter(isCalibrationDir)) notes.push(calibrationLine(readCalibration(d)));
  const runDirs = allDirs.filter((d) => !isCalibrationDir(d));
  const runs: RunInput[] = [];
  for (const d of runDirs) {
    runs.push(readRunInput(d));
    await yieldToEventLoop(); // Ctrl-C is seen between runs
  }
  const statsFiles = findFiles(paths, 'stats.json');
  const fresh = new Map((opts.ablations ?? []).map((a) => [resolve(a.dir), a.data]));
  const ablations = [...new Set([...findFiles(paths, 'ablation.json').map((file) => resolve(join(file, '..'))), ...fresh.keys()])]
    .map((dir) => {
      const data = fresh.get(dir) ?? (readJsonFile(join(dir, 'ablation.json')) as Record<string, unknown>);
      return data && data.format === 'rawrag.ablation/1' ? { dir, label: relative(process.cwd(), dir) || '.', data } : null;
    })
    .filter((a): a is AblationInput => a !== null);
  if (runs.length === 0 && statsFiles.length === 0 && ablations.length === 0 && notes.length === 0) {
    throw new InputError('nothing to report: no run directory (manifest.json), stats.json or ablation.json found', {
      file: paths.join(', '),
    });
  }

  let stats: StatsReport;
  let statsSource: string;
  // A stats.json is used only when it covers every run found (same system, setting and item count):
  // an older one, written before more runs arrived, would contradict the explorer.
  const covers = (r: StatsReport) =>
    runs.every((run) =>
      r.runs.some((x) => x.system === run.loaded.system && x.setting === run.loaded.setting && x.items === run.loaded.items.length),
    );
  const found = statsFiles.map((f) => ({ f, r: readJsonFile(f) as StatsReport })).filter((x) => x.r && x.r.format === 'rawrag.stats/1');
  const written = found.filter((x) => covers(x.r));
  if (found.length > written.length)
    notes.push(`${found.length - written.length} stats.json file(s) ignored: they do not cover every run given (rerun rawrag stats)`);
  if (opts.stats) {
    stats = opts.stats.report;
    statsSource = opts.stats.source;
  } else if (written.length > 0) {
    stats = written[0]!.r;
    statsSource = relative(process.cwd(), written[0]!.f);
    if (written.length > 1) notes.push(`${written.length} stats.json files found; the report uses ${statsSource}`);
  } else {
    const benchmarks = listBenchmarks();
    stats = await analyseYielding(
      runs.map((r) => r.loaded),
      {
        resamples: REPORT_RESAMPLES,
        seed: 0,
        allPairs: false,
        typeOrder: (name) => benchmarks.find((b) => b.name === name.toLowerCase())?.typeOrder ?? [],
        aggregation: (name) => benchmarks.find((b) => b.name === name.toLowerCase())?.aggregation,
      },
    );
    statsSource = `computed by rawrag report from the runs (${REPORT_RESAMPLES} bootstrap resamples, seed 0; rawrag stats for more)`;
  }

  const datasets = new Map<RunInput, Dataset | null>();
  const noted = new Set<string>();
  const byKey = opts.datasets ?? new Map<string, Promise<{ dataset: Dataset | null; error: string | null }>>();
  for (const run of runs) {
    const cfg = run.manifest.config as RunConfig | undefined;
    if (!cfg || typeof cfg !== 'object' || typeof cfg.benchmark !== 'string') {
      datasets.set(run, null);
      continue;
    }
    const key = JSON.stringify([cfg.benchmark, cfg.data, cfg.options]);
    if (!byKey.has(key)) {
      byKey.set(
        key,
        Promise.resolve()
          .then(() => loadDataset(getBenchmark(cfg.benchmark), cfg))
          .then(
            (dataset) => ({ dataset, error: null }),
            (e: Error) => ({ dataset: null, error: e.message }),
          ),
      );
    }
    const { dataset, error } = await byKey.get(key)!;
    // Said once per data source, on the first run made from it.
    if (error !== null && !noted.has(key)) notes.push(`${run.label}: evidence text not shown (benchmark data not readable here: ${error})`);
    noted.add(key);
    datasets.set(run, dataset);
  }
  return { runs, stats, statsSource, ablations, datasets, notes };
}

function readRunInput(dir: string): RunInput {
  const loaded = loadRun(dir);
  // The files through the run record (src/run-files/record.ts): the manifest upgraded, every item field kept for the explorer.
  const run = readRun(dir);
  const manifest = run.manifest as Record<string, unknown>;
  const summary = run.summary as Record<string, unknown> | null;
  return { dir, label: loaded.label, loaded, manifest, summary, items: run.items as Array<Record<string, unknown>> };
}

/** Files of a given name at or below the paths (a path may also name the file itself), sorted. */
function findFiles(paths: string[], name: string): string[] {
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      if (entry === 'node_modules' || entry.startsWith('.')) continue;
      const child = join(dir, entry);
      const st = statSync(child);
      if (st.isDirectory()) walk(child);
      else if (entry === name) found.add(child);
    }
  };
  for (const p of paths) {
    const abs = resolve(p);
    if (existsSync(abs) && statSync(abs).isDirectory()) walk(abs);
  }
  return [...found].sort();
}
