/**
 * The wall time of a phase of a run (adding histories to the index, finding evidence), when its
 * steps overlap: the length of the union of their intervals. Summing each step's own time instead
 * counts overlapping steps twice (16 episodes indexed at once, 8 questions searched at once), which
 * is work, not time.
 */
export class PhaseClock {
  private readonly spans: Array<[number, number]> = [];

  /** One step of the phase ran from `start` to `end` (performance.now() milliseconds). */
  add(start: number, end: number): void {
    if (end > start) this.spans.push([start, end]);
  }

  /** Milliseconds during which at least one step of these clocks was running. */
  static union(...clocks: PhaseClock[]): number {
    const spans = clocks.flatMap((c) => c.spans).sort((a, b) => a[0] - b[0]);
    let total = 0;
    let open: [number, number] | null = null;
    for (const [s, e] of spans) {
      if (open && s <= open[1]) open[1] = Math.max(open[1], e);
      else {
        if (open) total += open[1] - open[0];
        open = [s, e];
      }
    }
    return open ? total + open[1] - open[0] : total;
  }

  get ms(): number {
    return PhaseClock.union(this);
  }
}
