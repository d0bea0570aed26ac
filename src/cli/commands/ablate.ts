import { printOut } from '../../util/stdout.js';
import { Command, InvalidArgumentError, type Option } from 'commander';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { analyseAblation } from '../../ablate/paired-table.js';
import { estimateAblation, renderAblationEstimate } from '../../ablate/dry-run.js';
import { runAblation } from '../../ablate/engine.js';
import { addFallbackOption, runPreflight, withFallback } from '../preflight.js';
import type { TransportOptions } from '../../providers/transport.js';
import type { AblationOutcome } from '../../ablate/types.js';
import { writeAblation, type AblationFiles } from '../../ablate/output.js';
import { writeOutputs } from '../../util/output-set.js';
import { ablationMarkdown, ablationNotes } from '../../ablate/report.js';
import { planVariants, sweepsConfig, type SweepRequest, type Variant } from '../../ablate/variants.js';
import type { RunConfig } from '../../config/schema.js';
import { parseNonNegativeList, parsePositiveList } from '../../util/lists.js';
import { sweepKnobs, systemOf } from '../../systems/registry.js';
import { splitBenchmarkSweeps, splitSweepPairs } from '../sweep-options.js';
import { firstTime } from '../notes-once.js';
import type { AblationTable } from '../../ablate/paired-table.js';
import { getBenchmark, listBenchmarks } from '../../benchmarks/registry.js';
import { effectivePolicy } from '../../pipeline/plan.js';
import { InputError, UsageError } from '../../util/errors.js';
import { DEFAULT_RESAMPLES } from '../../stats/index.js';
import { hashOf } from '../../util/hash.js';
import { fromRoot } from '../../util/paths.js';
import {
  addMethodOptions,
  addReaderOptions,
  addTransportOptions,
  addNameOption,
  configFromFlags,
  positiveInt,
  transportFromFlags,
} from '../options.js';
import { progressBar } from '../progress.js';
import { batchedModels, withBatches } from '../../pipeline/batched.js';
import { watchInterrupts } from '../../util/interrupt.js';
import { writeReport } from '../../report/index.js';
import { capLine, capTransport, checkCostCap, maxCostOf, recordedSpend } from '../cost-cap.js';

/** Flags that name a sweep here, where `rawrag run` takes one value. */
const SWEEP_KEYS = ['k', 'window', 'stride', 'candidates', 'rerank', 'expand', 'maxEvidenceTokens', 'dedup'];

