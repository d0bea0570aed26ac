import { Command } from 'commander';
import { executeRun } from '../../run/runner.js';
import { addBenchmarkOptions, addMethodOptions, addTransportOptions, configFromFlags, transportFromFlags } from '../options.js';
import { dryRun } from '../../eval/estimate.js';
import { progressBar } from '../progress.js';
import { renderRunReport } from '../report.js';
import { listBenchmarks } from '../../datasets/registry.js';
import { renderBatched, runBatched } from './batch.js';

export function runCommand(): Command {
  const cmd = new Command('run')
    .description('Run RAW-RAG on a benchmark: ingest, retrieve, assemble (and read + judge when a reader is set)')
    .argument('[benchmark]', `benchmark: ${listBenchmarks().map((b) => b.name).join(' | ')} (default locomo)`);
  addMethodOptions(cmd);
  addBenchmarkOptions(cmd);
  addTransportOptions(cmd);
  cmd
    .option('--out <dir>', 'run directory (default results/<run-id>); an existing one is resumed')
    .option('--retry-errors', 'in an existing run directory, redo the items that failed')
    .option('--no-progress', 'no progress bar')
    .option('--json', 'print summary.json instead of the table')
    .option('--batch', "send reader and judge requests as Batch API jobs (half price, up to 24 h; see docs/models.md)")
    .option('--no-wait', 'with --batch: exit once the batch jobs are submitted; run the same command again to go on')
    .action(async (benchmark: string | undefined, _opts: unknown, command: Command) => {
      const cfg = configFromFlags(command, benchmark);
      const opts = command.opts();
      const transport = transportFromFlags(command);
      if (opts.dryRun) {
        process.stdout.write((await dryRun(cfg, transport, { batch: Boolean(opts.batch) })) + '\n');
        return;
      }
      const bar = progressBar(cfg.benchmark, opts.progress !== false);
      const request = { cfg, out: (opts.out as string | undefined) ?? null, retryErrors: Boolean(opts.retryErrors), transport };
      const hooks = {
        log: (line: string) => {
          bar.stop();
          process.stderr.write(line + '\n');
        },
        progress: (done: number, total: number) => bar.update(done, total),
      };
      if (opts.batch) {
        const b = await runBatched(request, hooks, { wait: opts.wait !== false });
        bar.stop();
        const resume = `rawrag ${process.argv.slice(2).filter((a) => a !== '--retry-errors').join(' ')}`;
        const report = b.outcome ? (opts.json ? JSON.stringify(b.outcome.summary, null, 2) : renderRunReport(b.outcome)) : '';
        process.stdout.write(report + (opts.json && b.outcome ? '' : renderBatched(b, resume)) + '\n');
        return;
      }
      const outcome = await executeRun(request, hooks);
      bar.stop();
      process.stdout.write((opts.json ? JSON.stringify(outcome.summary, null, 2) : renderRunReport(outcome)) + '\n');
    });
  return cmd;
}
