/** `rawrag`: the command line. Each command lives in commands/; this file only wires them. */
import { Command, CommanderError } from 'commander';
import { InputError, UsageError } from '../util/errors.js';
import { describeFsError } from '../util/fsx.js';
import { runCommand } from './commands/run.js';
import { dataCommand } from './commands/data.js';
import { statsCommand } from './commands/stats.js';
import { ablateCommand } from './commands/ablate.js';
import { batchCommand } from './commands/batch.js';
import { BatchApiFailure } from '../providers/batch/loop.js';
import { judgeCommand } from './commands/judge.js';
import { protocolCommand } from './commands/protocol.js';
import { reportCommand } from './commands/report.js';
import { memoryCommand } from './commands/memory.js';
import { importCommand } from './commands/import.js';
import { toolInfo } from '../run/manifest.js';
import { Interrupted } from '../util/interrupt.js';
import { ItemFailures } from './exit.js';

export function buildProgram(): Command {
  const program = new Command('rawrag')
    .description(
      'RAW-RAG long-term-memory benchmark harness: dense retrieval + reranking over the raw conversation history, ' +
        "with the benchmarks' official scoring and publishable statistics.",
    )
    .version(toolInfo().version)
    .showHelpAfterError('(run with --help for usage)');
  program.addCommand(runCommand());
  program.addCommand(dataCommand());
  program.addCommand(statsCommand());
  program.addCommand(ablateCommand());
  program.addCommand(batchCommand());
  program.addCommand(judgeCommand());
  program.addCommand(protocolCommand());
  program.addCommand(reportCommand());
  program.addCommand(memoryCommand());
  program.addCommand(importCommand());
  return program;
}

/**
 * Runs the CLI and returns the exit code: 0 ok, 1 usage error, 2 bad input or filesystem trouble,
 * 3 internal error, 4 finished with more failed items than --max-error-rate allows, 5 a provider's
 * batch API failed (--batch; the batch state is kept), 130/143 interrupted.
 */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  for (const c of program.commands) c.exitOverride();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    if (e instanceof Interrupted || e instanceof ItemFailures || e instanceof BatchApiFailure) {
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
}

/** The --out folder named on the command line: where a write without a path (ENOSPC on write) happened. */
function outOf(argv: string[]): string | undefined {
  const i = argv.findIndex((a) => a === '--out' || a.startsWith('--out='));
  if (i < 0) return undefined;
  return argv[i]!.startsWith('--out=') ? argv[i]!.slice(6) : argv[i + 1];
}