export function ablateCommand(): Command {
  const cmd = new Command('ablate')
    .description(
      'Run a family of RAW-RAG variants against the default (k, window size, candidates, reranking, expansion) and ' +
        'report what each change costs, with paired-bootstrap intervals and Holm-adjusted p-values',
    )
    .argument(
      '[benchmark]',
      `benchmark: ${listBenchmarks()
        .map((b) => b.name)
        .join(' | ')} (default locomo)`,
    );
  addMethodOptions(cmd);
  addReaderOptions(cmd);
  addTransportOptions(cmd);
  addFallbackOption(cmd);
  addNameOption(cmd, 'sweep (every variant carries it)');
  asList(cmd, '--k', 'evidence windows kept, comma-separated, e.g. 1,5,15,120 (the reference k=15 is always included)');
  asList(
    cmd,
    '--window',
    'window sizes in cl100k tokens, comma-separated, e.g. 128,256,512 (stride keeps the 32-token overlap unless --stride)',
  );
  asList(cmd, '--candidates', 'first-stage depths, comma-separated (default 128)');
  asList(
    cmd,
    '--max-evidence-tokens',
    "evidence budgets in cl100k tokens, comma-separated, 0 = no cap, e.g. 5000,0 (the paper's 5k control)",
    parseNonNegativeList,
  );
  for (const flag of ['--dedup', '--no-dedup'])
    describe(
      cmd,
      flag,
      "also run every variant with the other turn display: a shared turn once where the reference repeats it (the paper's display, the default), or once per window where the config's reference shows it once",
    );
  describe(
    cmd,
    '--system-option',
    `an option of the system, repeatable; a list sweeps it: -S key=a,b (e.g. ${sweepKnobs()
      .slice(0, 2)
      .map(({ knob }) => `-S ${knob.key}=...`)
      .join(', ')}; 'rawrag systems NAME' lists the options)`,
  );
  describe(
    cmd,
    '--benchmark-option',
    "an option of the benchmark, repeatable; a list sweeps one that leaves the data alone: -B key=a,b (e.g. longmemeval -B reading=con,direct); one that picks the data, gold or questions (categories, gold, variant, ...) takes its value as in rawrag run; 'rawrag data options' lists them",
  );
  describe(cmd, '--stride', 'one stride for every swept window size (default: window - 32, the reference overlap)');
  describe(cmd, '--no-rerank', 'also run every variant without reranking (first-stage order), e.g. the paper\'s "no reranker" row');
  describe(cmd, '--no-expand', 'also run every variant without turn expansion (the selected windows themselves)');
  cmd.optionsGroup('Output and resume:');
  cmd
    .option('--out <dir>', 'ablation folder (default results/ablate-<benchmark>-<hash>); variants already there are resumed')
    .option('--resamples <n>', `paired-bootstrap resamples (default ${DEFAULT_RESAMPLES})`, positiveInt)
    .option('--retry-errors', 'in existing variant directories, redo the items that failed')
    .option('--no-png', 'write the SVG plot only (default: also a PNG, rendered in-process by @resvg/resvg-js)')
    .option('--verbose', 'print every data warning (default: one summary line)')
    .option('--no-progress', 'no progress bar')
    .option('--no-report', 'do not write report.html (the HTML report) in the ablation folder')
    .option('--json', 'print ablation.json instead of the table')
    .option(
      '--rejudge-unchanged',
      "read and judge again, bypassing the response cache, the questions whose evidence a variant leaves unchanged (default: their answers are reused, so they move no delta): measures the judge noise in each delta, the paper's +0.281 caveat",
    )
    .option('--batch', 'send reader and judge requests as Batch API jobs (half price, up to 24 h; see docs/models.md)')
    .option('--no-wait', 'with --batch: exit once the batch jobs are submitted; run the same command again to go on');
  cmd.action(ablateAction);
  return cmd;
}

/** `rawrag ablate`: the plan, a dry run or the sweep (interactive or through batch jobs), then its table and files. */
async function ablateAction(benchmarkArg: string | undefined, _opts: unknown, command: Command): Promise<void> {
  const plan = ablationPlan(command, benchmarkArg);
  const { base, variants, out, rejudgeUnchanged } = plan;
  const opts = command.opts();
  const maxCost = maxCostOf(command);
  let transport = withFallback(command, transportFromFlags(command));
  if (rejudgeUnchanged && opts.batch)
    throw new UsageError(
      '--rejudge-unchanged sends reader and judge requests past the response cache; --batch answers them from it: use one',
    );
  process.stderr.write(
    `ablation: ${variants.length} variant${variants.length === 1 ? '' : 's'}: ${variants.map((v) => v.name).join(' | ')}\n`,
  );
  if (variants.length === 1)
    process.stderr.write(
      'note: no sweep given (--k, --window, --candidates, --no-rerank, --no-expand, -S key=a,b, -B key=a,b): only the reference runs\n',
    );
  const log = (line: string) => {
    if (firstTime(line)) process.stderr.write(line + '\n');
  };
  if (opts.dryRun) return ablateDryRun(plan, transport, maxCost, opts, log);
  // Names, keys, endpoints and data, before the first paid request (src/preflight/), as `rawrag run` does:
  // the reference's models, and those of each variant that changes the system's own config (`-S key=a,b`).
  const cells = [
    { cfg: base, label: null },
    ...variants.filter((v) => v.configName !== '').map((v) => ({ cfg: v.cfg, label: `variant ${v.name}` })),
  ];
  transport = await runPreflight(command, cells, transport, log);
  if (maxCost !== null) {
    // The whole sweep's estimate (before cache hits) against the cap, less what its variants already spent.
    const e = await estimateAblation({ base, variants, out, transport, verbose: false }, { log: () => undefined });
    const spentBefore = recordedSpend(variants.map((v) => join(resolve(out), v.name)));
    transport = capTransport(transport, {
      usd: maxCost,
      spentBefore,
      estimateUsd: e.cost_usd,
      what: `the ${variants.length}-variant sweep`,
    });
  }
  const outcome = await sweep(plan, transport, opts, log);
  if (!outcome) return;
  const { table, files } = await finishAblation(outcome, {
    resamples: opts.resamples as number | undefined,
    seed: base.seed,
    png: opts.png !== false,
    report: opts.report !== false,
    log,
  });
  if (opts.json) printOut(readFileSync(files.json, 'utf8'));
  else printOut(renderAblationReport(outcome, table, files) + '\n');
  const capped = outcome.variants.find((v) => v.manifest.status === 'stopped-cost-cap');
  if (capped) checkCostCap(capped.manifest.status, transport, outcome.dir);
}

