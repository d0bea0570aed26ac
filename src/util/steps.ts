/**
 * Long CPU-bound work written as a generator whose `yield`s mark the ends of its steps, run either
 * straight through (`runSteps`) or with a turn of the event loop whenever a slice of time has passed
 * (`runStepsYielding`), so a SIGINT handler runs within a step's time. Same steps, same results.
 */
import { yieldToEventLoop } from './yield.js';

export function runSteps<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

export async function runStepsYielding<T>(steps: Generator<unknown, T>, sliceMs = 50): Promise<T> {
  let since = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - since >= sliceMs) {
      await yieldToEventLoop();
      since = performance.now();
    }
  }
}
