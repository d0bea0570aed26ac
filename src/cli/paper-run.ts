/**
 * `rawrag paper --run`: the whole paper in one resumable command. Every item the map (src/paper/)
 * shows as not reproduced is planned as the runs its steps name (src/paper/items.ts; a run several
 * items need is planned once); each is parsed by `rawrag run` / `rawrag ablate`'s own flag handling
 * and estimated by the dry-run estimator `run --dry-run` uses (src/pipeline/estimate.ts). The plan
 * prints calls, tokens and dollars per run and in total; then each run goes into its own directory
 * under results/paper/ (the same command resumes them), stopping before `--max-cost` (a run whose
 * estimate exceeds what is left is skipped; what finished runs really spent, from their summaries,
 * is subtracted), and saying what was skipped and why: a key missing, a service not configured,
 * data not present.
 */
import { MANIFEST_FILE, readRunManifest } from '../run-files/record.js';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fromRoot } from '../util/paths.js';
import { CommanderError, type Command } from 'commander';
import type { RunConfig } from '../config/schema.js';
import { buildPaperMap } from '../paper/map.js';
import { paperItems, type PaperItem, type PaperStep } from '../paper/items.js';
import { estimateRun } from '../pipeline/estimate.js';
import { executeRun } from '../pipeline/run.js';
import { runAblation } from '../ablate/engine.js';
import type { TransportOptions } from '../providers/transport.js';
import { addCost } from '../providers/usage.js';
import { CostCap } from '../providers/budget.js';
import { InputError, UsageError } from '../util/errors.js';
import { Interrupted } from '../util/interrupt.js';
import { markdownTable } from '../util/table.js';
import { runCommand } from './commands/run.js';
import { ablateCommand, ablationPlan, finishAblation, type AblationPlan } from './commands/ablate.js';
import { renderRunReport } from './run-printout.js';
import { progressBar } from './progress.js';
import { configFromFlags } from './options.js';
import { firstTime } from './notes-once.js';
import { recordedSpend } from './cost-cap.js';
import { CostCapExceeded } from './exit.js';
import { preflight } from '../preflight/index.js';

export interface PaperRunOptions {
  /** Where the map looks for runs; new runs go to `<first>/paper/<name>`. */
  searched: string[];
  only: string[] | null;
  dryRun: boolean;
  maxCost: number | null;
  retryErrors: boolean;
  progress: boolean;
  transport: Partial<TransportOptions>;
  signal?: AbortSignal;
  /** The items to reproduce (default the paper's, src/paper/items.ts). */
  items?: PaperItem[];
  /** Reach each endpoint once in the pre-flight (default true; `--no-reach`). */
  reach?: boolean;
}

interface Estimate {
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
}

type Prepared = { kind: 'run'; cfg: RunConfig } | { kind: 'ablate'; plan: AblationPlan };

interface PlannedRun {
  step: PaperStep;
  dir: string;
  items: string[];
  command: string;
  prepared: Prepared | null;
  estimate: Estimate | null;
  /** Why it is not run (set at planning, or when the cost cap is reached). */
  skip: string | null;
  /** What it really spent (its summaries), once run. */
  spent: number | null;
  failed: number;
}

const usd = (x: number | null) => (x === null ? 'unknown' : `$${x.toFixed(x < 1 ? 4 : 2)}`);
const n = (x: number) => x.toLocaleString('en-US');

/** The runs the not-yet-reproduced items need, one per distinct step, in the map's order. */
function pendingRuns(opts: PaperRunOptions): { runs: PlannedRun[]; unplannable: Array<{ item: string; why: string }> } {
  const items = opts.items ?? paperItems();
  const map = buildPaperMap(opts.searched, { items });
  const status = new Map(map.entries.map((e) => [e.id, e.status]));
  // An item whose run is there (its figure differs, or the paper does not name its data): running again changes nothing.
  const hasRun = new Set(map.entries.filter((e) => e.run !== null).map((e) => e.id));
  const root = resolve(opts.searched[0]!);
  const runs = new Map<string, PlannedRun>();
  const unplannable: Array<{ item: string; why: string }> = [];
  for (const item of items) {
    if (opts.only && !opts.only.includes(item.section)) continue;
    const s = status.get(item.id);
    if (s === 'reproduced' || s === 'not in rawrag' || hasRun.has(item.id)) continue;
    if (!item.steps?.length) {
      unplannable.push({ item: item.id, why: item.note ?? 'nothing rawrag can run on its own' });
      continue;
    }
    for (const step of item.steps) {
      const planned = runs.get(step.out);
      if (planned) planned.items.push(item.id);
      else
        runs.set(step.out, {
          step,
          dir: join(root, step.out),
          items: [item.id],
          command: `rawrag ${step.command} ${step.args.join(' ')} --out ${relative(process.cwd(), join(root, step.out)) || '.'}`,
          prepared: null,
          estimate: null,
          skip: null,
          spent: null,
          failed: 0,
        });
    }
  }
  return { runs: [...runs.values()], unplannable };
}