/** `--dry-run`: ranks every question once per window size, says how far it got, and prints the estimate. */
async function ablateDryRun(
  { base, variants, out, rejudgeUnchanged }: AblationPlan,
  transport: Partial<TransportOptions>,
  maxCost: number | null,
  opts: Record<string, unknown>,
  log: (line: string) => void,
): Promise<void> {
  const dryBar = progressBar(`${base.benchmark} ablation dry run`, opts.progress !== false);
  const estimate = await estimateAblation(
    { base, variants, out, transport, verbose: Boolean(opts.verbose), rejudgeUnchanged },
    {
      log: (line) => {
        dryBar.stop();
        log(line);
      },
      progress: (done, total) => dryBar.update(done, total),
    },
  );
  dryBar.stop();
  const benchmark = getBenchmark(base.benchmark);
  printOut(renderAblationEstimate(benchmark.name, estimate) + (maxCost === null ? '' : `\n${capLine(maxCost, estimate.cost_usd)}`) + '\n');
}

/** The sweep under a progress bar and the interrupt watch; null when batch jobs are still running (`--no-wait`). */
async function sweep(
  plan: AblationPlan,
  transport: Partial<TransportOptions>,
  opts: Record<string, unknown>,
  log: (line: string) => void,
): Promise<AblationOutcome | null> {
  const { base, variants, out, name, rejudgeUnchanged } = plan;
  const bar = progressBar(`${base.benchmark} ablation`, opts.progress !== false);
  const interrupts = watchInterrupts(
    () => bar.stop(),
    () => bar.stop(),
  );
  try {
    const hooks = {
      log: (line: string) => {
        bar.stop();
        log(line);
      },
      progress: (done: number, total: number) => bar.update(done, total),
      signal: interrupts.signal,
    };
    const request = { base, variants, out, verbose: Boolean(opts.verbose), name };
    if (!opts.batch) return await runAblation({ ...request, transport, retryErrors: Boolean(opts.retryErrors), rejudgeUnchanged }, hooks);
    // Every variant's pending reader/judge requests go out together; see `rawrag run --batch`.
    const b = await withBatches({
      dir: resolve(out),
      runId: `ablate-${base.benchmark}-${hashOf({ base, variants: variants.map((v) => v.name) }, 10)}`,
      transport,
      models: batchedModels(base),
      wait: opts.wait !== false,
      retryErrors: Boolean(opts.retryErrors),
      log: hooks.log,
      signal: hooks.signal,
      pass: (t, i) => runAblation({ ...request, transport: t, retryErrors: i === 0 && Boolean(opts.retryErrors) }, hooks),
    });
    bar.stop();
    if (!b.last) {
      printOut(
        `${b.jobs.live().length} batch jobs running; nothing is lost if this machine stops.\nresume: the same command again (or: rawrag batch status ${resolve(out)})\n`,
      );
      return null;
    }
    log(
      `replies from batches: cost at batch prices ${b.cost.batch_usd === null ? 'unknown' : `$${b.cost.batch_usd.toFixed(4)}`} (interactive prices: ${b.cost.interactive_usd === null ? 'unknown' : `$${b.cost.interactive_usd.toFixed(4)}`})`,
    );
    return b.last;
  } finally {
    bar.stop();
    interrupts.dispose();
  }
}

/** What an `ablate` command line asks for: the base config, the variants, the folder, the label. */
export interface AblationPlan {
  base: RunConfig;
  variants: Variant[];
  out: string;
  name: string | null;
  rejudgeUnchanged: boolean;
}

