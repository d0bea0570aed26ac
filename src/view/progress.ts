/**
 * A run directory's progress while another process writes it, read tolerantly and cheaply enough
 * to poll every second or two: manifest.json (written atomically; a read that fails keeps the last
 * one), items.jsonl read incrementally from where the last read stopped, whole lines only (a last
 * line still being written, or torn by a killed writer, waits for its newline and is never
 * counted), and the run's lock (is the writer still alive?).
 */
import { parseManifest, parseSummary } from '../run-files/record.js';
import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { LOCK_FILE } from '../run-files/lock.js';
import { effectiveStatus, statusLabel } from '../run-files/status.js';
import { itemUsage, listPriceByRole, paidOf, sumRoles, type RoleUsage } from '../run-files/cost.js';
import { addCost } from '../providers/usage.js';
import type { PhaseFigures } from '../core/phases.js';
import { EtaEstimator } from '../util/eta.js';

/** What one items.jsonl line says, reduced to the progress figures. */
interface ItemFacts {
  scored: number | null;
  failed: boolean;
  /** coverage.all; null when the question has no gold evidence. */
  covered: boolean | null;
  cost: number | null;
  requests: number;
  cacheHits: number;
}

/** One run directory's figures so far (the live panel's row). */
export interface RunProgress {
  /** The folder, relative to the working directory (as the report names runs). */
  label: string;
  system: string;
  name: string | null;
  benchmark: string;
  setting: string;
  /** manifest.json `status` (`running`, `complete`, `incomplete`, `interrupted`, `failed`), or `stopped`: says running, but its process is gone. */
  status: string;
  /** The status as shown: `incomplete (3 failed)` when items failed. */
  status_label: string;
  /** Questions selected for the run (manifest `questions.selected`); null when the manifest does not say. */
  selected: number | null;
  /** Items written (one per question; a question written twice counts once). */
  done: number;
  failed: number;
  /** Items with a score (judged, not failed), and their mean score. */
  judged: number;
  mean_score: number | null;
  /** Share of items with gold evidence that had all of it shown. */
  coverage: number | null;
  /**
   * Paid so far: what was billed over every process of the directory (manifest `spent_usd`, which a
   * running run keeps current); null when a price is unknown (src/run-files/cost.ts, the one definition).
   */
  paid_usd: number | null;
  /**
   * List-price equivalent so far: every reply priced, cached or not — reader and judge over the
   * items so far, and once a process has finished, its embedding, reranking and ingest roles too.
   */
  list_usd: number | null;
  requests: number;
  cache_hits: number;
  /** When items.jsonl (else manifest.json) last changed, ISO time. */
  updated_at: string | null;
  /** items.jsonl ends in a line still being written (or torn): not counted yet. */
  partial_line: boolean;
  /**
   * While it runs: the run's phases as its process last wrote them (manifest `progress`: ingest,
   * index, answer, judge with done/total, rate, time left and money); null otherwise.
   */
  phases: PhaseFigures[] | null;
  /**
   * While it runs: seconds until every selected question is done, once measurable: the run's own
   * estimate of its last phase, else the rate at which this view has seen items written; null otherwise.
   */
  eta_s: number | null;
}

/** The per-run roles of a summary (those its items do not carry), at list price. */
function perRunRoles(summary: Record<string, unknown> | null): Record<string, RoleUsage> {
  const all = listPriceByRole([], summary);
  return Object.fromEntries(Object.entries(all).filter(([role]) => role !== 'reader' && role !== 'judge'));
}

/** Follows one run directory's files; `poll()` reads what was added since the last call. */
export class RunWatch {
  private manifest: Record<string, unknown> = {};
  private manifestMtime = -1;
  private itemsIno = -1;
  private offset = 0;
  private partial = false;
  private readonly items = new Map<string, ItemFacts>();
  /** Items written a second, as this view has seen them arrive. */
  private readonly seen = new EtaEstimator();

  private summaryCache: { mtime: number; value: Record<string, unknown> | null } = { mtime: -1, value: null };

