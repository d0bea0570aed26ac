/**
 * The batched passes of a run or an ablation (`--batch`): the command's normal pass repeated with
 * deferral (providers/batch/loop.ts) until every reply came from a provider batch job, with the
 * checks every batched command shares and the batch replies priced.
 */
import { BatchJobs } from '../providers/batch/jobs.js';
import { runWithBatches, type BatchLoopOutcome } from '../providers/batch/loop.js';
import { ProviderSession } from '../providers/session.js';
import { addCost, costOf } from '../providers/usage.js';
import { judgeModelFor } from '../core/protocol.js';
import { getBenchmark } from '../benchmarks/registry.js';
import { acquireRunLock } from '../run-files/lock.js';
import { RunDir } from '../run-files/run-dir.js';
import { InputError } from '../util/errors.js';
import { runDirFor, runIdFor } from './plan.js';
import { executeRun, type RunHooks, type RunOutcome, type RunRequest } from './run.js';

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
      if (!entry.batchPrices && entry.unlisted && entry.batchApi)
        throw new InputError(
          `${role} model '${name}' is not listed in the model registry, so its batch prices are unknown: list it with batchPrices in your --models file (docs/models.md, "Batch APIs"), or run it without --batch`,
          { file: session.registry.file, place: `models.${name}` },
        );
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
        const entry = session.model(p.model, role as 'reader' | 'judge' | 'embed' | 'extract');
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
export async function runBatched(
  req: RunRequest,
  hooks: RunHooks,
  opts: { wait: boolean; embeddings?: boolean; models?: Array<readonly ['reader' | 'judge', string]> },
): Promise<BatchedRun> {
  const { cfg } = req;
  const dir = runDirFor(cfg, req.out);
  const b = await withBatches({
    dir,
    runId: runIdFor(cfg),
    transport: req.transport,
    models: opts.models ?? batchedModels(cfg),
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
    // One writer at a time: the summary is rewritten under the run's lock, like every other write.
    const lock = acquireRunLock(dir);
    try {
      new RunDir(dir).writeSummary(outcome.summary);
    } finally {
      lock.release();
    }
  }
  return { outcome, loop: b.loop, dir, jobs: b.jobs, cost: b.cost };
}

/** The reader and judge models a config's batch jobs serve (none without a reader). */
export function batchedModels(cfg: RunRequest['cfg']): Array<readonly ['reader' | 'judge', string]> {
  if (!cfg.reader.model) return [];
  // --judge none: only the reader sends requests.
  if (cfg.judge.model === 'none') return [['reader', cfg.reader.model]];
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
