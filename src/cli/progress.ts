import cliProgress from 'cli-progress';

/** A progress bar on stderr when it is a terminal; silent otherwise (logs and CI stay clean). */
export function progressBar(label: string, enabled: boolean): { update(done: number, total: number): void; stop(): void } {
  if (!enabled || !process.stderr.isTTY) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {value}/{total} questions | {percentage}% | ETA {eta_formatted}`, stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, done);
        started = true;
      } else bar.update(done);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
