/**
 * SIGINT / SIGTERM while a run writes: the first signal asks the pipeline to stop taking new
 * questions; questions in flight finish and are written, the manifest records `interrupted` with
 * counts, and the CLI exits 130 (SIGINT) or 143 (SIGTERM). A second signal exits at once.
 */
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
    if (first === null) {
      first = name;
      firstAt = performance.now();
      ctl.abort(name);
      onFirst(name);
      return;
    }
    if (performance.now() - firstAt < SAME_SIGNAL_MS) return;
    onForce();
    process.exit(name === 'SIGINT' ? 130 : 143);
  };
  const onInt = handler('SIGINT');
  const onTerm = handler('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signal: ctl.signal,
    reason: () => first,
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}