/** The step's command line parsed by the command itself (`run` or `ablate`), without running it. */
async function parseStep(step: PaperStep, dir: string): Promise<Prepared> {
  const cmd: Command = step.command === 'run' ? runCommand() : ablateCommand();
  let prepared: Prepared | null = null;
  cmd.exitOverride();
  cmd.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  cmd.action((benchmark: string | undefined, _o: unknown, command: Command) => {
    if (step.command === 'run') prepared = { kind: 'run', cfg: configFromFlags(command, benchmark) };
    else prepared = { kind: 'ablate', plan: { ...ablationPlan(command, benchmark), out: dir } };
  });
  // The steps name the project's own config files (configs/...): found from anywhere.
  const args = step.args.map((a, i) => (step.args[i - 1] === '--config' && !isAbsolute(a) ? fromRoot(a) : a));
  await cmd.parseAsync(args, { from: 'user' });
  return prepared!;
}

/** Calls, tokens and dollars of a step, from the estimator `run --dry-run` uses (a sweep: each variant's). */
async function estimateStep(p: Prepared, transport: Partial<TransportOptions>): Promise<{ estimate: Estimate; missing: string[] }> {
  const total: Estimate = { calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 };
  const missing = new Set<string>();
  const configs = p.kind === 'run' ? [p.cfg] : p.plan.variants.map((v) => v.cfg);
  // A sweep embeds each window size once and reranks once per window and depth: those calls are counted once.
  const shared = new Set<string>();
  for (const cfg of configs) {
    const e = await estimateRun(cfg, transport);
    for (const m of e.missing) missing.add(m);
    for (const r of e.roles) {
      const key =
        r.role === 'embed'
          ? `embed|${cfg.chunking.size}|${cfg.chunking.stride}`
          : r.role === 'rerank'
            ? `rerank|${cfg.chunking.size}|${cfg.retrieval.candidates}`
            : null;
      if (key !== null && p.kind === 'ablate') {
        if (shared.has(key)) continue;
        shared.add(key);
      }
      total.calls += r.calls;
      total.input_tokens += r.input_tokens;
      total.output_tokens += r.output_tokens;
      total.cost_usd = addCost(total.cost_usd, r.cost_usd);
    }
    if (e.ingest) total.cost_usd = addCost(total.cost_usd, e.ingest.cost_usd);
  }
  return { estimate: total, missing: [...missing] };
}

/** The share of a run's questions not yet answered in its directory (a resumed run costs only the rest). */
function pendingShare(dir: string): number {
  if (!existsSync(join(dir, MANIFEST_FILE))) return 1;
  try {
    // Through the run record (src/run-files/record.ts); a manifest it refuses is estimated whole.
    const m = readRunManifest(dir).manifest as { questions?: { selected?: number; done?: number; errors?: number } };
    const q = m.questions ?? {};
    return q.selected ? Math.max(0, Math.min(1, (q.selected - (q.done ?? 0) + (q.errors ?? 0)) / q.selected)) : 1;
  } catch {
    return 1;
  }
}

/** Why a step cannot run here, from what stopped its planning (data missing, a bad value), as a short reason. */
function reasonOf(e: unknown): string {
  // Paths as the user types them: relative to the working directory.
  const msg = ((e as Error).message ?? String(e)).split(`${process.cwd()}/`).join('');
  if (/data file not found|no such file|not found/i.test(msg)) return `data not present: ${msg}`;
  return msg;
}

