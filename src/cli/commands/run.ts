import { Command } from 'commander';
import { executeRun } from '../../run/runner.js';
import { addBenchmarkOptions, addMethodOptions, addTransportOptions, configFromFlags, transportFromFlags } from '../options.js';
import { dryRun } from '../../eval/estimate.js';
import { progressBar } from '../progress.js';
import { renderRunReport } from '../report.js';
import { listBenchmarks } from '../../datasets/registry.js';

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
    .option('--no-progress', 'no progress bar (default: a bar on a terminal, a line every ~10 s otherwise)')
    .option('--verbose', 'print every data warning (default: one summary line)')
    .option('--json', 'print summary.json instead of the table')
    .action(async (benchmark: string | undefined, _opts: unknown, command: Command) => {
      const cfg = configFromFlags(command, benchmark);
      const opts = command.opts();
      const transport = transportFromFlags(command);
      if (opts.dryRun) {
        process.stdout.write((await dryRun(cfg, transport)) + '\n');
        return;
      }
      const bar = progressBar(cfg.benchmark, opts.progress !== false);
      const outcome = await executeRun(
        { cfg, out: (opts.out as string | undefined) ?? null, retryErrors: Boolean(opts.retryErrors), verbose: Boolean(opts.verbose), transport },
        {
          log: (line) => {
            bar.stop();
            process.stderr.write(line + '\n');
          },
          progress: (done, total, info) => bar.update(done, total, info),
        },
      );
      bar.stop();
      process.stdout.write((opts.json ? JSON.stringify(outcome.summary, null, 2) : renderRunReport(outcome)) + '\n');
    });
  return cmd;
}
