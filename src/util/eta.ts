/**
 * A smoothed rate and time left: none until a few units and seconds have passed, then an
 * exponential moving average of the rate, so the first item (which also pays for building an
 * index) does not announce a 46-minute run. Used by the progress line and by the phases a run
 * writes into its manifest (src/pipeline/phases.ts).
 */
/** Units-per-second estimate that ignores the warm-up and damps jumps. */
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

  /** Units a second, or null while there is too little to go on (as for `eta`). */
  rateAt(done: number, t: number): number | null {
    if (!this.start || this.rate === null || this.rate <= 0) return null;
    if (done - this.start.done < this.minItems || (t - this.start.t) / 1000 < this.minSeconds) return null;
    return this.rate;
  }
}