async function prepareAll(runs: PlannedRun[], opts: PaperRunOptions, log: (line: string) => void): Promise<void> {
  for (const [i, r] of runs.entries()) {
    if (r.step.needs) {
      r.skip = `a service or input not configured: ${r.step.needs}`;
      continue;
    }
    log(`planning ${i + 1} of ${runs.length}: ${r.command}`);
    try {
      r.prepared = await parseStep(r.step, r.dir);
      const { estimate, missing } = await estimateStep(r.prepared, opts.transport);
      if (missing.length) r.skip = `no key or endpoint: ${missing.join('; ')}`;
      const share = r.prepared.kind === 'run' ? pendingShare(r.dir) : 1;
      r.estimate = {
        calls: Math.round(estimate.calls * share),
        input_tokens: Math.round(estimate.input_tokens * share),
        output_tokens: Math.round(estimate.output_tokens * share),
        cost_usd: estimate.cost_usd === null ? null : estimate.cost_usd * share,
      };
    } catch (e) {
      // Bad input (data not present, a bad value) or a step's flags refused by its command: skipped with the reason.
      if (!(e instanceof InputError) && !(e instanceof CommanderError) && !(e instanceof UsageError)) throw e;
      r.skip = reasonOf(e);
    }
  }
}

function planTable(runs: PlannedRun[]): string {
  return markdownTable(
    ['#', 'run directory', 'items', 'calls', 'input tokens', 'output tokens', 'est. cost', 'plan'],
    runs.map((r, i) => [
      i + 1,
      relative(process.cwd(), r.dir) || '.',
      r.items.join(', '),
      r.estimate ? n(r.estimate.calls) : '—',
      r.estimate ? n(r.estimate.input_tokens) : '—',
      r.estimate ? n(r.estimate.output_tokens) : '—',
      r.estimate ? usd(r.estimate.cost_usd) : '—',
      r.skip ? `skip: ${r.skip}` : r.spent !== null ? `done (spent ${usd(r.spent)})` : 'run',
    ]),
    ['r', 'l', 'l', 'r', 'r', 'r', 'r', 'l'],
  );
}

function totalLine(runs: PlannedRun[], maxCost: number | null): string {
  const sum = (rs: PlannedRun[]) => {
    const e = rs.filter((r) => r.estimate);
    const add = (f: (x: Estimate) => number) => n(e.reduce((a, r) => a + f(r.estimate!), 0));
    const cost = e.reduce<number | null>((a, r) => addCost(a, r.estimate!.cost_usd), 0);
    return `${add((x) => x.calls)} calls, ${add((x) => x.input_tokens)} input + ${add((x) => x.output_tokens)} output tokens, est. ${usd(cost)}`;
  };
  const go = runs.filter((r) => !r.skip);
  const priced = runs.filter((r) => r.estimate);
  return [
    `total: ${go.length} of ${runs.length} runs to run: ${sum(go)} (before cache hits; reply lengths and, for sweeps, repeated evidence are estimates)` +
      (maxCost === null ? '' : `; --max-cost ${usd(maxCost)}: a run whose estimate exceeds what is left is skipped`),
    `all ${priced.length} runs that could be priced, skipped ones included: ${sum(priced)}`,
  ].join('\n');
}

/** What a finished run really spent: its summaries' `usage.all.cost_usd_spent` (this process's requests). */
function spentBy(summaries: Array<Record<string, unknown> | undefined>): number | null {
  let total: number | null = 0;
  for (const s of summaries) {
    const v = (s?.usage as { all?: { cost_usd_spent?: number | null } } | undefined)?.all?.cost_usd_spent;
    if (v === undefined) continue;
    total = addCost(total, v);
  }
  return total;
}

/**
 * Runs one step into its directory. `remainingUsd` is the cap left for it: checked against its
 * estimate before it starts (a runtime cap inside `run` can take it as its own `--max-cost`).
 */
