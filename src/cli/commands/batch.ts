/** `rawrag batch status|collect DIR`: the batch jobs of a run directory (see docs/models.md, Batch). */
import { Command } from 'commander';
import { resolve } from 'node:path';
import { BatchJobs, type CollectReport } from '../../providers/batch/jobs.js';
import { BatchStore, TERMINAL, type BatchUsage } from '../../providers/batch/state.js';
import { ProviderSession } from '../../providers/session.js';
import { defaultTransport } from '../../providers/transport.js';
import { InputError } from '../../util/errors.js';
import { markdownTable } from '../../util/table.js';
import { executeRun, type RunHooks, type RunOutcome, type RunRequest } from '../../pipeline/run.js';
import { runDirFor, runIdFor } from '../../pipeline/plan.js';
import { RunDir } from '../../run/rundir.js';
import { judgeModelFor } from '../../core/protocol.js';
import { getBenchmark } from '../../datasets/registry.js';
import { acquireRunLock } from '../../run/lock.js';
import { batchApi, runWithBatches, type BatchLoopOutcome } from '../../providers/batch/loop.js';
import { addCost, costOf } from '../../providers/usage.js';
import { nonNegativeInteger, positiveNumber } from '../options.js';

interface BatchFlags {
  cacheDir?: string;
  timeout?: number;
  maxRetries?: number;
  offline?: boolean;
  wait?: boolean;
  /** `batch status`: a busy directory is shown offline rather than refused. */
  statusOnly?: boolean;
}

/** The run's batch jobs, with a provider session writing to the cache the run uses. */
function open(dir: string, flags: BatchFlags): { jobs: BatchJobs; session: ProviderSession; offline: boolean; release(): void } {
  const store = new BatchStore(resolve(dir));
  if (!store.exists())
    throw new InputError('no batch jobs here (batches.json is written by `rawrag run ... --batch`)', { file: store.file });
  const state = store.load();
  const cacheDir = flags.cacheDir ?? state.cache_dir;
  if (!cacheDir) throw new InputError('the run was made with --no-cache: batch replies have no cache to go to', { file: store.file });
  const session = new ProviderSession({
    cacheDir,
    ...(flags.timeout !== undefined ? { timeoutMs: Math.round(flags.timeout * 1000) } : {}),
    ...(flags.maxRetries !== undefined ? { retry: { ...defaultTransport().retry, maxRetries: flags.maxRetries } } : {}),
  });
  // Refreshing and collecting write batches.json: one writer at a time. A status asked while a
  // command is busy with the run (waiting for its batches, say) shows the recorded state instead.
  let lock: ReturnType<typeof acquireRunLock> | null = null;
  let offline = Boolean(flags.offline);
  if (!offline) {
    try {
      lock = acquireRunLock(store.dir);
    } catch (e) {
      if (!(e instanceof InputError) || !flags.statusOnly) throw e;
      process.stderr.write(`note: ${e.message.split(';')[0]}: showing the recorded state\n`);
      offline = true;
    }
  }
  const jobs = new BatchJobs({ dir: store.dir, runId: state.run_id, session, log: (l) => process.stderr.write(l + '\n') });
  jobs.reload();
  return {
    jobs,
    session,
    offline,
    release: () => {
      session.close();
      lock?.release();
    },
  };
}

function table(jobs: BatchJobs): string {
  const rows = jobs.parts.map((p) => [
    p.part,
    p.batch_id ?? '-',
    p.model,
    Object.entries(p.roles)
      .map(([r, n]) => `${n} ${r}`)
      .join(', '),
    p.batch_id === null ? 'not submitted' : p.status,
    p.counts && p.counts.total > 0 ? `${p.counts.completed}/${p.counts.total}` : '-',
    p.counts?.failed ?? 0,
    p.collected ? `${p.collected.stored} stored` : TERMINAL.has(p.status) ? 'not yet' : '-',
  ]);
  return markdownTable(['part', 'batch', 'model', 'requests', 'status', 'completed', 'failed', 'collected'], rows, [
    'r',
    'l',
    'l',
    'l',
    'l',
    'r',
    'r',
    'l',
  ]);
}

function cost(label: string, usage: Record<string, BatchUsage>): string {
  const usd = (x: number | null) => (x === null ? 'unknown' : `$${x.toFixed(4)}`);
  const roles = Object.entries(usage);
  if (roles.length === 0) return `${label}: nothing collected`;
  const all = roles.reduce<number | null>((s, [, u]) => addCost(s, u.cost_usd), 0);
  return `${label} at batch prices: ${usd(all)} (${roles.map(([r, u]) => `${r} ${u.replies} replies ${usd(u.cost_usd)}`).join('; ')})`;
}

