/** `rawrag judge ANSWERS.jsonl --benchmark B`: another system's answers, judged exactly as `rawrag run` judges. */
import { basename, join, resolve } from 'node:path';
import { judgeGrid } from '../judge-grid.js';
import { writeFileSync } from 'node:fs';
import { renderSweep, summariseSweep } from '../../pipeline/judge-sweep.js';
import { printOut } from '../../util/stdout.js';
import { Command } from 'commander';
import { InputError, UsageError } from '../../util/errors.js';
import { loadRunInputs } from '../../pipeline/plan.js';
import type { Question } from '../../core/schema.js';
import type { AnswersFile } from '../../pipeline/judge-answers.js';
import {
  changedOptions,
  checkRejudgeOut,
  readRunForRejudge,
  rejudgeConfig,
  rejudgeRunId,
  rejudgeSelection,
  rejudgeSetting,
} from '../../pipeline/rejudge.js';
import { resolveJudgePrompt } from '../../reader-judge/judge-prompt.js';
import { executeRun } from '../../pipeline/run.js';
import { estimateJudge, judgeComposition, judgeRunId, readAnswers } from '../../pipeline/judge-answers.js';
import { getBenchmark, listBenchmarks } from '../../benchmarks/registry.js';
import { judgeModelFor } from '../../core/protocol.js';
import { runModelPreflight } from '../preflight.js';
import type { ReachedEndpoints } from '../../preflight/reach.js';
import { fromRoot } from '../../util/paths.js';
import { watchInterrupts } from '../../util/interrupt.js';
import { checkErrorRate } from '../exit.js';
import {
  addBenchmarkOptionFlag,
  addNameOption,
  addSystemOptionFlag,
  addTransportOptions,
  positiveInt,
  withOfficialJudge,
  transportFromFlags,
} from '../options.js';
import { RunConfigSchema, systemOf } from '../../systems/registry.js';
import { checkRecordedSystemOptions } from '../system-options.js';
import { givenBenchmarkOptions, kebab } from '../benchmark-options.js';
import { mergeLayers, readConfigFile, resolveConfig, type PartialConfig } from '../../config/load.js';
import type { RunConfig } from '../../config/schema.js';
import { progressBar } from '../progress.js';
import { renderRunReport } from '../run-printout.js';
import { rate } from './run.js';
import { capJudge, checkCostCap, maxCostOf } from '../cost-cap.js';

/** `reached`: the endpoints this command's pre-flights reached (a grid's runs share it: src/cli/judge-grid.ts). */
export function judgeCommand(reached: ReachedEndpoints = new Map()): Command {
  const cmd = new Command('judge')
    .description("Judge another system's answers with a benchmark's official judge and metrics, into a stats-ready run directory")
    .argument(
      '[answers]',
      'JSON lines {"id", "answer", "evidence"?}: ids as rawrag names questions (items.jsonl), evidence = turn ids shown to your reader (for coverage)',
    )
    .optionsGroup('Input:')
    .option(
      '--rejudge <run-dir>',
      "re-score an existing run's answers under another judge (--judge-model / --judge-prompt) or gold (-B gold), -B categories narrowing them; nothing is re-read; a new run directory",
    )
    .option(
      '--benchmark <name>',
      `benchmark: ${listBenchmarks()
        .map((b) => b.name)
        .join(' | ')}`,
    )
    .option('--system <name>', "your system's name in the manifest and in `rawrag stats`", 'external')
    .option(
      '--setting <name>',
      'the benchmark-setting `rawrag stats` groups by (default <benchmark>/<system>; e.g. locomo/gpt-4o-mini to sit beside RAW-RAG read by gpt-4o-mini; a data variant is part of it: longmemeval/variant=oracle/gpt-4o)',
    )
    .option('-c, --config <file>', 'config file (JSON or YAML): data, options, judge; flags override it')
    .option('--data <path>', "data file or folder in the benchmark's official format (default: the bundled copy)");
  addSystemOptionFlag(
    cmd,
    "with --rejudge: the re-judged run's system options, checked against what the run recorded (a judge changes no system option)",
  );
  addBenchmarkOptionFlag(cmd);
  cmd
    .optionsGroup('Judge:')
    .option('--judge <model>', "judge model (default: the benchmark's official judge, else gpt-4o-mini)")
    .option('--judge-model <model>', 'the same as --judge')
    .option(
      '--judge-prompt <name|file:PATH>',
      "another judge protocol by name (`rawrag protocol BENCHMARK` lists them: the official one, `strict`, and the vendors' own evaluation judges), or a prompt file (file:PATH; {question}, {gold_answer}, {generated_answer} slots, read as the official judge's reply); with --rejudge, a comma list A,B,... is a sweep: each protocol's verdicts a run folder of its own, then accuracy per protocol, the span and the questions whose verdict flips",
    )
    .option('--judge-runs <n>', 'judge runs per answer, averaged (default 3)', positiveInt);
  addTransportOptions(cmd);
  addNameOption(cmd, 'judgement');
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
    .action(async (answersPath: string | undefined, _opts: unknown, command: Command) => {
      const opts = command.opts();
      // A grid's set folder: each run re-judged in turn (src/cli/judge-grid.ts).
      // The runs share this command's reached endpoints: the judge's endpoint is reached once, not once per run.
      if (await judgeGrid(command, () => judgeCommand(reached))) return;
      const sweep = sweepNames(opts.judgePrompt as string | undefined);
      if (sweep) {
        if (!opts.rejudge) throw new UsageError('--judge-prompt A,B,...: a sweep re-judges a run: give --rejudge RUN_DIR');
        return judgeSweep(command, answersPath, sweep, reached);
      }
      const job = opts.rejudge ? await rejudgeJob(command, answersPath) : answersJob(command, answersPath);
      await runJudgeJob(command, job, (opts.out as string | undefined) ?? fromRoot('results', job.runId), { reached });
    });
  return cmd;
}

