/** `rawrag judge ANSWERS.jsonl --benchmark B`: another system's answers, judged exactly as `rawrag run` judges. */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { executeRun } from '../../pipeline/run.js';
import { estimateJudge, judgeComposition, judgeRunId, readAnswers } from '../../pipeline/judge-answers.js';
import { listBenchmarks } from '../../datasets/registry.js';
import { fromRoot } from '../../util/paths.js';
import { watchInterrupts } from '../../util/interrupt.js';
import { checkErrorRate } from '../exit.js';
import { addBenchmarkOptions, addTransportOptions, positiveInt, withOfficialJudge, transportFromFlags } from '../options.js';
import { RunConfigSchema } from '../../systems/registry.js';
import { mergeLayers, readConfigFile, resolveConfig, type PartialConfig } from '../../config/load.js';
import type { RunConfig } from '../../config/schema.js';
import { progressBar } from '../progress.js';
import { renderRunReport } from '../report.js';
import { rate } from './run.js';

export function judgeCommand(): Command {
  const cmd = new Command('judge')
    .description("Judge another system's answers with a benchmark's official judge and metrics, into a stats-ready run directory")
    .argument(
      '<answers>',
      'JSON lines {"id", "answer", "evidence"?}: ids as rawrag names questions (items.jsonl), evidence = turn ids shown to your reader (for coverage)',
    )
    .requiredOption(
      '--benchmark <name>',
      `benchmark: ${listBenchmarks()
        .map((b) => b.name)
        .join(' | ')}`,
    )
    .option('--system <name>', "your system's name in the manifest and in `rawrag stats` (default external)", 'external')
    .option(
      '--setting <name>',
      'the benchmark-setting `rawrag stats` groups by (default <benchmark>/<system>; e.g. locomo/gpt-4o-mini to sit beside RAW-RAG read by gpt-4o-mini)',
    )
    .option('-c, --config <file>', 'config file (JSON or YAML): data, options, judge; flags override it')
    .option('--data <path>', "data file or folder in the benchmark's official format (default: the bundled copy)")
    .option('--judge <model>', "judge model (default: the benchmark's official judge, else gpt-4o-mini)")
    .option('--judge-runs <n>', 'judge runs per answer, averaged (default 3)', positiveInt);
  addBenchmarkOptions(cmd);
  addTransportOptions(cmd);
  cmd
    .option('--out <dir>', 'run directory (default results/judge-<benchmark>-<system>-<hash>); an existing one is resumed')
    .option('--retry-errors', 'in an existing run directory, redo the items that failed')
    .option(
      '--force-resume',
      'resume a run directory although its identity differs (answers file, data, version); recorded in the manifest',
    )
    .option('--max-error-rate <r>', 'share of failed items (0-1) above which the exit code is 4 (default 0: any failed item)', rate)
    .option('--no-progress', 'no progress bar (default: a bar on a terminal, a line every ~10 s otherwise)')
    .option('--verbose', 'print every data warning (default: one summary line)')
    .option('--json', 'print summary.json instead of the table')
    .action(async (answersPath: string, _opts: unknown, command: Command) => {
      const opts = command.opts();
      const answers = readAnswers(answersPath);
      // The answered questions are the selection, exactly as --ids would select them (unknown ids: an input error).
      const cfg = { ...judgeConfig(command), ids: resolve(answersPath) };
      const transport = transportFromFlags(command);
      if (opts.dryRun) {
        process.stdout.write((await estimateJudge(cfg, answers, transport)) + '\n');
        return;
      }
      const system = opts.system as string;
      const runId = judgeRunId(cfg, answers, system);
      const out = (opts.out as string | undefined) ?? fromRoot('results', runId);
      const setting = (opts.setting as string | undefined) ?? `${cfg.benchmark}/${system}`;
      const bar = progressBar(`judge ${cfg.benchmark}`, opts.progress !== false);
      const interrupts = watchInterrupts(
        () => bar.stop(),
        () => bar.stop(),
      );
      try {
        const outcome = await executeRun(
          {
            cfg,
            out,
            retryErrors: Boolean(opts.retryErrors),
            forceResume: Boolean(opts.forceResume),
            verbose: Boolean(opts.verbose),
            transport,
            compose: judgeComposition(answers, { system, setting, runId }),
          },
          {
            log: (line) => {
              bar.stop();
              process.stderr.write(line + '\n');
            },
            progress: (done, total, info) => bar.update(done, total, info),
            signal: interrupts.signal,
          },
        );
        bar.stop();
        process.stdout.write((opts.json ? JSON.stringify(outcome.summary, null, 2) : renderRunReport(outcome)) + '\n');
        checkErrorRate(outcome.summary, outcome.dir, opts.maxErrorRate as number | undefined);
      } finally {
        bar.stop();
        interrupts.dispose();
      }
    });
  return cmd;
}

/**
 * The run config a judgement records: benchmark, data, the benchmark's options and the judge; no
 * retrieval or reader flags (the answers bring their own). `--system` names the answers' system
 * here, not the system `run` puts under test, so it is not a config value.
 */
function judgeConfig(cmd: Command): RunConfig {
  const opts = cmd.opts();
  const given = (key: string) => cmd.getOptionValueSource(key) === 'cli';
  const flags: PartialConfig = { benchmark: String(opts.benchmark).toLowerCase() };
  if (given('data')) flags.data = opts.data;
  const judge: PartialConfig = {};
  if (given('judge')) judge.model = opts.judge;
  if (given('judgeRuns')) judge.runs = opts.judgeRuns;
  if (Object.keys(judge).length) flags.judge = judge;
  const benchOpts: Record<string, string> = {};
  for (const b of listBenchmarks()) for (const o of b.options) if (given(o.key)) benchOpts[o.key] = String(opts[o.key]);
  if (Object.keys(benchOpts).length) flags.options = benchOpts;
  const file = opts.config ? readConfigFile(opts.config as string) : {};
  return withOfficialJudge(
    resolveConfig(mergeLayers(file, flags), opts.config ? (opts.config as string) : 'command line', RunConfigSchema),
  );
}
