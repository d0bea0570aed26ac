import { Command, Option } from 'commander';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { listBenchmarks } from '../../datasets/registry.js';
import { DEFAULT_RESAMPLES } from '../../stats/bootstrap.js';
import { analyse, estimateDraws } from '../../stats/compute-tables.js';
import { loadRun, scanRunDirs } from '../../stats/load.js';
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
import { writeFileAtomic, writeJsonAtomic } from '../../util/fsx.js';
import { integer, positiveInt } from '../options.js';
import { writeReport } from '../../report/index.js';

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
        const runs = runDirs.map(loadRun);
        const benchmarks = listBenchmarks();
        const progress = statsProgress(estimateDraws(runs, { resamples: opts.resamples, allPairs: Boolean(opts.allPairs) }));
        let report;
        try {
          report = analyse(runs, {
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
        const markdown = renderReport(report);
        writeFileAtomic(join(out, 'leaderboard.md'), markdown + '\n');
        writeFileAtomic(join(out, 'leaderboard.csv'), leaderboardCsv(report));
        writeFileAtomic(join(out, 'pairwise.csv'), pairwiseCsv(report));
        writeFileAtomic(join(out, 'omnibus.csv'), omnibusCsv(report));
        writeFileAtomic(join(out, 'coverage.csv'), coverageCsv(report));
        writeFileAtomic(join(out, 'coverage-pairwise.csv'), coveragePairwiseCsv(report));
        writeFileAtomic(join(out, 'agreement.csv'), agreementCsv(report));
        writeJsonAtomic(join(out, 'stats.json'), report);
        if (opts.report) await writeReport(dirs, join(out, 'report.html'), { stats: { report, source: join(out, 'stats.json') } });
        process.stdout.write(opts.json ? JSON.stringify(report, null, 2) + '\n' : `${markdown}\nwritten: ${out}\n`);
      },
    );
}