/** `--judge-prompt A,B,...` (two or more names): the sweep's protocol names, else null. */
function sweepNames(value: string | undefined): string[] | null {
  if (!value || value.startsWith('file:') || !value.includes(',')) return null;
  const names = value.split(',').map((n) => n.trim());
  if (names.some((n) => !n)) throw new UsageError(`--judge-prompt ${value}: an empty name in the list`);
  if (new Set(names).size !== names.length) throw new UsageError(`--judge-prompt ${value}: a name is given twice`);
  return names;
}

/**
 * The judge-prompt sweep: the run's answers re-judged under each named protocol, each into a run
 * folder of its own (OUT/<name>, so `rawrag stats OUT` pairs them), then accuracy per protocol with
 * intervals, the span and the questions whose verdict flips (src/pipeline/judge-sweep.ts).
 */
async function judgeSweep(command: Command, answersPath: string | undefined, names: string[], reached: ReachedEndpoints): Promise<void> {
  const opts = command.opts();
  const src = readRunForRejudge(opts.rejudge as string);
  const base = (opts.out as string | undefined) ?? fromRoot('results', `${basename(src.dir.replace(/\/+$/, ''))}-judge-sweep`);
  const jobs: Array<{ name: string; job: JudgeJob; out: string }> = [];
  // Every name resolved before anything is sent: a wrong name stops the sweep, not its third run.
  for (const name of names) {
    const job = await rejudgeJob(command, answersPath, { prompt: name, sweep: true });
    const out = join(base, name.replace(/[^A-Za-z0-9._-]/g, '_'));
    job.checkOut?.(out);
    jobs.push({ name, job, out });
  }
  const dirs: Array<{ name: string; dir: string }> = [];
  for (const { name, job, out } of jobs) {
    process.stderr.write(`judge protocol ${name}: ${out}\n`);
    await runJudgeJob(command, job, out, { quiet: true, reached });
    dirs.push({ name, dir: out });
  }
  const sweep = summariseSweep(dirs, { seed: 0 });
  writeFileSync(join(base, 'judge-sweep.json'), JSON.stringify(sweep, null, 2) + '\n');
  printOut((opts.json ? JSON.stringify(sweep, null, 2) : renderSweep(sweep, base)) + '\n');
}

