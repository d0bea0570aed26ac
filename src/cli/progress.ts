/**
 * Progress on stderr. On a terminal, a bar (cli-progress) with errors, retries and the money spent
 * so far; elsewhere (CI, nohup, a log file) one plain line every ~10 s, so a long run is never
 * silent and a log is never flooded. The ETA is smoothed: none until a few items and seconds have
 * passed, then an exponential moving average of the rate, so the first item (which also pays for
 * building an index) does not announce a 46-minute run.
 */
import { createRequire } from 'node:module';
import type cliProgressModule from 'cli-progress';
import type { ProgressInfo } from '../pipeline/run.js';

/**
 * cli-progress and its dependencies take ~0.1 s to load (many small CommonJS files): loaded only
 * when a bar is drawn on a terminal, not by every run.
 */
function cliProgress(): typeof cliProgressModule {
  return createRequire(import.meta.url)('cli-progress') as typeof cliProgressModule;
}

export type { ProgressInfo };

export interface Progress {
  update(done: number, total: number, info?: ProgressInfo): void;
  stop(): void;
}

export interface ProgressOptions {
  stream?: NodeJS.WriteStream | { write(s: string): unknown; isTTY?: boolean };
  /** Seconds between plain lines when the stream is not a terminal (default 10). */
  intervalS?: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

/** Items-per-second estimate that ignores the warm-up and damps jumps. */
export class EtaEstimator {
  private start: { t: number; done: number } | null = null;
  private last: { t: number; done: number } | null = null;
  private rate: number | null = null;

  constructor(
    /** Items and seconds to see before any ETA is shown. */
    private readonly minItems = 3,
    private readonly minSeconds = 3,
    /** Weight of the newest rate sample (one sample per second at most). */
    private readonly alpha = 0.3,
  ) {}

  observe(done: number, t: number): void {
    if (!this.start) {
      this.start = this.last = { t, done };
      return;
    }
    const dt = (t - this.last!.t) / 1000;
    if (dt < 1) return;
    const sample = (done - this.last!.done) / dt;
    const sinceStart = (t - this.start.t) / 1000;
    // The first rate is the average since the start, not one noisy interval.
    this.rate = this.rate === null ? (done - this.start.done) / sinceStart : this.alpha * sample + (1 - this.alpha) * this.rate;
    this.last = { t, done };
  }

  /** Seconds left, or null while there is too little to go on. */
  eta(done: number, total: number, t: number): number | null {
    if (!this.start || this.rate === null || this.rate <= 0) return null;
    if (done - this.start.done < this.minItems || (t - this.start.t) / 1000 < this.minSeconds) return null;
    return (total - done) / this.rate;
  }
}

export function formatDuration(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '—';
  const r = Math.max(0, Math.round(s));
  if (r < 60) return `${r}s`;
  if (r < 3600) return `${Math.floor(r / 60)}m ${String(r % 60).padStart(2, '0')}s`;
  return `${Math.floor(r / 3600)}h ${String(Math.floor((r % 3600) / 60)).padStart(2, '0')}m`;
}

/** "2 errors | 5 retries | $0.0123" — only the figures the run reported. */
export function infoText(info: ProgressInfo): string {
  const parts: string[] = [];
  if (info.errors !== undefined) parts.push(`${info.errors} error${info.errors === 1 ? '' : 's'}`);
  if (info.retries !== undefined) parts.push(`${info.retries} retr${info.retries === 1 ? 'y' : 'ies'}`);
  if (info.costUsd !== undefined) parts.push(info.costUsd === null ? '$ unknown' : `$${info.costUsd.toFixed(4)}`);
  return parts.join(' | ');
}

export function progressBar(label: string, enabled: boolean, opts: ProgressOptions = {}): Progress {
  const stream = opts.stream ?? process.stderr;
  const now = opts.now ?? (() => performance.now());
  if (!enabled) return { update() {}, stop() {} };
  const eta = new EtaEstimator();
  return stream.isTTY
    ? terminalBar(label, stream as NodeJS.WriteStream, eta, now)
    : plainLines(label, stream, eta, now, (opts.intervalS ?? 10) * 1000);
}

function terminalBar(label: string, stream: NodeJS.WriteStream, eta: EtaEstimator, now: () => number): Progress {
  const { SingleBar, Presets } = cliProgress();
  const bar = new SingleBar(
    { format: `${label} [{bar}] {value}/{total} questions | {percentage}% | ETA {smooth_eta}{info}`, stream, hideCursor: true },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total, info = {}) {
      const t = now();
      eta.observe(done, t);
      const text = infoText(info);
      const payload = { smooth_eta: formatDuration(eta.eta(done, total, t)), info: text ? ` | ${text}` : '' };
      if (!started) {
        bar.start(total, done, payload);
        started = true;
      } else bar.update(done, payload);
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}

function plainLines(
  label: string,
  stream: { write(s: string): unknown },
  eta: EtaEstimator,
  now: () => number,
  intervalMs: number,
): Progress {
  let lastLine: number | null = null;
  let latest: { done: number; total: number; info: ProgressInfo } | null = null;
  let printed = false;
  const line = (done: number, total: number, info: ProgressInfo, t: number) => {
    const pct = total > 0 ? ((100 * done) / total).toFixed(1) : '100.0';
    const text = infoText(info);
    stream.write(
      `${label}: ${done}/${total} questions (${pct}%) | ETA ${formatDuration(eta.eta(done, total, t))}${text ? ` | ${text}` : ''}\n`,
    );
    printed = true;
  };
  return {
    update(done, total, info = {}) {
      const t = now();
      eta.observe(done, t);
      latest = { done, total, info };
      if (lastLine === null) lastLine = t;
      else if (t - lastLine >= intervalMs) {
        line(done, total, info, t);
        lastLine = t;
      }
    },
    stop() {
      // A closing line only when lines were printed: a short run stays quiet.
      if (printed && latest && lastLine !== null && now() > lastLine) line(latest.done, latest.total, latest.info, now());
      printed = false;
      latest = null;
    },
  };
}
