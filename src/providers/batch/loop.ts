/**
 * `--batch`: the normal pipeline pass, repeated. Each pass runs with a DeferSink in the transport,
 * so every reader/judge request that misses the cache is recorded instead of sent (its item stays
 * pending); the recorded requests go out as batch jobs; their replies are collected into the
 * cache; the next pass finds them and goes one stage further (reader replies first, then the
 * judge requests built from them). When a pass defers nothing, the run is complete and its items
 * are exactly those of an interactive run: the same stages read the same cached replies.
 */
import { ProviderError } from '../errors.js';
import { DeferCollector, type DeferSink } from './defer.js';
import { UnconfirmedCreateError, addReport, emptyReport, type BatchJobs, type CollectReport } from './jobs.js';

export interface BatchLoopOptions<T> {
  jobs: BatchJobs;
  /**
   * One pipeline pass with `defer` in its transport (TransportOptions.defer); items whose stage
   * threw DeferredRequestError must be left pending (not written).
   */
  pass(defer: DeferSink, index: number): Promise<T>;
  /** --no-wait: return as soon as batches are submitted (or still running). */
  wait: boolean;
  /** --retry-errors: requests that failed inside batches are sent again. */
  retryErrors?: boolean;
  /** --batch-embeddings: embedding requests go through batch jobs too. */
  embeddings?: boolean;
  log(line: string): void;
  /** Polling sleep (tests). */
  sleep?(ms: number): Promise<void>;
  /** SIGINT/SIGTERM: stop waiting (the batches go on at the provider) and return incomplete. */
  signal?: AbortSignal;
  /** Takes the directory's writer lock for the batch bookkeeping between passes (each pass takes its own). */
  lock?(): { release(): void };
}

export interface BatchLoopOutcome<T> {
  /** The last pass deferred nothing: every item is written. */
  complete: boolean;
  /** The last pass's result (null when no pass ran because batches were still running). */
  last: T | null;
  passes: number;
  /** Batch parts submitted by this invocation. */
  submitted: number;
  collected: CollectReport;
}

/** The provider's Files/Batches API failed for good (after retries); the batch state on disk is intact. */
export class BatchApiFailure extends Error {
  readonly exitCode = 5;
  constructor(cause: Error, next = 'run the same command again to go on') {
    super(`batch API: ${cause.message}\nbatches.json keeps every submitted job: ${next}`);
    this.name = 'BatchApiFailure';
  }
}

/** Runs `f`, turning a provider failure of the batch API into a BatchApiFailure (a clear message, exit 5). */
export async function batchApi<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof ProviderError) throw new BatchApiFailure(e);
    if (e instanceof UnconfirmedCreateError) throw new BatchApiFailure(e, 'that part is not submitted again until you say so');
    throw e;
  }
}

export async function runWithBatches<T>(o: BatchLoopOptions<T>): Promise<BatchLoopOutcome<T>> {
  const collected = emptyReport();
  const add = (r: CollectReport) => addReport(collected, r);
  if (o.retryErrors) {
    const n = o.jobs.clearFailures();
    if (n > 0) o.log(`--retry-errors: ${n} requests that failed inside batches will be sent again`);
  }
  let passes = 0;
  let submitted = 0;
  let last: T | null = null;
  const locked = async <R>(f: () => Promise<R>): Promise<R> => {
    const lock = o.lock?.();
    try {
      // Another writer may have changed batches.json while we did not hold the lock.
      o.jobs.reload();
      return await batchApi(f);
    } finally {
      lock?.release();
    }
  };
  for (;;) {
    // Whatever finished since the last look (an earlier --no-wait run, or the batches just sent).
    const running = await locked(async () => {
      await o.jobs.refresh();
      add(await o.jobs.collect());
      if (o.jobs.live().length > 0 && o.wait) add(await o.jobs.wait(o.sleep, o.signal));
      return o.jobs.live().length > 0;
    });
    if (running || o.signal?.aborted) return { complete: false, last, passes, submitted, collected };
    const sink = new DeferCollector(o.jobs.failures(), o.embeddings === true);
    last = await o.pass(sink, passes);
    passes++;
    if (sink.size === 0) return { complete: true, last, passes, submitted, collected };
    const roles = new Map<string, number>();
    for (const r of sink.requests()) roles.set(r.role, (roles.get(r.role) ?? 0) + 1);
    o.log(`pass ${passes}: ${sink.size} requests go out as batch jobs (${[...roles].map(([r, n]) => `${n} ${r}`).join(', ')})`);
    const parts = await locked(() => o.jobs.submit(sink.requests()));
    submitted += parts.length;
    if (!o.wait) return { complete: false, last, passes, submitted, collected };
  }
}
