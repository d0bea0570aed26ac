/**
 * Runs a grid's cells, a few at once, each an ordinary `rawrag run` into its own run directory.
 * The cells share the transport: one concurrency pool per provider endpoint (N cells do not send N
 * times `--concurrency chat`) and one cost cap for the whole set. A cell that fails (bad data, a
 * missing key, a crash) is recorded and the others go on; a signal or the cost cap stops new cells
 * and new questions, and the cells in flight finish as a single run does.
 */
import pLimit from 'p-limit';
import { executeRun, type ProgressInfo, type RunHooks, type RunOutcome } from '../pipeline/run.js';
import type { TransportOptions } from '../providers/transport.js';
import type { RunStatus } from '../run-files/manifest.js';
import { InputError, UsageError } from '../util/errors.js';
import { Interrupted, type Flushes } from '../util/interrupt.js';
import type { Cell } from './cells.js';
import { RepeatedFailures } from '../pipeline/failure-streak.js';

export interface CellOutcome {
  cell: Cell;
  /** The run's status; `failed` also when it failed before writing anything; `not started` when stopped first. */
  status: RunStatus | 'not started';
  outcome?: RunOutcome;
  /** Why a failed cell failed (one line; an internal error's stack is printed where it happened). */
  error?: string;
}

export interface SetRequest {
  cells: Cell[];
  transport: Partial<TransportOptions>;
  /** Cells run at once. */
  parallel: number;
  retryErrors?: boolean;
  forceResume?: boolean;
  verbose?: boolean;
  name?: string | null;
  /** The grid command's options (recorded in each cell's manifest, so a cell folder resumes alone too). */
  invocation?: import('../run-files/invocation.js').Invocation;
}

export interface SetHooks {
  log(cell: Cell, line: string): void;
  progress?(cell: Cell, done: number, total: number, info?: ProgressInfo): void;
  /** SIGINT/SIGTERM: no new cell or question starts. */
  signal?: AbortSignal;
  /** Where a cell that has begun writing registers its run: after a signal, only these are waited for. */
  flushes?: Flushes;
  /** Called with a cell's name once it has begun writing. */
  started?(cell: Cell): void;
}

export async function runSet(req: SetRequest, hooks: SetHooks): Promise<CellOutcome[]> {
  const limit = pLimit(Math.max(1, req.parallel));
  const stopped = () => hooks.signal?.aborted === true || req.transport.costCap?.reached === true;
  return Promise.all(
    req.cells.map((cell) =>
      limit(async (): Promise<CellOutcome> => {
        if (stopped()) return { cell, status: 'not started' };
        let running: Promise<unknown> | null = null;
        let started = false;
        const cellHooks: RunHooks = {
          log: (line) => hooks.log(cell, line),
          progress: (done, total, info) => hooks.progress?.(cell, done, total, info),
          signal: hooks.signal,
          started: () => {
            started = true;
            hooks.started?.(cell);
            if (running) hooks.flushes?.add(running);
          },
        };
        try {
          const pending = executeRun(
            {
              cfg: cell.cfg,
              out: cell.dir,
              retryErrors: req.retryErrors,
              forceResume: req.forceResume,
              verbose: req.verbose,
              transport: req.transport,
              name: req.name ?? null,
              ...(req.invocation ? { invocation: req.invocation } : {}),
            },
            cellHooks,
          );
          running = pending;
          if (started) hooks.flushes?.add(pending);
          const outcome = await pending;
          return { cell, status: outcome.manifest.status, outcome };
        } catch (e) {
          if (e instanceof Interrupted) return { cell, status: 'interrupted' };
          const known = e instanceof InputError || e instanceof UsageError || e instanceof RepeatedFailures;
          // A bug is still a bug: its stack goes to the log, the other cells go on.
          if (!known) hooks.log(cell, `internal error: ${(e as Error).stack ?? String(e)}`);
          return { cell, status: 'failed', error: (e as Error).message.split('\n')[0] };
        }
      }),
    ),
  );
}
