/**
 * One run directory's lifecycle, the same for `rawrag run`, every `rawrag ablate` variant and
 * `rawrag judge`: open or resume (identity checked, lock taken), start (the manifest says
 * `running`), append items, then exactly one of finish (summary, then `complete` (every question
 * answered, none failed), `incomplete`
 * or `interrupted` with exact counts), fail (`failed` with the error) — and release the lock.
 * A dry run opens read-only and writes nothing at any step.
 */
import type { PhaseFigures } from '../core/phases.js';
import type { Question } from '../core/schema.js';
import type { ItemRecord } from '../core/item.js';
import type { RunIdentity } from '../run-files/identity.js';
import type { Manifest, RunStatus } from '../run-files/manifest.js';
import { Interrupted } from '../util/interrupt.js';
import { COST_CAP_REASON } from '../providers/budget.js';
import { FAILURE_LIMIT_REASON, RepeatedFailures } from './failure-streak.js';
import { addCost } from '../providers/usage.js';
import { groupFailures } from '../run-files/failures.js';
import { openRunDir, startManifest, type OpenedRunDir, type OpenOptions } from './open-run.js';

/** How often a running run rewrites its manifest's `spent_usd` (a manifest write per item would cost more than it tells). */
const SPEND_EVERY_MS = 1000;

export type ManifestFields = Omit<Parameters<typeof startManifest>[0], 'opened' | 'done' | 'selected' | 'identity'>;

export class RunLifecycle {
  readonly manifest: Manifest;
  private closed = false;
  /** Set for a re-judge of an incomplete run: never `complete`. */
  private incompleteBecause: string | null = null;
  /** The phase wall times of the processes that wrote this directory before (a resume adds its own). */
  private readonly earlierWalls: Manifest['phase_wall_ms'];

  private constructor(
    readonly opened: OpenedRunDir,
    private readonly questions: readonly Question[],
    private readonly dryRun: boolean,
    fields: ManifestFields & { identity: RunIdentity },
  ) {
    this.manifest = startManifest({ ...fields, selected: questions.length, done: opened.done.size, opened });
    this.earlierWalls = opened.done.size > 0 ? earlierWalls(opened) : undefined;
    // Kept while this process runs, so a process killed before it finishes loses only its own.
    if (this.earlierWalls) this.manifest.phase_wall_ms = this.earlierWalls;
  }

  /** Opens (or resumes) `dir` for these questions; throws before anything is written when it must not be resumed. */
  static open(dir: string, identity: RunIdentity, questions: Question[], opts: OpenOptions, fields: ManifestFields): RunLifecycle {
    const opened = openRunDir(dir, identity, questions, opts);
    try {
      const run = new RunLifecycle(opened, questions, Boolean(opts.dryRun), { ...fields, identity });
      if (opts.incompleteBecause) {
        run.incompleteBecause = opts.incompleteBecause;
        run.manifest.incomplete_because = opts.incompleteBecause;
      }
      return run;
    } catch (e) {
      opened.lock?.release();
      throw e;
    }
  }

  get dir(): string {
    return this.opened.rundir.dir;
  }

  /** The manifest as `running`, with what earlier processes paid (`spent_usd`, kept current by `append`). */
  start(): void {
    if (this.opened.spentBefore !== undefined) this.manifest.spent_usd = this.opened.spentBefore;
    if (!this.dryRun) this.opened.rundir.writeManifest(this.manifest);
  }

  /**
   * What this process has paid so far (its session's sent requests): `append` writes it into the
   * manifest's `spent_usd` at most every SPEND_EVERY_MS, so `rawrag view`, `rawrag runs` and a
   * later `--max-cost` see the money of a run still running, or killed before it could finish.
   */
  trackSpend(now: () => number | null): void {
    this.spendNow = now;
  }

  private spendNow: (() => number | null) | null = null;
  private spendWrittenAt = 0;

  /** Appends an item (throws when the write fails); after `release`, late items are not written (the lock is gone). */
  append(item: ItemRecord): void {
    if (this.closed) return;
    if (this.dryRun) return;
    this.opened.rundir.append(item);
    this.writeRunning();
  }

  /**
   * The run's phases now (src/pipeline/phases.ts), kept in the manifest's `progress` with the money
   * spent, written at most every SPEND_EVERY_MS (also before any item: an ingest that takes an hour
   * is seen while it runs); `finish` writes the last figures.
   */
  progress(phases: PhaseFigures[]): void {
    if (this.closed || this.dryRun) return;
    this.manifest.progress = { updated_at: new Date().toISOString(), phases };
    this.writeRunning();
  }

  /** The running manifest (money spent, phases), at most every SPEND_EVERY_MS. */
  private writeRunning(): void {
    if ((!this.spendNow && !this.manifest.progress) || Date.now() - this.spendWrittenAt < SPEND_EVERY_MS) return;
    this.spendWrittenAt = Date.now();
    Object.assign(this.manifest, { ...(this.spendNow ? this.spent(this.spendNow()) : {}), updated_at: new Date().toISOString() });
    this.opened.rundir.writeManifest(this.manifest);
  }

