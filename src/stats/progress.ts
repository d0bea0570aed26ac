/**
 * Progress of a `rawrag stats` analysis on stderr, only when it will take a while: a cli-progress
 * bar on a terminal, otherwise a line every ~10 s (logs stay short). The analysis is synchronous,
 * so the bar is redrawn from the update calls (cli-progress' synchronous update), not a timer.
 */
import { createRequire } from 'node:module';
import type cliProgressModule from 'cli-progress';

/**
 * cli-progress and its dependencies take ~0.1 s to load (many small CommonJS files): loaded only
 * when a bar is drawn on a terminal, not by every run.
 */
function cliProgress(): typeof cliProgressModule {
  return createRequire(import.meta.url)('cli-progress') as typeof cliProgressModule;
}

/** Item draws per second of CPU on a modest machine (scripts/bench/40-stats.mjs), to estimate run time. */
export const DRAWS_PER_SECOND = 5e8;
/** Show progress only for analyses estimated to take longer than this. */
export const PROGRESS_AFTER_SECONDS = 2;
const LOG_EVERY_MS = 10_000;

export interface StatsProgress {
  update: (done: number, total: number) => void;
  stop: () => void;
}

export function statsProgress(
  estimatedDraws: number,
  stream: NodeJS.WriteStream = process.stderr,
  now: () => number = Date.now,
): StatsProgress {
  const none: StatsProgress = { update() {}, stop() {} };
  if (estimatedDraws / DRAWS_PER_SECOND <= PROGRESS_AFTER_SECONDS) return none;
  if (stream.isTTY) {
    const { SingleBar, Presets } = cliProgress();
    const bar = new SingleBar(
      {
        format: 'rawrag stats [{bar}] {percentage}% | resampling | ETA {eta_formatted}',
        stream,
        hideCursor: true,
        synchronousUpdate: true,
      },
      Presets.shades_classic,
    );
    bar.start(100, 0);
    return {
      update: (done, total) => bar.update(Math.floor((100 * done) / Math.max(1, total))),
      stop: () => bar.stop(),
    };
  }
  const start = now();
  let last = start;
  return {
    update(done, total) {
      const t = now();
      if (t - last < LOG_EVERY_MS) return;
      last = t;
      stream.write(
        `rawrag stats: resampling ${Math.floor((100 * done) / Math.max(1, total))}% done (${Math.round((t - start) / 1000)} s)\n`,
      );
    },
    stop() {},
  };
}