async function executeStep(r: PlannedRun, opts: PaperRunOptions, out: (s: string) => void, log: (s: string) => void): Promise<void> {
  const p = r.prepared!;
  const bar = progressBar(r.step.out, opts.progress);
  const hooks = {
    log: (line: string) => {
      if (!firstTime(line)) return;
      bar.stop();
      log(line);
    },
    progress: (done: number, total: number, info?: Parameters<typeof bar.update>[2]) => bar.update(done, total, info),
    signal: opts.signal,
  };
  try {
    if (p.kind === 'run') {
      const outcome = await executeRun(
        {
          cfg: p.cfg,
          out: r.dir,
          retryErrors: opts.retryErrors,
          forceResume: false,
          verbose: false,
          transport: opts.transport,
          name: null,
        },
        hooks,
      );
      bar.stop();
      out(renderRunReport(outcome));
      r.spent = spentBy([outcome.summary]);
      r.failed = Number(outcome.summary.errors ?? 0);
    } else {
      const outcome = await runAblation(
        { ...p.plan, transport: opts.transport, retryErrors: opts.retryErrors, verbose: false },
        { log: hooks.log, progress: (d, t) => bar.update(d, t), signal: opts.signal },
      );
      bar.stop();
      const { files } = await finishAblation(outcome, { seed: p.plan.base.seed, png: false, report: false, log });
      out(`ablation ${outcome.variants.length} variants written: ${relative(process.cwd(), files.markdown)}`);
      r.spent = addCost(spentBy(outcome.variants.map((v) => v.summary)), spentBy([outcome.retrievalReport]) ?? 0);
      r.failed = outcome.variants.reduce((a, v) => a + Number(v.summary.errors ?? 0), 0);
    }
  } finally {
    bar.stop();
  }
}

/**
 * Every run directory `paper --run` writes (results/paper/<out>, and an ablation's variant
 * directories below it): what they recorded as paid (manifest `spent_usd`, what `rawrag run`
 * counts its own cap against) is what the whole command has paid, across invocations.
 */
function paperRunDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    if (existsSync(join(d, 'manifest.json'))) out.push(d);
    if (depth === 0) return;
    let names: string[] = [];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const child = join(d, name);
      if (!name.startsWith('.') && statSync(child, { throwIfNoEntry: false })?.isDirectory()) walk(child, depth - 1);
    }
  };
  walk(join(root, 'paper'), 3);
  return out;
}

/** USD paid by every run `paper --run` wrote under `root` (all invocations). */
const paidUnder = (root: string) => recordedSpend(paperRunDirs(root));

export async function paperRun(opts: PaperRunOptions, out: (s: string) => void, log: (s: string) => void): Promise<void> {
  const { runs, unplannable } = pendingRuns(opts);
  if (runs.length === 0 && unplannable.length === 0) {
    out(`every item${opts.only ? ` of ${opts.only.join(', ')}` : ''} is reproduced by a complete run here: nothing to run`);
    return;
  }
  await prepareAll(runs, opts, log);
  const items = new Set(runs.flatMap((r) => r.items));
  out(`rawrag paper --run: ${items.size} items not reproduced need ${runs.length} runs (a run several items need is planned once)`);
  out('');
  out(planTable(runs));
  out('');
  out(totalLine(runs, opts.maxCost));
  for (const u of unplannable) out(`not planned: ${u.item}: ${u.why}`);
  if (opts.dryRun) {
    out('nothing was sent and no run directory was written (drop --dry-run to run them; the same command resumes)');
    return;
  }
  // Before the first paid request: every model name (with a did-you-mean), key and endpoint of the
  // runs to run, each endpoint reached once (src/preflight/, as run and ablate check theirs); a run
  // whose data is missing was skipped at planning, with the reason.
  opts = await paperPreflight(runs, opts, log);
  // --max-cost caps what the whole paper has paid: every run under results/paper/, by this invocation
  // and the earlier ones (an interrupted or capped run recorded its spend in its manifest).
  const root = resolve(opts.searched[0]!);
  const paidBefore = paidUnder(root);
  if (opts.maxCost !== null && paidBefore >= opts.maxCost)
    throw new CostCapExceeded(
      `--max-cost ${usd(opts.maxCost)}: the runs under ${relative(process.cwd(), join(root, 'paper')) || '.'} have already paid ${usd(paidBefore)} ` +
        '(earlier invocations included); nothing was sent. Raise --max-cost to go on',
    );
  const spent = { usd: paidBefore };
  // Under --max-cost every request of every run is checked against one cap as replies come in: a run
  // whose estimate fitted still stops before a request could cross it (its manifest says stopped-cost-cap).
  const capped: PaperRunOptions =
    opts.maxCost === null ? opts : { ...opts, transport: { ...opts.transport, costCap: new CostCap(opts.maxCost, paidBefore) } };
  try {
    for (const [i, r] of runs.entries()) {
      if (capped.transport.costCap?.reached) r.skip ??= `--max-cost ${usd(opts.maxCost!)} was reached by an earlier run`;
      await runWithinCap(r, `run ${i + 1} of ${runs.length}`, spent, capped, out, log);
    }
  } finally {
    report(runs, { before: paidBefore, after: paidUnder(root) }, out);
  }
  const held = runs.filter((r) => r.skip && /--max-cost/.test(r.skip));
  if (opts.maxCost !== null && (held.length || capped.transport.costCap?.reached))
    throw new CostCapExceeded(
      `stopped at --max-cost ${usd(opts.maxCost)}: paid ${usd(paidUnder(root))} in all under ${relative(process.cwd(), join(root, 'paper')) || '.'}; ` +
        `${held.length} run${held.length === 1 ? '' : 's'} held back; the same command with a higher --max-cost goes on`,
    );
}

