/**
 * A turn of the event loop for CPU-bound work. An offline run (embedded retriever, no reader)
 * is one long chain of resolved promises: microtasks never let a SIGINT handler run, so Ctrl-C
 * would be seen only after the last question. Awaiting a macrotask between the steps of each
 * question lets signals (and timers, the progress bar) through at a cost of a few microseconds.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
