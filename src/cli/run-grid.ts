/**
 * `rawrag run` over a grid: comma lists of benchmarks, readers, systems or retrievers, and
 * `--config` naming several files or a folder. Every combination is a cell, derived exactly as a
 * single run's config is (the config file's layers, then the flags, with the cell's own values in
 * place of the lists), so any other flag applies to every cell. One run directory per cell under
 * the set folder (`--out`), set.json beside them; the cells share one provider concurrency budget
 * and one `--max-cost`; a status table at the end. Exit codes: those of a run, and 7 when a cell
 * failed as a whole (the others still ran).
 */
import { mergeFailureGroups, type FailureGroup } from '../run-files/failures.js';
import { printOut } from '../util/stdout.js';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { displayPath } from '../util/paths.js';
import type { Command } from 'commander';
import type { RunConfig } from '../config/schema.js';
import { listBenchmarks } from '../benchmarks/registry.js';
import { estimateRun } from '../pipeline/estimate.js';
import { ConcurrencyPool } from '../providers/limits.js';
import { defaultTransport, type TransportOptions } from '../providers/transport.js';
import { gridCells, shardOf, splitList, type Axis, type Cell, type Shard } from '../grid/cells.js';
import { readSet, writeSet } from '../grid/set-manifest.js';
import { runSet, type CellOutcome } from '../grid/run-set.js';
import { InputError, UsageError } from '../util/errors.js';
import { Flushes, Interrupted, untilStopped, watchInterrupts } from '../util/interrupt.js';
import { markdownTable } from '../util/table.js';
import { configFromFlags, transportFromFlags, type GridCell } from './options.js';
import { declaredOptions } from './system-options.js';
import { getSystem } from '../systems/registry.js';
import { capLine, capTransport, doneIds, maxCostOf, recordedSpend } from './cost-cap.js';
import { CostCapExceeded, GridFailures, ItemFailures, retryCommand } from './exit.js';
import { progressBar } from './progress.js';
import { firstTime } from './notes-once.js';
import { GridProgress, type CellPlan } from './grid-progress.js';
import { loadRunInputs } from '../pipeline/plan.js';
import { runLine } from './commands/runs.js';
import { runPreflight, withPreflightFlags } from './preflight.js';
import { requireCellConfigs, type ResumeTarget } from '../resume/target.js';
import { invocationFor, withoutShard } from '../run-files/invocation.js';

/** Flags whose comma list makes a grid (the benchmark argument too). */
const LIST_FLAGS = ['reader', 'system', 'retriever'] as const;

/** True when the command asks for more than one run: a list in the benchmark or a listed flag, or several config files. */
export function isGrid(cmd: Command, benchmark: string | undefined): boolean {
  const o = cmd.opts();
  const typed = (k: string) => cmd.getOptionValueSource(k) === 'cli' && typeof o[k] === 'string';
  if (benchmark?.includes(',')) return true;
  if (LIST_FLAGS.some((k) => typed(k) && (o[k] as string).includes(','))) return true;
  const config = o.config as string | undefined;
  return config !== undefined && (config.includes(',') || (existsSync(config) && statSync(config).isDirectory()));
}

/** The config files a `--config` value names: a comma list, or a folder's *.yaml / *.yml / *.json in name order. */
export function configFiles(value: string | undefined): Array<string | null> {
  if (value === undefined) return [null];
  return splitList(value).flatMap((p) => {
    if (!existsSync(p)) throw new InputError('config file not found', { file: p });
    if (!statSync(p).isDirectory()) return [p];
    const files = readdirSync(p)
      .filter((f) => ['.yaml', '.yml', '.json'].includes(extname(f)))
      .sort()
      .map((f) => join(p, f));
    if (files.length === 0) throw new InputError('the folder holds no config file (*.yaml, *.yml, *.json)', { file: p });
    return files;
  });
}

/** `--shard I/N`. */
export function parseShard(value: string | undefined): Shard | null {
  if (value === undefined) return null;
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  const [index, count] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || count < 1 || index < 1 || index > count) throw new UsageError(`--shard: '${value}' is not I/N with 1 <= I <= N (e.g. 2/3)`);
  return { index, count };
}

/**
 * `--data` in a grid: one path for a grid of one benchmark, or `NAME=PATH` pairs (comma-separated)
 * naming each benchmark's data; a benchmark not named reads its default.
 */