  /**
   * Writes the summary, then the manifest's status: `interrupted` when `signal` was aborted,
   * `complete` only when every selected question has an item, else `incomplete`. The caller throws
   * `Interrupted` when it says so (after its other run directories are finished too).
   */
  finish(o: {
    items: ItemRecord[];
    summary: Record<string, unknown> & { errors: number };
    timings: Record<string, number>;
    /** Aborted by SIGINT/SIGTERM (reason: the signal's name) or by the cost cap (reason COST_CAP_REASON). */
    /** This process's phase wall times (pipeline `walls`), added to the earlier processes' in `phase_wall_ms`. */
    walls?: { ingest_wall_ms: number; search_wall_ms: number; add_search_wall_ms: number };
    signal?: AbortSignal;
    /** USD this process spent on the directory's requests (added to `spent_usd`); null when unknown. */
    spentUsd?: number | null;
  }): { status: RunStatus; interrupted: 'SIGINT' | 'SIGTERM' | null } {
    const rundir = this.opened.rundir;
    rundir.close();
    const reason = o.signal?.aborted ? String(o.signal.reason) : null;
    const capped = reason === COST_CAP_REASON;
    // Stopped by --max-failures: `incomplete` (a resume goes on), not interrupted.
    const interrupted = reason === null || capped || reason === FAILURE_LIMIT_REASON ? null : reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
    const all = o.items.length === this.questions.length && this.incompleteBecause === null;
    // Complete means every selected question answered without a failure: failed items make a run incomplete.
    const status: RunStatus = interrupted
      ? 'interrupted'
      : all && o.summary.errors === 0
        ? 'complete'
        : capped
          ? 'stopped-cost-cap'
          : 'incomplete';
    if (!this.dryRun) {
      // The summary says it too (status, failed count, the reasons grouped), for readers of summary.json alone.
      Object.assign(o.summary, { status, failed: o.summary.errors, failures: groupFailures(o.items) });
      rundir.writeSummary(o.summary);
      Object.assign(this.manifest, {
        status,
        updated_at: new Date().toISOString(),
        finished_at: status === 'complete' ? new Date().toISOString() : null,
        questions: { selected: this.questions.length, done: o.items.length, errors: o.summary.errors },
        timings: { ...o.timings, ...o.walls },
        ...(o.walls ? { phase_wall_ms: addWalls(this.earlierWalls, o.walls) } : {}),
        ...this.spent(o.spentUsd),
      });
      rundir.writeManifest(this.manifest);
    }
    return { status, interrupted };
  }

  /**
   * The run itself failed (not single items): `failed` with the message. An interruption is not a
   * failure. Best effort: when the manifest cannot be written either (the disk that failed the run
   * is full), it keeps saying `running` — a resume reads the items, not the status — and the
   * caller reports the first error, not this one.
   */
  fail(e: unknown, spentUsd?: number | null): void {
    try {
      this.opened.rundir.close();
    } catch {
      // a full disk may fail the final fsync too: the items written are already whole
    }
    // Interrupted and stopped by --max-failures: finish() already wrote the status.
    if (this.dryRun || e instanceof Interrupted || e instanceof RepeatedFailures) return;
    Object.assign(this.manifest, {
      status: 'failed',
      updated_at: new Date().toISOString(),
      error: (e as Error).message,
      ...this.spent(spentUsd),
    });
    try {
      this.opened.rundir.writeManifest(this.manifest);
    } catch {
      // see above
    }
  }

  /** `spent_usd`: the earlier processes' spend plus this one's (unknown when either is). */
  private spent(now: number | null | undefined): { spent_usd?: number | null } {
    if (now === undefined) return {};
    return { spent_usd: addCost(this.opened.spentBefore, now) };
  }

  /** Releases the lock (always, in a `finally`). */
  release(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.opened.rundir.close();
    } finally {
      this.opened.lock?.release();
    }
  }
}

/** The phase walls an earlier process recorded (none when the manifest holds none or cannot be read). */
function earlierWalls(opened: OpenedRunDir): Manifest['phase_wall_ms'] {
  try {
    return opened.rundir.exists() ? opened.rundir.readManifest().phase_wall_ms : undefined;
  } catch {
    return undefined;
  }
}

function addWalls(
  earlier: Manifest['phase_wall_ms'],
  now: { ingest_wall_ms: number; search_wall_ms: number; add_search_wall_ms: number },
): NonNullable<Manifest['phase_wall_ms']> {
  return {
    ingest: (earlier?.ingest ?? 0) + now.ingest_wall_ms,
    search: (earlier?.search ?? 0) + now.search_wall_ms,
    add_search: (earlier?.add_search ?? 0) + now.add_search_wall_ms,
    processes: (earlier?.processes ?? 0) + 1,
  };
}
