/** `rawrag`: the command line. Each command lives in commands/; this file only wires them. */
import { Command, CommanderError } from 'commander';
import { InputError, UsageError } from '../util/errors.js';
import { describeFsError } from '../util/fsx.js';
import { BatchApiFailure } from '../providers/batch/loop.js';
import { toolInfo } from '../run-files/manifest.js';
import { Interrupted, installInterruptGuard } from '../util/interrupt.js';
import { resetCommittedOutputs } from '../util/output-set.js';
import { resetNotes } from './notes-once.js';
import { resetPrinted, watchStdout } from '../util/stdout.js';
import { loadDotEnv } from '../util/dotenv.js';
import { CommandScope, endCommand, runInCommand } from '../util/command-end.js';
import { CostCapExceeded, GridFailures, ItemFailures } from './exit.js';
import { RepeatedFailures } from '../pipeline/failure-streak.js';
import { exitCodesHelp } from './exit-codes.js';

/**
 * Each command's module, loaded on demand: a command's imports (statistics, the report's charts,
 * SQLite stores, ...) are read from disk and compiled only when that command runs or help lists it.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run.js')).runCommand(),
  resume: async () => (await import('./commands/resume.js')).resumeCommand(),
  merge: async () => (await import('./commands/merge.js')).mergeCommand(),
  data: async () => (await import('./commands/data.js')).dataCommand(),
  stats: async () => (await import('./commands/stats.js')).statsCommand(),
  ablate: async () => (await import('./commands/ablate.js')).ablateCommand(),
  batch: async () => (await import('./commands/batch.js')).batchCommand(),
  judge: async () => (await import('./commands/judge.js')).judgeCommand(),
  protocol: async () => (await import('./commands/protocol.js')).protocolCommand(),
  report: async () => (await import('./commands/report.js')).reportCommand(),
  memory: async () => (await import('./commands/memory.js')).memoryCommand(),
  'calibrate-judge': async () => (await import('./commands/calibrate-judge.js')).calibrateJudgeCommand(),
  runs: async () => (await import('./commands/runs.js')).runsCommand(),
  show: async () => (await import('./commands/show.js')).showCommand(),
  export: async () => (await import('./commands/export.js')).exportCommand(),
  paper: async () => (await import('./commands/paper.js')).paperCommand(),
  import: async () => (await import('./commands/import.js')).importCommand(),
  systems: async () => (await import('./commands/systems.js')).systemsCommand(),
  view: async () => (await import('./commands/view.js')).viewCommand(),
};

/**
 * The program with the command named on the command line (`rawrag run ...`), or with every
 * command when none is named or the word is not a command (`--help`, `help run`, a typo: help
 * and commander's suggestions need them all).
 */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const program = new Command('rawrag')
    .description(
      'RAW-RAG long-term-memory benchmark harness: dense retrieval + reranking over the raw conversation history, ' +
        "with the benchmarks' official scoring and publishable statistics.",
    )
    .version(toolInfo().version)
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', `\n${exitCodesHelp()}`);
  const named = argv.slice(2).find((a) => !a.startsWith('-'));
  const names = named !== undefined && Object.hasOwn(COMMANDS, named) ? [named] : Object.keys(COMMANDS);
  for (const command of await Promise.all(names.map((n) => COMMANDS[n]!()))) program.addCommand(command);
  return program;
}

/** Runs the CLI and returns the exit code (the table: src/cli/exit-codes.ts, docs/runs.md). */
export async function run(argv: string[]): Promise<number> {
  // Ctrl-C in any command: exit 130/143 with one line saying what was kept (src/util/interrupt.ts).
  // It must stay the first synchronous step: bin/rawrag.js removes its own early handler right
  // after calling `run`, and a moment without any SIGINT listener drops a pending signal.
  const unguard = installInterruptGuard();
  resetCommittedOutputs();
  resetPrinted();
  // Keys (and endpoints) may come from a `.env` file in the working folder; the environment wins.
  loadDotEnv(process.cwd());
  resetNotes();
  watchStdout((e) => {
    process.stderr.write(`rawrag: error: ${describeFsError(e, 'stdout') ?? `stdout: ${e.message}`}\n`);
    process.exitCode = 2;
  });
  const program = await buildProgram(argv);
  overrideExits(program);
  // What this command starts is its own: a second command in this process never stops it.
  const scope = new CommandScope();
  try {
    await runInCommand(scope, () => program.parseAsync(argv));
    return 0;
  } catch (e) {
    return report(e, argv);
  } finally {
    // Processes the command started (a memory system's sidecar) stop with it, whatever the outcome.
    await endCommand(scope);
    // A signal that arrived during the command's last synchronous step is handled first, then the
    // guard goes. Two turns of the event loop: that step may have run in the loop's poll phase (an
    // I/O callback), and this turn's `setImmediate` then runs with no poll in between; a process
    // with nothing else to do exits without ever reading the pending signal (a Ctrl-C during
    // `rawrag export` of a large run: ignored, exit 0). The second turn polls before its immediates.
    setImmediate(() => setImmediate(unguard));
  }
}

/**
 * Commander exits the process itself after --help or a usage error unless told to throw instead;
 * every command at every depth (`rawrag systems check --help`) is told, so `run` always returns
 * its code (an in-process caller, the tests, is never ended).
 */
function overrideExits(cmd: Command): void {
  cmd.exitOverride();
  for (const c of cmd.commands) overrideExits(c);
}

/** The exit code for an error, with its message on stderr. */
function report(e: unknown, argv: string[]): number {
  if (e instanceof CommanderError) return e.exitCode;
  if (
    e instanceof Interrupted ||
    e instanceof ItemFailures ||
    e instanceof BatchApiFailure ||
    e instanceof CostCapExceeded ||
    e instanceof GridFailures ||
    e instanceof RepeatedFailures
  ) {
    process.stderr.write(`rawrag: ${e.message}\n`);
    return e.exitCode;
  }
  if (e instanceof UsageError) {
    process.stderr.write(`rawrag: error: ${e.message}\n(run with --help for usage)\n`);
    return 1;
  }
  if (e instanceof InputError) {
    process.stderr.write(`rawrag: error: ${e.message}\n`);
    return 2;
  }
  // Read-only output, a file where --out wants a folder, a full disk: the user's situation, not a bug.
  const fs = describeFsError(e, outOf(argv));
  if (fs) {
    process.stderr.write(`rawrag: error: ${fs}\n`);
    return 2;
  }
  process.stderr.write(`rawrag: internal error: ${(e as Error).stack ?? String(e)}\n`);
  return 3;
}

/** The --out folder named on the command line: where a write without a path (ENOSPC on write) happened. */
function outOf(argv: string[]): string | undefined {
  const i = argv.findIndex((a) => a === '--out' || a.startsWith('--out='));
  if (i < 0) return undefined;
  return argv[i]!.startsWith('--out=') ? argv[i]!.slice(6) : argv[i + 1];
}