function summary(dir: string, jobs: BatchJobs, r: CollectReport): string {
  const lines = [
    `collected ${r.stored} replies into the response cache; ${r.failed} requests failed; ${r.resubmitted} unfinished requests resubmitted`,
  ];
  for (const l of r.lost) lines.push(`LOST: ${l}`);
  const failures = jobs.failures().size;
  if (failures > 0)
    lines.push(
      `${failures} requests failed inside batches: the next \`rawrag run\` makes them item errors; \`rawrag run ... --retry-errors\` sends them again`,
    );
  const live = jobs.live().length;
  lines.push(
    live > 0
      ? `${live} batches still running: \`rawrag batch collect ${dir}\` again later (or with --wait)`
      : `all batches collected: \`rawrag run\` with the same flags (and --out ${dir}) finishes the run from the cache`,
  );
  return lines.join('\n');
}

export function batchCommand(): Command {
  const cmd = new Command('batch').description(
    'Batch jobs of a run made with `rawrag run --batch`: their state, and collecting their replies into the cache',
  );
  const common = (c: Command) =>
    c
      .exitOverride()
      .argument('<dir>', 'run directory')
      .option('--cache-dir <dir>', 'response cache to fill (default: the one the run used, recorded in batches.json)')
      .option('--timeout <seconds>', 'per-request timeout (default 120)', positiveNumber)
      .option('--max-retries <n>', 'retries after a failed request (default 5)', nonNegativeInteger);
  cmd.addCommand(
    common(new Command('status'))
      .description('ask the provider for the state of every batch of the run and print it')
      .option('--offline', 'print the recorded state without asking the provider')
      .action(async (dir: string, flags: BatchFlags) => {
        const { jobs, release, offline } = open(dir, { ...flags, statusOnly: true });
        try {
          if (!offline) await batchApi(() => jobs.refresh());
          const failures = jobs.failures().size;
          process.stdout.write(`${table(jobs)}\n${failures > 0 ? `${failures} requests recorded as failed\n` : ''}`);
        } finally {
          release();
        }
      }),
  );
  cmd.addCommand(
    common(new Command('collect'))
      .description('download the results of finished batches into the response cache (expired batches: resubmit the unfinished requests)')
      .option('--wait', 'poll (with backoff) until every batch has finished, collecting as they do')
      .action(async (dir: string, flags: BatchFlags) => {
        const { jobs, release } = open(dir, flags);
        try {
          await batchApi(() => jobs.refresh());
          const r = await batchApi(() => (flags.wait ? jobs.wait() : jobs.collect()));
          process.stdout.write(
            `${table(jobs)}\n\n${summary(dir, jobs, r)}\n${cost('cost of this collection', r.usage)}\n${cost('cost of all batch replies of the run', jobs.usage())}\n`,
          );
        } finally {
          release();
        }
      }),
  );
  return cmd;
}

export interface BatchedRun {
  /** The final pass's outcome when the run is complete, else null (batches still running). */
  outcome: RunOutcome | null;
  loop: BatchLoopOutcome<RunOutcome>;
  dir: string;
  jobs: BatchJobs;
  /** Reader/judge replies of the run from batches: cost at batch prices, and what they would cost interactively. */
  cost: { batch_usd: number | null; interactive_usd: number | null };
}

/** What a batched command needs: where its batch state lives, which models it batches, and its pass. */
export interface BatchedPasses<T> {
  dir: string;
  runId: string;
  transport: RunRequest['transport'];
  /** Chat models (role, registry name) whose requests go to batches: each needs `batchPrices`. */
  models: Array<readonly ['reader' | 'judge', string]>;
  embeddings?: boolean;
  /** Embedding model to batch with --batch-embeddings (null: the retriever embeds nothing remotely). */
  embedModel?: string | null;
  wait: boolean;
  retryErrors?: boolean;
  log(line: string): void;
  signal?: AbortSignal;
  pass(transport: RunRequest['transport'], index: number): Promise<T>;
}

/** Runs `pass` under runWithBatches with the checks every batched command shares; prices the batch replies. */
export async function withBatches<T>(
  o: BatchedPasses<T>,
): Promise<{ last: T | null; loop: BatchLoopOutcome<T>; jobs: BatchJobs; cost: BatchedRun['cost'] }> {
  const session = new ProviderSession({ ...o.transport, defer: undefined });
  try {
    if (session.cache.dir === null)
      throw new InputError('--batch fills the response cache, so it cannot run with --no-cache', { place: '--batch' });
    if (o.models.length === 0)
      throw new InputError('--batch sends reader and judge requests: name a reader (--reader MODEL)', { place: '--batch' });
    for (const [role, name] of o.models) {
      const entry = session.model(name, role);
      if (!entry.batchPrices)
        throw new InputError(`${role} model '${name}' has no batch API in the model registry (no batchPrices): run it without --batch`, {
          file: session.registry.file,
          place: `models.${name}`,
        });
    }
    if (o.embeddings) {
      if (!o.embedModel)
        throw new InputError('--batch-embeddings: this retriever embeds nothing through a provider', { place: '--batch-embeddings' });
      const entry = session.model(o.embedModel, 'embed');
      if (!entry.batchPrices)
        throw new InputError(
          `embedding model '${o.embedModel}' has no batch API in the model registry (no batchPrices): drop --batch-embeddings`,
          { file: session.registry.file, place: `models.${o.embedModel}` },
        );
    }
    const jobs = new BatchJobs({ dir: o.dir, runId: o.runId, session, log: o.log });
    const loop = await runWithBatches({
      jobs,
      lock: () => acquireRunLock(o.dir),
      signal: o.signal,
      wait: o.wait,
      retryErrors: o.retryErrors,
      embeddings: o.embeddings,
      log: o.log,
      pass: (defer, i) => o.pass({ ...o.transport, defer }, i),
    });
    let batchUsd: number | null = 0;
    let interactiveUsd: number | null = 0;
    for (const p of jobs.parts) {
      for (const [role, u] of Object.entries(p.collected?.usage ?? {})) {
        const entry = session.model(p.model, role as 'reader' | 'judge' | 'embed');
        const full = costOf({ prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens, search_units: 0 }, entry.prices);
        interactiveUsd = addCost(interactiveUsd, full);
        batchUsd = addCost(batchUsd, u.cost_usd);
      }
    }
    return { last: loop.complete ? loop.last : null, loop, jobs, cost: { batch_usd: batchUsd, interactive_usd: interactiveUsd } };
  } finally {
    session.close();
  }
}

