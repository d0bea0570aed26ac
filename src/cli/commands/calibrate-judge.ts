/** `rawrag calibrate-judge BENCHMARK`: how lenient the benchmark's judge is, on answers whose truth is known. */
import { printOut } from '../../util/stdout.js';
import { RunConfigSchema } from '../../systems/registry.js';
import { Command } from 'commander';
import { listBenchmarks } from '../../benchmarks/registry.js';
import { mergeLayers, readConfigFile, resolveConfig, type PartialConfig } from '../../config/load.js';
import type { RunConfig } from '../../config/schema.js';
import { resolveJudgePrompt } from '../../reader-judge/judge-prompt.js';
import { estimateJudge } from '../../pipeline/judge-answers.js';
import { executeRun, type RunHooks, type RunOutcome } from '../../pipeline/run.js';
import { fromRoot } from '../../util/paths.js';
import { watchInterrupts } from '../../util/interrupt.js';
import { finishCalibration, planCalibration } from '../../calibrate/run.js';
import { renderCalibration } from '../../calibrate/render.js';
import { checkErrorRate, retryCommand } from '../exit.js';
import { givenBenchmarkOptions } from '../benchmark-options.js';
import { runModelPreflight } from '../preflight.js';
import { addBenchmarkOptionFlag, addTransportOptions, integer, positiveInt, transportFromFlags, withOfficialJudge } from '../options.js';
import { progressBar } from '../progress.js';
import { rate } from './run.js';
import { runBatched } from '../../pipeline/batched.js';
import { renderBatched } from './batch.js';
import { capJudge, checkCostCap, maxCostOf } from '../cost-cap.js';

