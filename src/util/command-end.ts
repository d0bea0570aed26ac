/**
 * What a command started that must stop when the command ends, however it ends (done, failed,
 * interrupted): a memory system's process started for the run, for one. `rawrag`'s entry point
 * runs these after every command (src/cli/main.ts); a process that exits without reaching that
 * (a second Ctrl-C, an uncaught error) still runs each one's synchronous last resort.
 */
interface Ending {
  /** Stops it properly (waits for it). */
  stop(): Promise<void>;
  /** At process exit, when `stop` never ran: synchronous only (e.g. SIGKILL a child). */
  atExit(): void;
}

const endings = new Set<Ending>();
let exitHooked = false;

/** Registers something to stop at the command's end; the returned function unregisters it. */
export function onCommandEnd(e: Ending): () => void {
  endings.add(e);
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const x of endings) x.atExit();
    });
  }
  return () => endings.delete(e);
}

/** Stops everything registered, in reverse order of registration; errors are reported, not thrown. */
export async function runCommandEnd(report: (line: string) => void = (l) => process.stderr.write(l + '\n')): Promise<void> {
  const all = [...endings].reverse();
  endings.clear();
  for (const e of all) {
    try {
      await e.stop();
    } catch (err) {
      report(`rawrag: while stopping what the command started: ${(err as Error).message}`);
    }
  }
}