function dataChoice(value: string | undefined): ((benchmark: string) => string | null | undefined) | null {
  if (value === undefined) return null;
  const names = new Set(listBenchmarks().map((b) => b.name));
  const pairs = splitList(value).map((p) => /^([A-Za-z0-9_-]+)=(.+)$/.exec(p));
  if (!pairs.every((m) => m && names.has(m[1]!.toLowerCase()))) return null;
  const byName = new Map(pairs.map((m) => [m![1]!.toLowerCase(), m![2]!]));
  return (benchmark) => byName.get(benchmark) ?? null;
}

/** Every cell's config, in the order given: config files, then benchmarks, systems, retrievers, readers. */
function cellConfigs(cmd: Command, benchmark: string | undefined): Array<{ cfg: RunConfig; configFile: string | null }> {
  const o = cmd.opts();
  const list = (k: string) => (cmd.getOptionValueSource(k) === 'cli' ? splitList(o[k] as string) : [undefined]);
  const benchmarks = benchmark ? splitList(benchmark) : [undefined];
  const data = dataChoice(o.data as string | undefined);
  const out: Array<{ cfg: RunConfig; configFile: string | null }> = [];
  for (const config of configFiles(o.config as string | undefined))
    for (const b of benchmarks)
      for (const system of list('system'))
        for (const retriever of list('retriever'))
          for (const reader of list('reader')) {
            const cell: GridCell = { config, system, retriever, reader, ...(data ? { data: null } : {}) };
            let cfg = configFromFlags(cmd, b, cell);
            const path = data?.(cfg.benchmark);
            if (path) cfg = configFromFlags(cmd, b, { ...cell, data: path });
            out.push({ cfg, configFile: config });
          }
  checkSystemOptions(
    (o.systemOption as string[] | undefined) ?? [],
    out.map((c) => c.cfg.system),
  );
  const benchmarksRun = new Set(out.map((c) => c.cfg.benchmark));
  if (o.data !== undefined && !data && benchmarksRun.size > 1)
    throw new UsageError(
      `--data: the grid runs ${[...benchmarksRun].join(', ')}: name each one's data as NAME=PATH (e.g. --data longmemeval=lme.json)`,
    );
  return out;
}

/** In a grid each cell takes the `-S` options its system declares: each must be declared by one of the grid's systems. */
function checkSystemOptions(pairs: string[], systems: string[]): void {
  const declared = new Set([...new Set(systems)].flatMap((n) => declaredOptions(getSystem(n))));
  for (const pair of pairs) {
    const key = pair.slice(0, pair.indexOf('=')).trim().split('.')[0]!;
    if (!declared.has(key))
      throw new UsageError(
        `-S ${key}: not an option of any system in this grid (${[...new Set(systems)].join(', ')}; rawrag systems NAME)`,
      );
  }
}

/** The axes the command line lists (a cell read from a config file is named by the file and these). */
function listedAxes(cmd: Command, benchmark: string | undefined): Set<Axis> {
  const o = cmd.opts();
  const axes = new Set<Axis>();
  if (benchmark?.includes(',')) axes.add('benchmark');
  for (const k of LIST_FLAGS) if (cmd.getOptionValueSource(k) === 'cli' && (o[k] as string).includes(',')) axes.add(k);
  return axes;
}

/** The cells of a set folder being resumed, from its set.json. */
function recordedCells(t: Extract<ResumeTarget, { kind: 'grid' }>): { cells: Cell[]; setDir: string; repeats: string[] } {
  requireCellConfigs(t);
  const setDir = resolve(t.dir);
  const cells = t.set.cells.map((c, i) => ({
    name: c.name,
    cfg: c.config!,
    configFile: c.config_file,
    dir: join(setDir, c.name),
    index: i + 1,
  }));
  return { cells, setDir, repeats: [] };
}