  constructor(
    readonly dir: string,
    /** Clock in ms (tests). */
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** summary.json as the last finished process wrote it (re-read only when it changed). */
  private summary(): Record<string, unknown> | null {
    const path = join(this.dir, 'summary.json');
    let mtime: number;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {
      return null;
    }
    if (mtime !== this.summaryCache.mtime) {
      try {
        // Through the run record's schema (src/run-files/record.ts); one it refuses is not shown.
        this.summaryCache = { mtime, value: parseSummary(JSON.parse(readFileSync(path, 'utf8')), path) as Record<string, unknown> };
      } catch {
        // being written: the next poll reads it
      }
    }
    return this.summaryCache.value;
  }

  poll(): RunProgress {
    this.readManifest();
    const mtime = this.readItems();
    return this.progress(mtime);
  }

  private readManifest(): void {
    const path = join(this.dir, 'manifest.json');
    let mtime: number;
    try {
      mtime = statSync(path).mtimeMs;
    } catch {
      return;
    }
    if (mtime === this.manifestMtime) return;
    try {
      // Through the run record's schema (src/run-files/record.ts): an older version upgraded.
      const m = parseManifest(JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')), path).manifest;
      this.manifest = m as Record<string, unknown>;
      this.manifestMtime = mtime;
    } catch {
      // Written atomically by rawrag; anything else being written now (or refused by the schema) is read on the next poll.
    }
  }

  /** Reads the whole lines appended since the last call; returns the file's mtime (null: no file). */
  private readItems(): number | null {
    const path = join(this.dir, 'items.jsonl');
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      this.reset(-1);
      return null;
    }
    try {
      const st = fstatSync(fd);
      // Rewritten (--retry-errors writes a new file) or cut shorter: read it again from the start.
      if (st.ino !== this.itemsIno || st.size < this.offset) this.reset(st.ino);
      const length = st.size - this.offset;
      if (length > 0) {
        const buf = Buffer.alloc(length);
        const got = readSync(fd, buf, 0, length, this.offset);
        const end = buf.subarray(0, got).lastIndexOf(0x0a) + 1;
        for (const line of buf.subarray(0, end).toString('utf8').split('\n')) this.take(line);
        this.offset += end;
        this.partial = end < got;
      }
      return st.mtimeMs;
    } finally {
      closeSync(fd);
    }
  }

  private reset(ino: number): void {
    this.itemsIno = ino;
    this.offset = 0;
    this.partial = false;
    this.items.clear();
  }

  /** One complete line; a line that is not an item (not JSON, no id) is left out here — `rawrag stats` reports it. */
  private take(line: string): void {
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (!text.trim()) return;
    let item: Record<string, unknown>;
    try {
      item = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    if (!item || typeof item !== 'object' || item.id === undefined || item.id === null) return;
    const usage = itemUsage(item);
    const roles = listPriceByRole([item], null);
    const cost = sumRoles(roles);
    const requests = Object.values(usage).reduce((a, u) => a + (u.requests ?? 0), 0);
    const cacheHits = Object.values(usage).reduce((a, u) => a + (u.cache_hits ?? 0), 0);
    const cov = item.coverage as { all?: boolean } | boolean | null | undefined;
    const failed = item.error !== null && item.error !== undefined;
    this.items.set(String(item.id), {
      scored: !failed && typeof item.score === 'number' ? item.score : null,
      failed,
      covered: cov === null || cov === undefined ? null : typeof cov === 'boolean' ? cov : Boolean(cov.all),
      cost,
      requests,
      cacheHits,
    });
  }

  /** The phases and the time left of a run that is running (nothing for the others). */
  private running(status: string, done: number, selected: number | null): Pick<RunProgress, 'phases' | 'eta_s'> {
    if (status !== 'running') return { phases: null, eta_s: null };
    const t = this.now();
    this.seen.observe(done, t);
    const phases = phasesOf(this.manifest);
    const last = phases?.[phases.length - 1];
    const own = last && last.done < last.total && typeof last.eta_s === 'number' ? last.eta_s : null;
    return { phases, eta_s: own ?? (selected === null ? null : this.seen.eta(done, selected, t)) };
  }

  private progress(itemsMtime: number | null): RunProgress {
    const m = this.manifest;
    const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
    const questions = m.questions as { selected?: unknown } | undefined;
    const facts = [...this.items.values()];
    const scored = facts.filter((f) => f.scored !== null);
    const withGold = facts.filter((f) => f.covered !== null);
    let cost: number | null = 0;
    for (const f of facts) cost = addCost(cost, f.cost);
    // The roles not recorded per item (embedding, reranking, ingest) come from the last finished process's summary.
    cost = addCost(cost, sumRoles(perRunRoles(this.summary())));
    // A finished run with failed items is `incomplete`, never `complete` (src/run-files/status.ts).
    const failed = facts.filter((f) => f.failed).length;
    const raw = str(m.status) ?? 'unknown';
    const live = raw === 'running' && !writerAlive(this.dir) ? 'stopped' : (effectiveStatus({ status: raw, failed }) ?? raw);
    const mtime = itemsMtime ?? (this.manifestMtime >= 0 ? this.manifestMtime : null);
    return {
      label: relative(process.cwd(), this.dir) || '.',
      system: str(m.system) ?? '?',
      name: str(m.name),
      benchmark: str(m.benchmark) ?? '?',
      setting: str(m.setting) ?? '?',
      status: live,
      status_label: live === 'running' || live === 'stopped' ? live : statusLabel({ status: live, failed }),
      selected: typeof questions?.selected === 'number' ? questions.selected : null,
      done: facts.length,
      failed,
      judged: scored.length,
      mean_score: scored.length ? scored.reduce((a, f) => a + f.scored!, 0) / scored.length : null,
      coverage: withGold.length ? withGold.filter((f) => f.covered).length / withGold.length : null,
      paid_usd: paidOf(m),
      list_usd: cost,
      requests: facts.reduce((a, f) => a + f.requests, 0),
      cache_hits: facts.reduce((a, f) => a + f.cacheHits, 0),
      updated_at: mtime === null ? null : new Date(mtime).toISOString(),
      partial_line: this.partial,
      ...this.running(live, facts.length, typeof questions?.selected === 'number' ? questions.selected : null),
    };
  }
}

/** The manifest's `progress` phases, when they are well-formed. */
function phasesOf(m: Record<string, unknown>): PhaseFigures[] | null {
  const p = (m.progress as { phases?: unknown } | undefined)?.phases;
  if (!Array.isArray(p)) return null;
  const ok = p.every(
    (f) => f && typeof f === 'object' && typeof f.phase === 'string' && typeof f.done === 'number' && typeof f.total === 'number',
  );
  return ok ? (p as PhaseFigures[]) : null;
}

/**
 * Whether a process still holds the run's lock: a lock naming a process of this host that is gone
 * (killed: `kill -9`, a crash) means a run that says `running` is not. A lock of another host is
 * taken at its word.
 */
function writerAlive(dir: string): boolean {
  let lock: { pid?: unknown; host?: unknown };
  try {
    lock = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as typeof lock;
  } catch (e) {
    // A writer holds the lock from before it writes `running` until after it writes how the run ended:
    // `running` without a lock is a run whose process is gone. An unreadable lock is taken as held.
    return (e as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  if (typeof lock.pid !== 'number' || lock.host !== hostname()) return true;
  try {
    process.kill(lock.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
