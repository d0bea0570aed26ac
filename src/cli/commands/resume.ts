/**
 * `rawrag resume DIR`: goes on with a run directory or a grid's set folder from what it recorded
 * (the config of each run, the options the command was given), with no flag restated. A changed
 * endpoint, the models file, timeouts, concurrency, limits, `--retry-errors` may be given again;
 * keys come from the environment (or `.env`) as always. It is `rawrag run --out DIR` with only those.
 */
import { Command } from 'commander';
import { UsageError } from '../../util/errors.js';
import { readTarget, RESUME_OPTIONS } from '../../resume/target.js';
import { InputError } from '../../util/errors.js';

export function resumeCommand(): Command {
  return new Command('resume')
    .description(
      'go on with a run directory or a grid set folder from what it recorded (no flag restated); ' +
        'endpoints (--reader-base-url ...), --models, --timeout, --concurrency, --max-cost, --max-failures, --retry-errors may be given again',
    )
    .argument('<dir>', 'a run directory (manifest.json) or a grid set folder (set.json)')
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption('-h, --help', 'this help (every option `rawrag run` takes for a resume is accepted)')
    .action(async (dir: string, _opts: unknown, command: Command) => {
      if (!readTarget(dir)) throw new InputError('neither a run directory (manifest.json) nor a grid set folder (set.json)', { file: dir });
      const rest = command.args.slice(1);
      const { runCommand } = await import('./run.js');
      const run = runCommand();
      run.exitOverride();
      run.parseOptions(rest);
      const refused = Object.keys(run.opts()).filter((k) => run.getOptionValueSource(k) === 'cli' && !RESUME_OPTIONS.has(k));
      if (refused.length > 0 || run.args.length > 0)
        throw new UsageError(
          `resume goes on with the recorded run: ${[...refused.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`), ...run.args].join(', ')} would define another run (start one with rawrag run)`,
        );
      await runCommand()
        .exitOverride()
        .parseAsync(['--out', dir, ...rest], { from: 'user' });
    });
}