export async function runGrid(cmd: Command, benchmark: string | undefined, resumed: ResumeTarget | null = null): Promise<void> {
  const o = cmd.opts();
  if (o.batch || o.batchEmbeddings) throw new UsageError('--batch runs one configuration: run the cells of a grid one by one with --batch');
  const shard = parseShard(o.shard as string | undefined);
  const maxCost = maxCostOf(cmd);
  const { cells, setDir, repeats } =
    resumed?.kind === 'grid'
      ? recordedCells(resumed)
      : gridCells(cellConfigs(cmd, benchmark), (o.out as string | undefined) ?? null, listedAxes(cmd, benchmark));
  const log = (line: string) => process.stderr.write(line + '\n');
  for (const r of repeats) log(`note: ${r}`);
  const mine = shardOf(cells, shard);
  let base = withPreflightFlags(cmd, transportFromFlags(cmd));
  if (o.dryRun) {
    printOut((await gridEstimate(mine, base, maxCost)) + '\n');
    return;
  }
  const previous = readSet(setDir);
  // Every cell's data, models, keys and endpoints, before the first cell starts.
  base = await runPreflight(
    cmd,
    mine.map((c) => ({ cfg: c.cfg, label: c.name })),
    base,
    log,
  );
  log(
    `grid: ${cells.length} cells${shard ? `, this machine runs ${mine.length} (shard ${shard.index}/${shard.count})` : ''} in ${displayPath(setDir)}`,
  );
  const invocation = invocationFor(cmd, previous?.invocation);
  writeSet(setDir, cells, previous, withoutShard(invocation));
  // One concurrency budget per provider endpoint for every cell of this process.
  let transport: Partial<TransportOptions> = { ...base, pool: new ConcurrencyPool(base.concurrency ?? defaultTransport().concurrency) };
  if (maxCost !== null) {
    // A cell that cannot run (its data missing) fails on its own and costs nothing.
    const estimate = (c: Cell) =>
      estimateRun(c.cfg, base, { skip: doneIds(c.dir, Boolean(o.retryErrors)) }).then(
        (e) => e.cost_usd,
        (e: unknown) => {
          if (e instanceof InputError) return 0;
          throw e;
        },
      );
    const costs: Array<number | null> = [];
    for (const c of mine) costs.push(await estimate(c));
    const sum = costs.some((x) => x === null) ? null : costs.reduce<number>((s, x) => s + x!, 0);
    const spentBefore = recordedSpend(mine.map((c) => c.dir));
    transport = capTransport(transport, {
      usd: maxCost,
      spentBefore,
      estimateUsd: sum,
      what: `the questions still to do in ${mine.length} cells`,
    });
  }
  const { outcomes, signal } = await runCells(cmd, mine, transport, invocation);
  const table = statusTable(cells, outcomes, shard, setDir);
  if (o.json) printOut(JSON.stringify({ set: setDir, cells: table.rows }, null, 2) + '\n');
  else printOut(table.text + '\n');
  exitFor(outcomes, { transport, setDir, signal, maxRate: o.maxErrorRate as number | undefined });
}

/** Runs this machine's cells under one progress bar (questions of all cells) and one signal watch. */
async function runCells(
  cmd: Command,
  cells: Cell[],
  transport: Partial<TransportOptions>,
  invocation: import('../run-files/invocation.js').Invocation,
): Promise<{ outcomes: CellOutcome[]; signal: 'SIGINT' | 'SIGTERM' | null }> {
  const o = cmd.opts();
  const bar = progressBar(`grid (${cells.length} cells)`, o.progress !== false);
  const interrupts = watchInterrupts(
    () => bar.stop(),
    () => bar.stop(),
  );
  // After a signal only the cells that have begun writing are awaited (their flush), never startup work.
  const flushes = new Flushes();
  const begun = new Set<string>();
  const stoppedOutcomes = (): CellOutcome[] =>
    cells.map((cell) => ({ cell, status: begun.has(cell.name) ? 'interrupted' : 'not started' }));
  // A warning or note every cell of a benchmark would repeat (data warnings, the retriever's note) is printed once.
  const said = new Set<string>();
  try {
    // Every cell's selection counted and its phases planned before the first starts: no total grows.
    const planned = await untilStopped(plannedCells(cells, transport, Boolean(o.retryErrors)), interrupts.signal, flushes);
    if (!planned.done) return { outcomes: stoppedOutcomes(), signal: interrupts.reason() };
    const progress = new GridProgress(planned.value);
    const set = runSet(
      {
        cells,
        transport,
        parallel: (o.parallelCells as number | undefined) ?? 4,
        retryErrors: Boolean(o.retryErrors),
        forceResume: Boolean(o.forceResume),
        verbose: Boolean(o.verbose),
        name: (o.name as string | undefined) ?? null,
        invocation,
      },
      {
        log: (cell, line) => {
          if ((/^(warning|note): /.test(line) && said.has(line)) || !firstTime(line)) return;
          said.add(line);
          bar.stop();
          process.stderr.write(`[${cell.name}] ${line}\n`);
        },
        progress: (cell, done, total, info = {}) => {
          const g = progress.update(cell.name, done, total, info);
          bar.update(g.done, g.total, g.info);
        },
        signal: interrupts.signal,
        flushes,
        started: (cell) => void begun.add(cell.name),
      },
    );
    const ran = await untilStopped(set, interrupts.signal, flushes);
    return { outcomes: ran.done ? ran.value : stoppedOutcomes(), signal: interrupts.reason() };
  } finally {
    bar.stop();
    interrupts.dispose();
  }
}