/** Runs one judgement into `out`: the cap, the progress bar, the summary, the exit checks. */
async function runJudgeJob(
  command: Command,
  job: JudgeJob,
  out: string,
  o: { quiet?: boolean; reached?: ReachedEndpoints } = {},
): Promise<void> {
  const opts = command.opts();
  {
    {
      const { cfg, answers, system, runId, setting, questions } = job;
      if (cfg.judge.model === 'none')
        throw new UsageError('--judge none: rawrag judge is for verdicts; name a judge model (or leave it out for the official one)');
      const maxCost = maxCostOf(command);
      let transport = transportFromFlags(command);
      for (const note of job.notes ?? []) process.stderr.write(`note: ${note}\n`);
      // The data and the answers' ids are checked first (bad input, exit 2), before any endpoint is reached.
      const { dataset } = await loadRunInputs(cfg);
      if (job.source?.dataSha256) {
        if (dataset.source.sha256 !== job.source.dataSha256) {
          throw new InputError(
            `the run read another data file (sha256 ${job.source.dataSha256.slice(0, 12)}...) than ${dataset.source.path} now holds: its answers cannot be re-judged against this one`,
            {
              file: join(job.source.dir, 'manifest.json'),
            },
          );
        }
      }
      if (opts.dryRun) {
        printOut((await estimateJudge(cfg, answers, transport, { questions, what: job.what })) + '\n');
        return;
      }
      job.checkOut?.(out);
      // The judge model's name, key and endpoint, before the first paid request (src/preflight/), as `rawrag run` does.
      const benchmark = getBenchmark(cfg.benchmark);
      if (benchmark.scoring?.judge) {
        const judge = judgeModelFor(cfg.judge.model, benchmark.defaultJudgeModel);
        await runModelPreflight(
          command,
          [{ role: 'judge', name: judge }],
          transport,
          (line) => process.stderr.write(line + '\n'),
          o.reached,
        );
      }
      if (maxCost !== null)
        transport = await capJudge(cfg, answers, transport, { usd: maxCost, out, retryErrors: Boolean(opts.retryErrors), questions });
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
            name: (opts.name as string | undefined) ?? null,
            compose: judgeComposition(answers, { system, setting, runId, questions, incompleteBecause: job.incompleteBecause }),
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
        if (!o.quiet) printOut((opts.json ? JSON.stringify(outcome.summary, null, 2) : renderRunReport(outcome)) + '\n');
        checkCostCap(outcome.manifest.status, transport, outcome.dir);
        checkErrorRate(outcome.summary, outcome.dir, opts.maxErrorRate as number | undefined);
      } finally {
        bar.stop();
        interrupts.dispose();
      }
    }
  }
}

interface JudgeJob {
  cfg: RunConfig;
  answers: AnswersFile;
  system: string;
  /** The setting asked for (--setting), or how re-judging derives it; undefined = the data's own with the system. */
  setting: string | undefined | ((data: string) => string);
  runId: string;
  questions?: (qs: Question[]) => Question[];
  what?: string;
  /** Re-judging: the data file the source run read (a different file now is an input error). */
  source?: { dir: string; dataSha256: string };
  /** Printed before anything runs (a torn last line skipped, answers left out by -B categories). */
  notes?: string[];
  /** Refuses an output directory this job must not write (re-judging: the source run itself). */
  checkOut?(out: string): void;
  /** Re-judging a run that is not whole: why the new run is not whole either. */
  incompleteBecause?: string | null;
}

/** `rawrag judge ANSWERS.jsonl --benchmark B`: the answered questions are the selection, as --ids would select them. */
function answersJob(command: Command, answersPath: string | undefined): JudgeJob {
  const opts = command.opts();
  if (!answersPath) throw new UsageError('give an answers file (or --rejudge RUN_DIR)');
  if (!opts.benchmark) throw new UsageError("required option '--benchmark <name>' not specified");
  if ((opts.systemOption as string[] | undefined)?.length)
    throw new UsageError(
      '-S: an answers file brings its own answers, made by no system rawrag ran; -S checks a re-judged run (--rejudge RUN_DIR)',
    );
  const answers = readAnswers(answersPath);
  const cfg = { ...judgeConfig(command), ids: resolve(answersPath) };
  const system = opts.system as string;
  return {
    cfg,
    answers,
    system,
    runId: judgeRunId(cfg, answers, system),
    setting: opts.setting as string | undefined,
  };
}

/**
 * `rawrag judge --rejudge RUN_DIR`: the run's own benchmark, data, options, system and setting;
 * another judge, or another gold (`-B gold`) or fewer categories (`-B categories`), which give the
 * setting its new data half.
 */