/**
 * `rawrag run ... --batch`: the run's normal pass, repeated with deferral (see batch/loop.ts).
 * Reader and judge models must have a batch API in the registry (`batchPrices`).
 */
export async function runBatched(req: RunRequest, hooks: RunHooks, opts: { wait: boolean; embeddings?: boolean }): Promise<BatchedRun> {
  const { cfg } = req;
  const dir = runDirFor(cfg, req.out);
  const b = await withBatches({
    dir,
    runId: runIdFor(cfg),
    transport: req.transport,
    models: batchedModels(cfg),
    embeddings: opts.embeddings,
    embedModel: embedModelOf(cfg.retrieval.retriever, req.transport),
    wait: opts.wait,
    retryErrors: req.retryErrors,
    log: hooks.log,
    signal: hooks.signal,
    // --retry-errors drops the failed items on the first pass only; later passes keep what they wrote.
    pass: (transport, i) => executeRun({ ...req, out: dir, retryErrors: i === 0 && req.retryErrors, transport }, hooks),
  });
  const outcome = b.last;
  if (outcome) {
    // The summary of a batch run also says what its batches were and cost.
    const batch = {
      jobs: b.jobs.parts.filter((p) => p.batch_id !== null).length,
      usage: b.jobs.usage(),
      cost_usd: b.cost.batch_usd,
      cost_usd_interactive: b.cost.interactive_usd,
    };
    Object.assign(outcome.summary, { batch });
    new RunDir(dir).writeSummary(outcome.summary);
  }
  return { outcome, loop: b.loop, dir, jobs: b.jobs, cost: b.cost };
}

/** The reader and judge models a config's batch jobs serve (none without a reader). */
export function batchedModels(cfg: RunRequest['cfg']): Array<readonly ['reader' | 'judge', string]> {
  if (!cfg.reader.model) return [];
  return [
    ['reader', cfg.reader.model],
    ['judge', judgeModelFor(cfg.judge.model, getBenchmark(cfg.benchmark).defaultJudgeModel)],
  ];
}

/** The embedding model a retriever uses through a provider, if any. */
export function embedModelOf(retriever: string, transport: RunRequest['transport']): string | null {
  const session = new ProviderSession({ ...transport, noCache: true, defer: undefined });
  try {
    return session.registry.retrievers[retriever]?.embed ?? null;
  } finally {
    session.close();
  }
}

/** The lines `rawrag run --batch` prints after the run's report (or instead of it, when batches are still running). */
export function renderBatched(b: BatchedRun, resume: string): string {
  const usd = (x: number | null) => (x === null ? 'unknown' : `$${x.toFixed(4)}`);
  const lines = ['', 'Batch jobs:', table(b.jobs)];
  const u = b.jobs.usage();
  const roles = Object.entries(u).map(([r, x]) => `${r} ${x.replies}`);
  lines.push(
    `replies from batches: ${roles.join(', ') || 'none'}; cost at batch prices ${usd(b.cost.batch_usd)} (interactive prices: ${usd(b.cost.interactive_usd)})`,
  );
  for (const l of b.loop.collected.lost) lines.push(`LOST: ${l}`);
  const failures = b.jobs.failures().size;
  if (failures > 0) lines.push(`${failures} requests failed inside batches (item errors); ${resume} --retry-errors sends them again`);
  if (!b.outcome) {
    const live = b.jobs.live().length;
    lines.push(
      live > 0
        ? `${live} batch jobs running (the provider has up to 24 h). Nothing is lost if this machine stops.`
        : 'batch results are ready: run the command again to collect them and go on.',
    );
    lines.push(`resume: ${resume}   (or: rawrag batch status ${b.dir})`);
  }
  return lines.join('\n');
}