interface StatusRow {
  cell: string;
  benchmark: string;
  setting: string | null;
  system: string;
  status: string;
  n: number | null;
  selected: number | null;
  errors: number | null;
  headline: string | null;
  spent_usd: number | null;
  directory: string;
  error?: string;
}

/** One row per cell of the grid (this machine's, and the other shards' as far as their folders are here). */
function statusTable(cells: Cell[], outcomes: CellOutcome[], shard: Shard | null, setDir: string): { text: string; rows: StatusRow[] } {
  const byName = new Map(outcomes.map((x) => [x.cell.name, x]));
  const rows = cells.map((c): StatusRow => {
    const ran = byName.get(c.name);
    const dir = displayPath(c.dir);
    const has = existsSync(join(c.dir, 'manifest.json'));
    const line = has ? runLine(c.dir) : null;
    const manifestSpent = has ? recordedSpend([c.dir]) : null;
    const status = ran
      ? ran.status === 'not started'
        ? 'not started'
        : ran.status
      : (line?.status ?? (shard ? `other shard (${((c.index - 1) % shard.count) + 1}/${shard.count})` : 'not started'));
    return {
      cell: c.name,
      benchmark: c.cfg.benchmark,
      setting: line?.setting ?? null,
      system: line?.system ?? c.cfg.system,
      status,
      n: line?.n ?? null,
      selected: line?.selected ?? null,
      errors: line?.errors ?? null,
      headline: line?.headline ? `${line.headline.metric} ${(100 * line.headline.value).toFixed(2)} %` : null,
      spent_usd: manifestSpent,
      directory: dir,
      ...(ran?.error ? { error: ran.error } : {}),
    };
  });
  // The cell's name is its folder under the set folder (the line below the table).
  const text = markdownTable(
    ['cell', 'setting', 'system', 'status', 'n', 'errors', 'headline', 'paid'],
    rows.map((r) => [
      r.cell,
      r.setting ?? '—',
      r.system,
      r.status,
      r.n === null ? '—' : r.selected !== null && r.selected !== r.n ? `${r.n}/${r.selected}` : String(r.n),
      r.errors ?? '—',
      r.headline ?? '—',
      r.spent_usd === null ? '—' : `$${r.spent_usd.toFixed(4)}`,
    ]),
    ['l', 'l', 'l', 'l', 'r', 'r', 'l', 'r'],
  );
  const failures = rows.filter((r) => r.error).map((r) => `FAILED ${r.cell}: ${r.error}`);
  const tail = [
    `set folder: ${displayPath(setDir)} (one run directory per cell, set.json; rawrag stats ${displayPath(setDir)} compares them)`,
  ];
  return { text: [text, ...failures, ...tail].join('\n'), rows };
}

