import { printOut } from '../../util/stdout.js';
import { Command, InvalidArgumentError } from 'commander';
import { executeRun, type RunHooks } from '../../pipeline/run.js';
import {
  addMethodOptions,
  addReaderOptions,
  addNameOption,
  addTransportOptions,
  configFromFlags,
  positiveInt,
  transportFromFlags,
} from '../options.js';
import { dryRun } from '../../pipeline/estimate.js';
import { progressBar } from '../progress.js';
import { renderRunReport } from '../run-printout.js';
import { listBenchmarks } from '../../benchmarks/registry.js';
import { watchInterrupts } from '../../util/interrupt.js';
import { checkErrorRate, retryCommand } from '../exit.js';
import { renderBatched } from './batch.js';
import { runBatched } from '../../pipeline/batched.js';
import { systemOfRun } from '../../systems/registry.js';
import { capLine, capRun, checkCostCap, maxCostOf } from '../cost-cap.js';
import { isGrid, parseShard, runGrid } from '../run-grid.js';
import { firstTime } from '../notes-once.js';
import { addPreflightOptions, runPreflight, withPreflightFlags } from '../preflight.js';
import { recordedInvocation, resumeTargetOf } from '../../resume/target.js';
import { enterResume } from '../../resume/enter.js';
import { invocationFor } from '../../run-files/invocation.js';
import { runIdFor } from '../../pipeline/plan.js';
import { fromRoot } from '../../util/paths.js';

