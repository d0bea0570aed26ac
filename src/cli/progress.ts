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
import { EtaEstimator } from '../util/eta.js';
import type { PhaseFigures } from '../core/phases.js';
import { InputError } from '../util/errors.js';

export { EtaEstimator };

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
  /** Seconds between plain lines when the stream is not a terminal (default RAWRAG_PROGRESS_EVERY, else 10). */
  intervalS?: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

export function formatDuration(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '—';
  const r = Math.max(0, Math.round(s));
  if (r < 60) return `${r}s`;
  if (r < 3600) return `${Math.floor(r / 60)}m ${String(r % 60).padStart(2, '0')}s`;
  return `${Math.floor(r / 3600)}h ${String(Math.floor((r % 3600) / 60)).padStart(2, '0')}m`;
}

/** "3.2/s", "41/s": a rate in units a second. */
function rateText(r: number): string {
  return `${r < 10 ? r.toFixed(1) : Math.round(r)}/s`;
}

/**
 * The phases that have started, in order: "ingest 120/5882 turns 3.2/s ETA 29m 58s $0.0123 | index 2/10 episodes".
 * Rate and time left once measurable, money when the phase sent requests (`$ unknown` without a price).
 */
export function phasesText(phases: readonly PhaseFigures[]): string {
  return phases
    .filter((p) => p.done > 0)
    .map((p) => {
      const parts = [`${p.phase} ${p.done}/${p.total} ${p.unit}`];
      if (p.done < p.total && p.rate_per_s !== null) parts.push(rateText(p.rate_per_s));
      if (p.done < p.total && p.eta_s !== null) parts.push(`ETA ${formatDuration(p.eta_s)}`);
      if (p.cost_usd !== undefined) parts.push(p.cost_usd === null ? '$ unknown' : `$${p.cost_usd.toFixed(4)}`);
      return parts.join(' ');
    })
    .join(' | ');
}

/** "2 errors | 5 retries | $0.0123" — only the figures the run reported. */
export function infoText(info: ProgressInfo): string {
  const parts: string[] = [];
  const phases = info.phases ? phasesText(info.phases) : '';
  if (phases) parts.push(phases);
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
    : plainLines(label, stream, eta, now, (opts.intervalS ?? envSeconds() ?? 10) * 1000);
}

/** RAWRAG_PROGRESS_EVERY=S: seconds between plain progress lines (0: a line at every step; a log that must follow closely). */
function envSeconds(): number | null {
  const v = process.env.RAWRAG_PROGRESS_EVERY;
  if (v === undefined || v.trim() === '') return null;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0)
    throw new InputError(`must be a number of seconds, 0 or more (got '${v}')`, { place: 'RAWRAG_PROGRESS_EVERY' });
  return n;
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