async function rejudgeJob(
  command: Command,
  answersPath: string | undefined,
  sweep: { prompt: string; sweep: true } | null = null,
): Promise<JudgeJob> {
  const opts = command.opts();
  if (answersPath) throw new UsageError('--rejudge takes its answers from the run directory: give no answers file');
  for (const flag of ['benchmark', 'data', 'config'] as const) {
    if (opts[flag] !== undefined)
      throw new UsageError(`--rejudge uses the run's own ${flag === 'config' ? 'config' : flag}: drop --${flag}`);
  }
  const src = readRunForRejudge(opts.rejudge as string);
  checkRecordedSystemOptions(systemOf(src.config), src.config as PartialConfig, (opts.systemOption as string[] | undefined) ?? [], src.dir);
  const judge: PartialConfig = {};
  const model = (opts.judgeModel ?? opts.judge) as string | undefined;
  if (model) judge.model = model;
  // A predict-only run (--judge none) is scored by the official judge unless another is named.
  else if (src.config.judge.model === 'none') judge.model = null;
  if (opts.judgeRuns !== undefined) judge.runs = opts.judgeRuns;
  const promptName = sweep?.prompt ?? (opts.judgePrompt as string | undefined);
  if (promptName) {
    const prompt = resolveJudgePrompt(promptName, src.config.benchmark);
    if (prompt) judge.prompt = prompt;
    // The official protocol named: the run's own prompt replaced by none (a run judged with another prompt goes back to the official one).
    else if (src.config.judge.prompt) judge.prompt = undefined;
  }
  const cfg = withOfficialJudge(
    rejudgeConfig(src, judge, benchmarkOptionsOf(command, src.config.benchmark), { allowSameJudge: Boolean(sweep) }),
  );
  const system = command.getOptionValueSource('system') === 'cli' ? (opts.system as string) : src.system;
  const given = opts.setting as string | undefined;
  const { questions, leftOut } = await rejudgeSelection(src, cfg);
  const changed = changedOptions(src, cfg);
  const judged = src.answers.byId.size - leftOut;
  return {
    cfg,
    answers: src.answers,
    system,
    setting: given ?? rejudgeSetting(src, cfg),
    runId: rejudgeRunId(src, cfg),
    questions,
    source: { dir: src.dir, dataSha256: src.dataSha256 },
    notes: [
      ...src.notes,
      ...(src.incomplete ? [`${src.incomplete}: this re-judge is incomplete too (never listed or ranked as a whole run)`] : []),
      ...(leftOut
        ? [
            `${leftOut} of the run's ${src.answers.byId.size} answers are outside ${changed.map((k) => `-B ${kebab(k)}=${cfg.options[k]}`).join(' ')}: left out`,
          ]
        : []),
    ],
    checkOut: (out) => checkRejudgeOut(src, out),
    incompleteBecause: src.incomplete,
    what: `re-judge ${judged} answers of ${src.dir}${src.unanswered.length ? ` (${src.unanswered.length} items without an answer left out)` : ''}`,
  };
}

/** The benchmark options typed on the command line (`-B gold=audited`), by key. */
function benchmarkOptionsOf(cmd: Command, benchmark: string | undefined): Record<string, string> {
  const named = benchmark === undefined ? undefined : listBenchmarks().find((b) => b.name === benchmark.toLowerCase());
  return givenBenchmarkOptions((cmd.opts().benchmarkOption as string[] | undefined) ?? [], named, listBenchmarks());
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
  if (given('judgeModel')) judge.model = opts.judgeModel;
  if (given('judgePrompt')) {
    const prompt = resolveJudgePrompt(opts.judgePrompt as string, String(opts.benchmark).toLowerCase());
    if (prompt) judge.prompt = prompt;
  }
  if (given('judgeRuns')) judge.runs = opts.judgeRuns;
  if (Object.keys(judge).length) flags.judge = judge;
  const benchOpts = benchmarkOptionsOf(cmd, String(opts.benchmark));
  if (Object.keys(benchOpts).length) flags.options = benchOpts;
  const file = opts.config ? readConfigFile(opts.config as string) : {};
  return withOfficialJudge(
    resolveConfig(mergeLayers(file, flags), opts.config ? (opts.config as string) : 'command line', RunConfigSchema),
  );
}