/** The plan of a parsed `ablate` command (also `rawrag paper --run`, which parses each step's flags with this command). */
export function ablationPlan(command: Command, benchmarkArg: string | undefined): AblationPlan {
  const sweep = sweepFromFlags(command);
  // `-S key=a,b` sweeps a system option: the system comes from the flags and file without `-S`.
  const pairs = (command.opts().systemOption as string[] | undefined) ?? [];
  command.setOptionValue('systemOption', []);
  const split = splitSweepPairs(systemOf(configFromFlags(command, benchmarkArg)), pairs);
  command.setOptionValue('systemOption', split.base);
  // `-B key=a,b` sweeps a benchmark option that leaves the data alone (sweep-options.ts).
  const benchPairs = (command.opts().benchmarkOption as string[] | undefined) ?? [];
  command.setOptionValue('benchmarkOption', []);
  const benchSplit = splitBenchmarkSweeps(getBenchmark(configFromFlags(command, benchmarkArg).benchmark), benchPairs);
  command.setOptionValue('benchmarkOption', benchSplit.base);
  sweep.config = [...split.sweeps, ...benchSplit.sweeps];
  const base = configFromFlags(command, benchmarkArg);
  const opts = command.opts();
  const variants = planVariants(base, effectivePolicy(getBenchmark(base.benchmark), base), sweep);
  const rejudgeUnchanged = Boolean(opts.rejudgeUnchanged);
  if (rejudgeUnchanged && sweepsConfig(variants))
    throw new UsageError(
      "--rejudge-unchanged applies to sweeps that share one ranking (k, windows, candidates, reranking, expansion, budget, display); a system knob's variants are plain runs whose requests the response cache answers alike",
    );
  return {
    base,
    variants,
    out: (opts.out as string | undefined) ?? fromRoot('results', `ablate-${base.benchmark}-${hashOf(base, 10)}`),
    name: (opts.name as string | undefined) ?? null,
    rejudgeUnchanged,
  };
}

/** After the variants ran: the paired table (stats' computation), ablation.json/.md/.csv/.svg, the HTML report. */
export async function finishAblation(
  outcome: AblationOutcome,
  opts: { resamples?: number; seed: number; png: boolean; report: boolean; log: (line: string) => void },
): Promise<{ table: AblationTable; files: AblationFiles }> {
  const table = analyseAblation(outcome.variants, {
    resamples: opts.resamples ?? DEFAULT_RESAMPLES,
    seed: opts.seed,
    rejudged: outcome.rejudgedUnchanged === true,
  });
  // The ablation's files and its report land together or not at all (src/util/output-set.ts).
  const { value: files } = await writeOutputs(async (set) => {
    const staged = writeAblation(outcome, table, { png: opts.png, set });
    if (opts.report)
      await writeReport([outcome.dir], join(outcome.dir, 'report.html'), {
        outputs: set,
        ablations: [{ dir: outcome.dir, data: JSON.parse(readFileSync(set.stagedFile(staged.json)!, 'utf8')) }],
      });
    return staged;
  });
  if (files.pngNote) opts.log(`note: ${files.pngNote}`);
  return { table, files };
}

/** The sweep the flags ask for; the sweep flags are then hidden from the base config (they are lists here). */
function sweepFromFlags(cmd: Command): SweepRequest {
  const o = cmd.opts();
  const given = (key: string) => cmd.getOptionValueSource(key) === 'cli';
  const sweep: SweepRequest = {
    k: given('k') ? (o.k as number[]) : [],
    window: given('window') ? (o.window as number[]) : [],
    stride: given('stride') ? (o.stride as number) : null,
    candidates: given('candidates') ? (o.candidates as number[]) : [],
    noRerank: given('rerank') && o.rerank === false,
    noExpand: given('expand') && o.expand === false,
    maxEvidenceTokens: given('maxEvidenceTokens') ? (o.maxEvidenceTokens as number[]) : [],
    // Either flag asks for the other display beside the reference's (which the config decides).
    noDedup: given('dedup'),
    config: [],
  };
  if (sweep.stride !== null && sweep.window.length === 0) {
    throw new InputError('--stride applies to the swept window sizes: give --window too', { place: '--stride' });
  }
  for (const key of SWEEP_KEYS) {
    if (given(key))
      cmd.setOptionValueWithSource(key, key === 'rerank' || key === 'expand' || key === 'dedup' ? true : undefined, 'default');
  }
  return sweep;
}