export function calibrateJudgeCommand(): Command {
  const cmd = new Command('calibrate-judge')
    .description(
      "How far a benchmark's judge can be trusted: its verdicts on the gold answers, on rule-based wrong answers (specific-but-wrong, vague-but-topical) and on your labelled answers, judged exactly as `rawrag run` judges",
    )
    .argument(
      '<benchmark>',
      `benchmark: ${listBenchmarks()
        .map((b) => b.name)
        .join(' | ')}`,
    )
    .option('-c, --config <file>', 'config file (JSON or YAML): data, options, judge; flags override it')
    .option('--data <path>', "data file or folder in the benchmark's official format (default: the bundled copy)")
    .option('--judge-model <model>', "judge model (default: the benchmark's official judge, else gpt-4o-mini)")
    .option('--judge-runs <n>', 'judge runs per answer (default 3); an answer is accepted when most runs accept it', positiveInt)
    .option(
      '--judge-prompt <file>',
      "another judge prompt, or `strict` (rawrag's own strict prompt): calibrate it instead of the official one",
    )
    .option('--limit <n>', 'calibrate on the first N questions (default: all)', positiveInt)
    .option('--seed <n>', 'seed of the perturbations (default 0)', integer)
    .option('--labels <file>', 'your labelled answers: JSON lines {"id", "answer", "label": "CORRECT" | "WRONG"}');
  addBenchmarkOptionFlag(cmd);
  addTransportOptions(cmd);
  cmd
    .option('--out <dir>', 'run directory (default results/calibrate-<benchmark>-<judge>-<hash>); an existing one is resumed')
    .option('--retry-errors', 'in an existing run directory, redo the probes that failed')
    .option('--force-resume', 'resume a run directory although its identity differs')
    .option('--max-error-rate <r>', 'share of failed probes (0-1) above which the exit code is 4 (default 0)', rate)
    .option('--batch', 'send the judge requests as Batch API jobs (half price, up to 24 h)')
    .option('--no-wait', 'with --batch: exit once the batch jobs are submitted; run the same command again to go on')
    .option('--no-progress', 'no progress bar')
    .option('--verbose', 'print every data warning (default: one summary line)')
    .option('--json', 'print the calibration figures as JSON')
    .action(async (benchmark: string, _opts: unknown, command: Command) => {
      const opts = command.opts();
      const cfg = calibrateConfig(command, benchmark);
      const plan = await planCalibration(cfg, (opts.labels as string | undefined) ?? null);
      const maxCost = maxCostOf(command);
      let transport = transportFromFlags(command);
      const left = plan.outsideHeadline ? ` (${plan.outsideHeadline} selected questions outside the headline left out)` : '';
      if (opts.dryRun) {
        const what = `calibrate the judge on ${plan.probes.length} probes${left}`;
        printOut((await estimateJudge(cfg, plan.answers, transport, { questions: plan.questions, what })) + '\n');
        return;
      }
      const out = (opts.out as string | undefined) ?? fromRoot('results', plan.compose.runId);
      // The judge model's name, key and endpoint, before the first paid request (src/preflight/).
      await runModelPreflight(command, [{ role: 'judge', name: cfg.judge.model! }], transport, (line) => process.stderr.write(line + '\n'));
      if (maxCost !== null)
        transport = await capJudge(cfg, plan.answers, transport, {
          usd: maxCost,
          out,
          retryErrors: Boolean(opts.retryErrors),
          questions: plan.questions,
        });
      const bar = progressBar(`calibrate ${cfg.benchmark}`, opts.progress !== false);
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
          compose: plan.compose,
        };
        const hooks: RunHooks = {
          log: (line) => {
            bar.stop();
            process.stderr.write(line + '\n');
          },
          progress: (done, total, info) => bar.update(done, total, info),
          signal: interrupts.signal,
        };
        if (left) hooks.log(`note: calibrating on the headline questions only${left}`);
        let outcome: RunOutcome;
        if (opts.batch) {
          // Only the judge sends requests: its model is the one batched.
          const b = await runBatched(request, hooks, { wait: opts.wait !== false, models: [['judge', cfg.judge.model!]] });
          bar.stop();
          if (!b.outcome) {
            printOut(renderBatched(b, `${retryCommand(process.argv)} --out ${b.dir}`) + '\n');
            return;
          }
          outcome = b.outcome;
        } else outcome = await executeRun(request, hooks);
        bar.stop();
        const figures = finishCalibration(outcome.dir, cfg, plan, outcome.summary);
        printOut((opts.json ? JSON.stringify(figures, null, 2) : `${renderCalibration(figures)}\nrun directory: ${outcome.dir}`) + '\n');
        checkCostCap(outcome.manifest.status, transport, outcome.dir);
        checkErrorRate(outcome.summary, outcome.dir, opts.maxErrorRate as number | undefined);
      } finally {
        bar.stop();
        interrupts.dispose();
      }
    });
  return cmd;
}

/** The config a calibration records: benchmark, data, options, selection, seed and the judge; no retrieval or reader. */
function calibrateConfig(cmd: Command, benchmark: string): RunConfig {
  const opts = cmd.opts();
  const given = (key: string) => cmd.getOptionValueSource(key) === 'cli';
  const name = benchmark.toLowerCase();
  const flags: PartialConfig = { benchmark: name };
  if (given('data')) flags.data = opts.data;
  if (given('limit')) flags.limit = opts.limit;
  if (given('seed')) flags.seed = opts.seed;
  const judge: PartialConfig = {};
  if (given('judgeModel')) judge.model = opts.judgeModel;
  if (given('judgeRuns')) judge.runs = opts.judgeRuns;
  if (given('judgePrompt')) {
    const prompt = resolveJudgePrompt(opts.judgePrompt as string, name);
    if (prompt) judge.prompt = prompt;
  }
  if (Object.keys(judge).length) flags.judge = judge;
  const benchOpts = givenBenchmarkOptions(
    (opts.benchmarkOption as string[] | undefined) ?? [],
    listBenchmarks().find((b) => b.name === name),
    listBenchmarks(),
  );
  if (Object.keys(benchOpts).length) flags.options = benchOpts;
  const file = opts.config ? readConfigFile(opts.config as string) : {};
  return withOfficialJudge(
    resolveConfig(mergeLayers(file, flags), opts.config ? (opts.config as string) : 'command line', RunConfigSchema),
  );
}
