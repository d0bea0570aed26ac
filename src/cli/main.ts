/** `rawrag`: the command line. Each command lives in commands/; this file only wires them. */
import { Command, CommanderError } from 'commander';
import { InputError } from '../util/errors.js';
import { runCommand } from './commands/run.js';
import { dataCommand } from './commands/data.js';
import { statsCommand } from './commands/stats.js';
import { ablateCommand } from './commands/ablate.js';
import { judgeCommand } from './commands/judge.js';
import { protocolCommand } from './commands/protocol.js';
import { toolInfo } from '../run/manifest.js';
import { Interrupted } from '../util/interrupt.js';
import { ItemFailures } from './exit.js';

export function buildProgram(): Command {
  const program = new Command('rawrag')
    .description(
      'RAW-RAG long-term-memory benchmark harness: dense retrieval + reranking over the raw conversation history, ' +
        'with the benchmarks\' official scoring and publishable statistics.',
    )
    .version(toolInfo().version)
    .showHelpAfterError('(run with --help for usage)');
  program.addCommand(runCommand());
  program.addCommand(dataCommand());
  program.addCommand(statsCommand());
  program.addCommand(ablateCommand());
  program.addCommand(judgeCommand());
  program.addCommand(protocolCommand());
  return program;
}

/**
 * Runs the CLI and returns the exit code: 0 ok, 1 usage error, 2 bad input, 3 internal error,
 * 4 finished with more failed items than --max-error-rate allows, 130/143 interrupted.
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
    if (e instanceof Interrupted || e instanceof ItemFailures) {
      process.stderr.write(`rawrag: ${e.message}\n`);
      return e.exitCode;
    }
    if (e instanceof InputError) {
      process.stderr.write(`rawrag: error: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`rawrag: internal error: ${(e as Error).stack ?? String(e)}\n`);
    return 3;
  }
}
