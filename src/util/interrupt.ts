/**
 * SIGINT / SIGTERM while a run writes: the first signal asks the pipeline to stop taking new
 * questions; questions in flight get STOP_GRACE_MS to finish (those that do are written), the
 * manifest records `interrupted` with counts, and the CLI exits 130 (SIGINT) or 143 (SIGTERM). A
 * second signal exits at once.
 * Every other command (stats, report, export, import, ...) is stopped by the process-wide guard
 * (`installInterruptGuard`): outputs being staged are discarded, or — when the signal came during
 * their commit — kept whole (src/util/output-set.ts), and one line says which.
 */
import { settleOutputsOnInterrupt } from './output-set.js';
import { hasPrinted } from './stdout.js';

export class Interrupted extends Error {
  constructor(
    readonly signalName: 'SIGINT' | 'SIGTERM',
    readonly done: number,
    readonly total: number,
  ) {
    super(`interrupted by ${signalName}: ${done} of ${total} questions done; run the same command again to resume`);
    this.name = 'Interrupted';
  }
  get exitCode(): number {
    return this.signalName === 'SIGINT' ? 130 : 143;
  }
}

export interface InterruptWatch {
  readonly signal: AbortSignal;
  /** Which signal arrived first, null while none has. */
  reason(): 'SIGINT' | 'SIGTERM' | null;
  dispose(): void;
}

/**
 * A second signal this soon after the first is the same Ctrl-C delivered twice: a terminal signals
 * the whole process group, and a parent that forwards signals (npx, npm run) sends it once more.
 * A person's second Ctrl-C comes later than this.
 */
export const SAME_SIGNAL_MS = 300;

/** Installs the handlers for the duration of one command; `onFirst` runs once (e.g. to stop a progress bar). */
export function watchInterrupts(onFirst: (name: 'SIGINT' | 'SIGTERM') => void = () => {}, onForce: () => void = () => {}): InterruptWatch {
  const ctl = new AbortController();
  let first: 'SIGINT' | 'SIGTERM' | null = null;
  let firstAt = 0;
  const handler = (name: 'SIGINT' | 'SIGTERM') => () => {
    lastSignalAt = performance.now();
    if (first === null) {
      first = name;
      firstAt = performance.now();
      ctl.abort(name);
      onFirst(name);
      return;
    }
    if (performance.now() - firstAt < SAME_SIGNAL_MS) return;
    onForce();
    // Outputs being staged must not leave temporary files behind.
    settleOutputsOnInterrupt();
    process.exit(name === 'SIGINT' ? 130 : 143);
  };
  const onInt = handler('SIGINT');
  const onTerm = handler('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  const token = {};
  watching.add(token);
  return {
    signal: ctl.signal,
    reason: () => first,
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      watching.delete(token);
    },
  };
}

/** Commands stopping themselves cooperatively right now (watchInterrupts): the guard leaves signals to them. */
const watching = new Set<object>();
/** What the running command wants said when interrupted (e.g. a partial download kept for resuming). */
const notes = new Set<() => string | null>();
/** When a watcher last saw a signal: the same Ctrl-C delivered twice must not reach the guard after it. */
let lastSignalAt = -Infinity;

/**
 * Installs, for the duration of a command, the SIGINT/SIGTERM handler of commands that do not stop
 * themselves cooperatively: outputs being staged are discarded (the old files stay), one line on
 * stderr says what was kept, and the process exits 130 / 143 at once. `write` is where the line
 * goes. Returns the function that removes the handler (again).
 */
export function installInterruptGuard(write: (line: string) => void = (l) => process.stderr.write(l)): () => void {
  const handler = (name: 'SIGINT' | 'SIGTERM') => () => {
    if (watching.size > 0 || performance.now() - lastSignalAt < SAME_SIGNAL_MS) return;
    write(`rawrag: interrupted by ${name}: ${interruptedLine()}\n`);
    process.exit(name === 'SIGINT' ? 130 : 143);
  };
  const onInt = handler('SIGINT');
  const onTerm = handler('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
}

/** What an interrupt leaves, in words; staged outputs are discarded on the way. */
export function interruptedLine(): string {
  const outputs = settleOutputsOnInterrupt();
  const said = [...notes].map((n) => n()).filter((x): x is string => Boolean(x));
  // A signal seen only once a long synchronous step ended: what the command printed stays printed.
  if (hasPrinted()) said.push('what it printed to stdout before the signal was seen stays as printed');
  if (outputs) return [outputs, ...said].join('; ');
  return said.length ? said.join('; ') : 'nothing was written (any earlier outputs are as they were)';
}

/** Registers what to say if the running command is interrupted; returns the function that removes it. */
export function onInterruptSay(note: () => string | null): () => void {
  notes.add(note);
  return () => notes.delete(note);
}

/**
 * How long questions in flight may go on after a stop signal: those that finish by then are
 * written; the others are left (nothing of them is written; the same command asks them again), so
 * a run stops within about this long even when every request takes longer (a slow model).
 */
export const STOP_GRACE_MS = 1200;

/**
 * `work`'s outcome, or — when `signal` aborts and `work` is still going STOP_GRACE_MS later —
 * `{ done: false }` (the work goes on unobserved; its failure, if any, is ignored).
 */
export function finishWithin<T>(work: Promise<T>, signal?: AbortSignal): Promise<{ done: true; value: T } | { done: false }> {
  if (!signal) return work.then((value) => ({ done: true as const, value }));
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | null = null;
    const onAbort = () => {
      timer = setTimeout(() => {
        work.catch(() => undefined);
        resolve({ done: false });
      }, STOP_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work
      .then(
        (value) => resolve({ done: true, value }),
        (e) => reject(e),
      )
      .finally(() => {
        signal.removeEventListener('abort', onAbort);
        if (timer) clearTimeout(timer);
      });
  });
}

/**
 * What a stop must wait for: work that has begun writing (a run's items and manifest). After a stop
 * signal `untilStopped` waits for these alone — never for startup work (loading data, probes,
 * starting services, building indexes), which has written nothing a resume needs and is dropped
 * when the process exits (issue 42, item 7).
 */
export class Flushes {
  private readonly pending = new Set<Promise<unknown>>();

  /** Registers `p` as a flush; returns it. */
  add<T>(p: Promise<T>): Promise<T> {
    const settled: Promise<unknown> = p.then(
      () => this.pending.delete(settled),
      () => this.pending.delete(settled),
    );
    this.pending.add(settled);
    return p;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Resolves once every flush registered (also while waiting) has settled. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}

/**
 * `work`'s outcome; or, once `signal` aborts first, `{ done: false }` as soon as the registered
 * flushes have settled — `work` itself is not awaited any more (its failure, if any, is ignored).
 */
export function untilStopped<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  flushes: Flushes,
): Promise<{ done: true; value: T } | { done: false }> {
  if (!signal) return work.then((value) => ({ done: true as const, value }));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined);
      void flushes.settled().then(() => resolve({ done: false }));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work
      .then(
        (value) => resolve({ done: true, value }),
        (e) => reject(e),
      )
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}
