import { printOut } from '../../util/stdout.js';
import { Command, Option } from 'commander';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { listBenchmarks } from '../../benchmarks/registry.js';
import { DEFAULT_RESAMPLES } from '../../stats/bootstrap.js';
import { analyseYielding, estimateDraws } from '../../stats/compute-tables.js';
import { loadRun, scanRunDirs, type LoadedRun } from '../../stats/load.js';
import { yieldToEventLoop } from '../../util/yield.js';
import { efficiencyRow, renderEfficiency, type EfficiencyRow } from '../../stats/efficiency.js';
import { statsProgress } from '../../stats/progress.js';
import {
  agreementCsv,
  coverageCsv,
  coveragePairwiseCsv,
  leaderboardCsv,
  omnibusCsv,
  pairwiseCsv,
  renderReport,
} from '../../stats/render.js';
import { InputError } from '../../util/errors.js';
import { writeOutputs } from '../../util/output-set.js';
import { integer, positiveInt } from '../options.js';
import { writeReport } from '../../report/index.js';
import { compareJudges } from '../../stats/judge-comparison.js';
import { isCalibrationDir, readCalibration, renderCalibrationSection } from '../../calibrate/collect.js';
import { judgeComparisonCsv, renderJudgeComparisons } from '../../stats/judge-comparison-render.js';
import { wrapProse } from '../../util/text.js';

export function statsCommand(): Command {
  return new Command('stats')
    .description(
      'Leaderboards and significance tests over run directories (rawrag runs and external systems), ' +
        'grouped by benchmark and setting and paired by question id',
    )
    .argument('<dir...>', 'run directories, or folders holding them at any depth')
    .option('--out <dir>', 'where to write the tables (default <first DIR>/stats/)')
    .addOption(new Option('--baseline <system>', 'reference system for pairwise tests (default: the RAW-RAG run)').conflicts('allPairs'))
    .option('--all-pairs', 'compare every pair of systems instead of each against the baseline')
    .option('--resamples <n>', 'bootstrap resamples', positiveInt, DEFAULT_RESAMPLES)
    .option('--seed <n>', 'bootstrap seed', integer, 0)
    .option('--json', 'print stats.json instead of the Markdown report')
    .option('--no-report', 'do not write report.html (the HTML report) beside the tables')
    .action(
      async (
        dirs: string[],
        opts: { out?: string; baseline?: string; allPairs?: boolean; resamples: number; seed: number; json?: boolean; report: boolean },
      ) => {
        const { dirs: runDirs, skipped } = scanRunDirs(dirs);
        if (runDirs.length === 0) {
          const why = skipped.length ? ` (skipped: ${skipped.map((s) => `${s.dir}: ${s.reason}`).join('; ')})` : '';
          throw new InputError(`no run directory (a folder with manifest.json) found${why}`, { file: dirs.join(', ') });
        }
        // Judge calibrations (rawrag calibrate-judge) are shown as such, not as systems in a leaderboard.
        const calibrations = runDirs.filter(isCalibrationDir).map(readCalibration);
        const runs: LoadedRun[] = [];
        for (const d of runDirs.filter((x) => !isCalibrationDir(x))) {
          runs.push(loadRun(d));
          await yieldToEventLoop(); // Ctrl-C is seen between runs (each a file to read and check)
        }
        const benchmarks = listBenchmarks();
        const progress = statsProgress(estimateDraws(runs, { resamples: opts.resamples, allPairs: Boolean(opts.allPairs) }));
        let report;
        try {
          report = await analyseYielding(runs, {
            resamples: opts.resamples,
            seed: opts.seed,
            baseline: opts.baseline,
            allPairs: Boolean(opts.allPairs),
            typeOrder: (name) => benchmarks.find((b) => b.name === name.toLowerCase())?.typeOrder ?? [],
            aggregation: (name) => benchmarks.find((b) => b.name === name.toLowerCase())?.aggregation,
            skipped,
            onProgress: progress.update,
          });
        } finally {
          progress.stop();
        }
        const out = resolve(opts.out ?? join(dirs[0]!, 'stats'));
        mkdirSync(out, { recursive: true });
        // Judge vs judge: a run and its re-judged copy (rawrag judge --rejudge) in one benchmark-setting.
        const judgeComparison = compareJudges(runs, (name) => benchmarks.find((b) => b.name === name.toLowerCase())?.aggregation);
        // The runs the tables used: a duplicate (same config hash) is skipped here as in the leaderboard.
        const used = new Set(report.runs.map((r) => r.dir));
        const efficiency = runs
          .filter((r) => used.has(r.label))
          .map((r) => efficiencyRow(r.dir))
          .filter((r): r is EfficiencyRow => r !== null)
          .sort((a, b) => a.benchmark.localeCompare(b.benchmark) || a.system.localeCompare(b.system));
        const markdown = [
          renderReport(report),
          renderEfficiency(efficiency),
          renderJudgeComparisons(judgeComparison),
          renderCalibrationSection(calibrations),
        ]
          .filter(Boolean)
          .join('\n\n');
        const extra = {
          ...(judgeComparison.length ? { judge_comparison: judgeComparison } : {}),
          ...(calibrations.length ? { judge_calibration: calibrations.map((c) => ({ dir: c.label, ...c.figures })) } : {}),
        };
        const json = { ...report, efficiency, ...extra };
        // The tables, stats.json and report.html land together or not at all (src/util/output-set.ts).
        await writeOutputs(async (set) => {
          set.stage(join(out, 'leaderboard.md'), markdown + '\n');
          set.stage(join(out, 'leaderboard.csv'), leaderboardCsv(report));
          set.stage(join(out, 'pairwise.csv'), pairwiseCsv(report));
          set.stage(join(out, 'omnibus.csv'), omnibusCsv(report));
          set.stage(join(out, 'coverage.csv'), coverageCsv(report));
          set.stage(join(out, 'coverage-pairwise.csv'), coveragePairwiseCsv(report));
          set.stage(join(out, 'agreement.csv'), agreementCsv(report));
          if (judgeComparison.length) set.stage(join(out, 'judges.csv'), judgeComparisonCsv(judgeComparison));
          else set.retire(join(out, 'judges.csv')); // an older comparison must not stand beside these tables
          set.stage(join(out, 'stats.json'), JSON.stringify(json, null, 2) + '\n');
          if (opts.report)
            await writeReport(dirs, join(out, 'report.html'), { stats: { report, source: join(out, 'stats.json') }, outputs: set });
        });
        // On the terminal the prose is wrapped at 160 columns; leaderboard.md keeps each paragraph one line.
        printOut(opts.json ? JSON.stringify(json, null, 2) + '\n' : `${wrapProse(markdown)}\nwritten: ${out}\n`);
      },
    );
}