export function runCommand(): Command {
  const cmd = new Command('run')
    .description('Run a system (RAW-RAG by default) on a benchmark: ingest, find evidence (and read + judge when a reader is set)')
    .argument(
      '[benchmark]',
      `benchmark: ${listBenchmarks()
        .map((b) => b.name)
        .join(' | ')} (default locomo)`,
    );
  addMethodOptions(cmd);
  addReaderOptions(cmd);
  addTransportOptions(cmd);
  addNameOption(cmd);
  addPreflightOptions(cmd);
  cmd
    .option('--out <dir>', 'run directory (default results/<run-id>); an existing one is resumed')
    .option('--retry-errors', 'in an existing run directory, redo the items that failed')
    .option(
      '--force-resume',
      'resume a run directory although its identity differs (system, retriever, data, version); recorded in the manifest',
    )
    .option('--max-error-rate <r>', 'share of failed items (0-1) above which the exit code is 4 (default 0: any failed item)', rate)
    .option(
      '--cleanup',
      "at the run's end, delete what the system stored outside the run directory (a memory service's memories of this run); a later resume adds them again",
    )
    .option('--no-progress', 'no progress bar (default: a bar on a terminal, a line every ~10 s otherwise)')
    .option('--verbose', 'print every data warning (default: one summary line)')
    .option('--json', 'print summary.json instead of the table');
  cmd.optionsGroup('Batch API:');
  cmd
    .option('--batch', 'send reader and judge requests as Batch API jobs (half price, up to 24 h; see docs/models.md)')
    .option('--no-wait', 'with --batch: exit once the batch jobs are submitted; run the same command again to go on')
    .option('--batch-embeddings', 'with --batch: embed the windows and questions through batch jobs too (implies --batch)');
  cmd.optionsGroup('Grid (comma lists in the benchmark, --system, --retriever, --reader, or several --config):');
  cmd
    .option(
      '--shard <i/n>',
      "run only every N-th conversation (a grid: every N-th cell), starting with the I-th: one shard per machine, joined by rawrag merge (a grid's set folders merge by copying)",
    )
    .option('--parallel-cells <n>', 'a grid: cells run at once (default 4); they share one concurrency budget per provider', positiveInt);
  cmd.action(async (benchmark: string | undefined, _opts: unknown, command: Command) => {
    // `--out DIR` alone on a run or set folder: go on with what it recorded (as `rawrag resume DIR`).
    const resumed = resumeTargetOf(command, benchmark);
    if (resumed) process.stderr.write(enterResume(command, resumed) + '\n');
    // Comma lists (benchmarks, --reader, --system, --retriever) or several --config files: a grid of runs.
    if (resumed?.kind === 'grid' || (!resumed && isGrid(command, benchmark))) return runGrid(command, benchmark, resumed ?? null);
    const cfg = resumed?.kind === 'run' ? resumed.manifest.config : configFromFlags(command, benchmark);
    const opts = command.opts();
    const maxCost = maxCostOf(command);
    let transport = withPreflightFlags(command, transportFromFlags(command));
    if (opts.dryRun) {
      const capped = maxCost === null ? {} : { capLine: (e: number | null) => capLine(maxCost, e) };
      printOut((await dryRun(cfg, transport, { batch: Boolean(opts.batch), ...capped })) + '\n');
      return;
    }
    // --shard I/N on a single run: every N-th conversation (a default folder of its own per shard).
    const shard = parseShard(opts.shard as string | undefined);
    const out = (opts.out as string | undefined) ?? (shard ? shardDir(cfg, shard) : null);
    // Names, keys, endpoints and data, before the first paid request (src/preflight/).
    transport = await runPreflight(command, [{ cfg, label: null }], transport, (line) => process.stderr.write(line + '\n'));
    if (maxCost !== null) transport = await capRun(cfg, transport, { usd: maxCost, out, retryErrors: Boolean(opts.retryErrors) });
    const bar = progressBar(cfg.benchmark, opts.progress !== false);
    const interrupts = watchInterrupts(
      () => bar.stop(),
      () => bar.stop(),
    );
    try {
      const request = {
        cfg,
        out,
        retryErrors: Boolean(opts.retryErrors),
        forceResume: Boolean(opts.forceResume),
        verbose: Boolean(opts.verbose),
        transport,
        name: (opts.name as string | undefined) ?? null,
        shard,
        invocation: invocationFor(command, resumed ? recordedInvocation(resumed) : undefined),
      };
      const hooks: RunHooks = {
        log: (line: string) => {
          if (!firstTime(line)) return;
          bar.stop();
          process.stderr.write(line + '\n');
        },
        progress: (done, total, info) => bar.update(done, total, info),
        signal: interrupts.signal,
      };
      let outcome: Awaited<ReturnType<typeof executeRun>>;
      if (opts.batch || opts.batchEmbeddings) {
        const b = await runBatched(request, hooks, { wait: opts.wait !== false, embeddings: Boolean(opts.batchEmbeddings) });
        bar.stop();
        const report = b.outcome && !opts.json ? renderRunReport(b.outcome) : b.outcome ? JSON.stringify(b.outcome.summary, null, 2) : '';
        printOut(
          report +
            (opts.json && b.outcome ? '' : `${report ? '\n' : ''}${renderBatched(b, retryCommand(process.argv) + ` --out ${b.dir}`)}`) +
            '\n',
        );
        if (!b.outcome) return;
        outcome = b.outcome;
      } else {
        outcome = await executeRun(request, hooks);
        bar.stop();
        printOut((opts.json ? JSON.stringify(outcome.summary, null, 2) : renderRunReport(outcome)) + '\n');
      }
      if (opts.cleanup) process.stderr.write((await cleanUp(outcome.dir)) + '\n');
      checkCostCap(outcome.manifest.status, transport, outcome.dir);
      checkErrorRate(outcome.summary, outcome.dir, opts.maxErrorRate as number | undefined);
    } finally {
      bar.stop();
      interrupts.dispose();
    }
  });
  return cmd;
}

/** The default folder of a single run's shard: results/<run-id>-shard-I-of-N. */
function shardDir(cfg: Parameters<typeof runIdFor>[0], shard: { index: number; count: number }): string {
  return fromRoot('results', `${runIdFor(cfg)}-shard-${shard.index}-of-${shard.count}`);
}

/** `--cleanup`: the system's own clean-up (its store capability), or a line saying there is nothing to clean. */
async function cleanUp(dir: string): Promise<string> {
  const { system } = systemOfRun(dir);
  if (!system.store?.purgeAll) return `cleanup: ${system.name} keeps nothing outside the run directory`;
  return `cleanup: ${await system.store.purgeAll(dir)}`;
}

export function rate(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError(`'${value}' is not a rate between 0 and 1.`);
  return n;
}