/** The pre-flight of the runs not skipped (exit 2 with every problem); the options with the memory services it reached. */
async function paperPreflight(runs: PlannedRun[], opts: PaperRunOptions, log: (s: string) => void): Promise<PaperRunOptions> {
  const cells = runs
    .filter((r) => !r.skip && r.prepared)
    .flatMap((r) => {
      const p = r.prepared!;
      const label = relative(process.cwd(), r.dir) || r.dir;
      return p.kind === 'run' ? [{ cfg: p.cfg, label }] : p.plan.variants.map((v) => ({ cfg: v.cfg, label }));
    });
  if (cells.length === 0) return opts;
  const { notes, reachedServices } = await preflight(cells, opts.transport, { reach: opts.reach !== false });
  for (const note of notes) log(`note: ${note}`);
  return reachedServices.length ? { ...opts, transport: { ...opts.transport, reachedServices } } : opts;
}

/** One planned run, unless it was skipped or its estimate exceeds what is left of the cap; what it spent is added to `spent`. */
async function runWithinCap(
  r: PlannedRun,
  label: string,
  spent: { usd: number },
  opts: PaperRunOptions,
  out: (s: string) => void,
  log: (s: string) => void,
): Promise<void> {
  if (r.skip) return;
  if (opts.maxCost !== null) {
    const left = opts.maxCost - spent.usd;
    if (r.estimate === null || r.estimate.cost_usd === null) {
      r.skip = 'its cost is unknown (a model without a price) and --max-cost is set';
      return;
    }
    if (r.estimate.cost_usd > left) {
      r.skip = `its estimate ${usd(r.estimate.cost_usd)} exceeds the ${usd(left)} left of --max-cost ${usd(opts.maxCost)}`;
      return;
    }
  }
  out('');
  out(`== ${label}: ${r.command}`);
  try {
    await executeStep(r, opts, out, log);
  } catch (e) {
    // An interruption or an internal error stops the whole command; bad input stops this run only.
    if (e instanceof Interrupted || !(e instanceof InputError)) throw e;
    r.skip = `stopped: ${e.message}`;
    return;
  }
  // What it really paid (an unknown price: its estimate stands in).
  spent.usd += r.spent ?? r.estimate?.cost_usd ?? 0;
}

/** What ran, what it spent, what failed and what was skipped and why. */
function report(runs: PlannedRun[], paid: { before: number; after: number }, out: (s: string) => void): void {
  out('');
  out(
    `rawrag paper --run: ${runs.filter((r) => r.spent !== null).length} runs done, paid ${usd(paid.after - paid.before)} in this invocation ` +
      `(${usd(paid.after)} in all by the runs under paper/, earlier invocations included: what --max-cost counts)`,
  );
  out(planTable(runs));
  for (const r of runs.filter((x) => x.failed > 0))
    out(`${r.failed} items of ${relative(process.cwd(), r.dir)} failed: the same command with --retry-errors redoes them`);
  for (const r of runs.filter((x) => x.skip)) out(`skipped: ${relative(process.cwd(), r.dir)} (${r.items.join(', ')}): ${r.skip}`);
  out('then: rawrag paper (the items these runs reproduce fill in)');
}