function findOption(cmd: Command, long: string): Option {
  const opt = cmd.options.find((o) => o.long === long);
  if (!opt) throw new Error(`ablate: option ${long} missing from the shared method options`);
  return opt;
}

function asList(
  cmd: Command,
  long: string,
  description: string,
  parse: (value: string, flag: string) => unknown[] = parsePositiveList,
): void {
  const opt = findOption(cmd, long);
  opt.description = description;
  // Help shows `--k <list>`; parsing goes by the long name, which stays.
  (opt as { flags: string }).flags = `${long} <list>`;
  opt.argParser((value: string) => commanderList(value, long, parse));
}

function commanderList<T>(value: string, long: string, parse: (value: string, flag: string) => T[]): T[] {
  try {
    return parse(value, long);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message.replace(`${long}: `, '') + '.');
  }
}

function describe(cmd: Command, long: string, description: string): void {
  findOption(cmd, long).description = description;
}

function renderAblationReport(outcome: AblationOutcome, table: AblationTable, files: AblationFiles): string {
  const w = outcome.work;
  const ref = outcome.variants.find((v) => v.variant.isDefault)!;
  const measure =
    table.metric === 'accuracy'
      ? 'Δ = accuracy difference from the reference (judged answers), in points'
      : 'Δ = coverage difference from the reference (share of questions whose gold evidence turns were all shown), in points; no reader was set';
  const lines = [
    `${outcome.system}${outcome.name ? ` [${outcome.name}]` : ''} ablation on ${outcome.benchmark} — ${outcome.variants.length} variant${outcome.variants.length === 1 ? '' : 's'}, ${w.questions} questions each`,
    '',
    ablationMarkdown(table),
    '',
    `${measure}; 95% paired-bootstrap interval (${table.resamples} resamples, seed ${table.seed}); p Holm-adjusted over ${outcome.variants.length - 1} comparisons.`,
  ];
  if (!outcome.plainRuns) {
    lines.push(
      `work s = summed work charged to the variant, not wall time: load + ingest + search (+ rerank) of its window size, plus its own assembly and reader/judge calls, per-question times added up (questions in flight at once overlap).`,
      `shared work: ${w.windowSizes} window size(s), ${w.indexBuilds} index builds, ${w.searches} first-stage searches, ${w.rerankCalls} rerank calls, ` +
        `${w.stageRuns} evidence sets read and judged (${w.reused} repeats reused)`,
      `wall time of the whole sweep: ${(outcome.wallMs / 1000).toFixed(2)} s`,
    );
  } else {
    lines.push(
      `work s = the variant's summed work (per-question times added up); wall s = its own run's wall-clock time. Each variant is a plain run of '${outcome.system}' with its own config; ingest requests that do not depend on the swept values come from the response cache after the reference.`,
      ...outcome.variants.map((v) => `  ${v.variant.name}: ${ingestLine(v.summary)}`),
      `wall time of the whole sweep: ${(outcome.wallMs / 1000).toFixed(2)} s`,
    );
  }
  lines.push(...ablationNotes(table));
  for (const s of ref.manifest.skipped) lines.push(`NOTE: ${s}`);
  // The retriever's notes were printed on stderr when the sweep started (and are in each manifest).
  lines.push(
    `ablation folder: ${outcome.dir}`,
    `  table: ${rel(outcome.dir, files.markdown)}, ${rel(outcome.dir, files.csv)}; plot: ${rel(outcome.dir, files.svg)}${files.png ? `, ${rel(outcome.dir, files.png)}` : ''}; details: ${rel(outcome.dir, files.json)}`,
    `  each variant is a run directory: rawrag stats ${outcome.dir} (baseline '${ref.manifest.system}')`,
  );
  return lines.join('\n');
}

/** What a variant's own ingest sent (a source report's `this_run`, whichever section holds it), when its source reports one. */
function ingestLine(summary: Record<string, unknown>): string {
  const m = Object.values(summary)
    .map((v) => (v as { this_run?: { requests?: unknown; cache_hits?: unknown } } | null)?.this_run)
    .find((t): t is { requests: number; cache_hits: number } => typeof t?.requests === 'number' && typeof t.cache_hits === 'number');
  return m ? `extraction requests sent ${m.requests}, answered by the cache ${m.cache_hits}` : 'no ingest report';
}

function rel(dir: string, path: string): string {
  return relative(dir, path);
}