/** The grid's exit: interrupted, stopped by the cost cap, failed cells (7), failed items (4), or 0. */
function exitFor(
  outcomes: CellOutcome[],
  o: { transport: Partial<TransportOptions>; setDir: string; signal: 'SIGINT' | 'SIGTERM' | null; maxRate?: number },
): void {
  const { transport, setDir } = o;
  const maxRate = o.maxRate ?? 0;
  if (o.signal) {
    const lines = outcomes.map((x) => (existsSync(join(x.cell.dir, 'manifest.json')) ? runLine(x.cell.dir) : null));
    const done = lines.reduce((s, l) => s + (l?.n ?? 0), 0);
    const total = lines.reduce((s, l) => s + (l?.selected ?? l?.n ?? 0), 0);
    throw new Interrupted(o.signal, done, total);
  }
  const cap = transport.costCap;
  if (cap?.reached) {
    const stopped = outcomes.filter((x) => x.status === 'stopped-cost-cap' || x.status === 'not started').length;
    throw new CostCapExceeded(
      `stopped before crossing --max-cost $${cap.capUsd.toFixed(4)}: paid $${cap.spent.toFixed(4)} in all; ${stopped} of ${outcomes.length} cells not finished (held back: ${cap.stoppedAt ?? 'a request'}); ` +
        'the same command with a higher --max-cost resumes the set',
    );
  }
  const failed = outcomes.filter((x) => x.status === 'failed');
  if (failed.length)
    throw new GridFailures(
      `${failed.length} of ${outcomes.length} cells failed (${failed.map((x) => x.cell.name).join(', ')}); the others ran. The same command runs the failed ones again`,
    );
  const summaries = outcomes.flatMap((x) => (x.outcome ? [x.outcome.summary] : []));
  const errors = summaries.reduce((s, x) => s + x.errors, 0);
  const n = summaries.reduce((s, x) => s + x.n, 0);
  const over = summaries.some((x) => x.errors > 0 && x.errors / Math.max(1, x.n) > maxRate);
  if (over) {
    // The reasons over every cell, grouped as one run's are (a cell's groups merged by stage and reason).
    const reasons = mergeFailureGroups(summaries.map((x) => (x as { failures?: FailureGroup[] }).failures ?? []));
    throw new ItemFailures(errors, n, maxRate, `${retryCommand(process.argv)} --retry-errors --out ${setDir}`, reasons);
  }
}

/** `--dry-run` of a grid: each cell's calls and cost, and the total. */
async function gridEstimate(cells: Cell[], transport: Partial<TransportOptions>, maxCost: number | null): Promise<string> {
  const rows: Array<Array<string | number>> = [];
  const notes = new Set<string>();
  let total: number | null = 0;
  const failed: string[] = [];
  for (const c of cells) {
    let e: Awaited<ReturnType<typeof estimateRun>>;
    try {
      e = await estimateRun(c.cfg, transport);
    } catch (err) {
      // A cell that cannot run (its data missing) would fail alone; the others are still estimated.
      if (!(err instanceof InputError)) throw err;
      rows.push([c.name, '—', '—', 'cannot run']);
      failed.push(`${c.name}: ${err.message}`);
      continue;
    }
    const calls = e.roles.reduce((s, r) => s + r.calls, 0);
    rows.push([c.name, e.questions, calls, e.cost_usd === null ? 'unknown' : `$${e.cost_usd.toFixed(4)}`]);
    total = total === null || e.cost_usd === null ? null : total + e.cost_usd;
    for (const n of e.notes) notes.add(n);
  }
  const usd = total === null ? 'unknown' : `$${total.toFixed(4)}`;
  return [
    `dry run: a grid of ${cells.length} cells`,
    '',
    markdownTable(['cell', 'questions', 'provider calls', 'est. cost'], rows, ['l', 'r', 'r', 'r']),
    '',
    `estimated total: ${usd} (before cache hits; evidence and reply lengths are estimates; rawrag run <one cell's flags> --dry-run details a cell)`,
    ...[...notes].map((n) => `NOTE: ${n}`),
    ...failed.map((f) => `CANNOT RUN ${f}`),
    ...(maxCost === null ? [] : [capLine(maxCost, total)]),
    'nothing was sent and no run directory was written',
  ].join('\n');
}

/** Each cell's question count and phase totals (null where its inputs cannot be read: the cell will fail and say why). */
async function plannedCells(
  cells: Cell[],
  transport: Partial<TransportOptions>,
  retryErrors: boolean,
): Promise<Map<string, CellPlan | null>> {
  const out = new Map<string, CellPlan | null>();
  for (const c of cells) {
    try {
      const questions = (await loadRunInputs(c.cfg)).questions.length;
      // Each phase as the cell's run will plan it: what its folder does not hold yet (a resume).
      const { phases } = await estimateRun(c.cfg, transport, { skip: doneIds(c.dir, retryErrors) });
      out.set(c.name, { questions, phases });
    } catch {
      out.set(c.name, null);
    }
  }
  return out;
}
