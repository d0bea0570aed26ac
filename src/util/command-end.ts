/**
 * What a command started that must stop when that command ends, however it ends (done, failed,
 * interrupted): a memory system's process started for the run, for one. Each command runs in its
 * own scope (`inCommand`, used by `rawrag`'s entry point, src/cli/main.ts): what is registered
 * while it runs belongs to it, and only its end stops it — a second command in the same process
 * (a test driving the CLI in process, a purge inside another command's use) never stops what the
 * first started. A process that exits without reaching a command's end (a second Ctrl-C, an
 * uncaught error) still runs each one's synchronous last resort.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Ending {
  /** Stops it properly (waits for it). */
  stop(): Promise<void>;
  /** At process exit, when `stop` never ran: synchronous only (e.g. SIGKILL a child). */
  atExit(): void;
}

/** One command's registrations. */
export class CommandScope {
  readonly endings = new Set<Ending>();
}

const current = new AsyncLocalStorage<CommandScope>();
/** Registrations made outside any command (a library call from a script or test). */
const outside = new CommandScope();
/** Every scope with something registered, for the exit hook. */
const live = new Set<CommandScope>();
let exitHooked = false;

/** The scope of the command running here (outside any: the process's own). */
export function currentCommand(): CommandScope {
  return current.getStore() ?? outside;
}

/** Registers something to stop at the end of the command running now; the returned function unregisters it. */
export function onCommandEnd(e: Ending): () => void {
  const scope = currentCommand();
  scope.endings.add(e);
  live.add(scope);
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const s of live) for (const x of s.endings) x.atExit();
    });
  }
  return () => scope.endings.delete(e);
}

/** Stops everything `scope` registered, in reverse order of registration; errors are reported, not thrown. */
export async function endCommand(
  scope: CommandScope,
  report: (line: string) => void = (l) => process.stderr.write(l + '\n'),
): Promise<void> {
  const all = [...scope.endings].reverse();
  scope.endings.clear();
  live.delete(scope);
  for (const e of all) {
    try {
      await e.stop();
    } catch (err) {
      report(`rawrag: while stopping what the command started: ${(err as Error).message}`);
    }
  }
}

/** Runs `fn` inside `scope`: what it registers is `scope`'s (end it with `endCommand`). */
export function runInCommand<T>(scope: CommandScope, fn: () => Promise<T>): Promise<T> {
  return current.run(scope, fn);
}

/** Runs `fn` as one command: what it starts is its own, stopped when it ends (then `fn`'s outcome). */
export async function inCommand<T>(fn: () => Promise<T>, report?: (line: string) => void): Promise<T> {
  const scope = new CommandScope();
  try {
    return await current.run(scope, fn);
  } finally {
    await endCommand(scope, report);
  }
}

/** Stops what was registered outside any command (a script's or test's own calls). */
export function runCommandEnd(report?: (line: string) => void): Promise<void> {
  return endCommand(outside, report);
}
