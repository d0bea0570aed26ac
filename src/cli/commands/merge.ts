/** `rawrag merge SHARD... --out DIR`: one run's shards (`rawrag run --shard I/N`) joined into one run directory. */
import { Command } from 'commander';
import { mergeShards } from '../../resume/merge.js';
import { displayPath } from '../../util/paths.js';
import { printOut } from '../../util/stdout.js';

export function mergeCommand(): Command {
  return new Command('merge')
    .description(
      "join the run directories of one run's shards (rawrag run --shard I/N on each machine) into one run: " +
        'checks they are shards of the same run, do not overlap and together hold every question',
    )
    .argument('<shards...>', 'the shards’ run directories')
    .requiredOption('--out <dir>', 'the merged run directory (new or empty)')
    .option('--json', 'print what was merged as JSON')
    .action(async (shards: string[], opts: { out: string; json?: boolean }) => {
      const r = await mergeShards(shards, opts.out);
      printOut(
        (opts.json
          ? JSON.stringify(r, null, 2)
          : `merged ${r.shards} shards into ${displayPath(r.dir)}: ${r.questions} questions${r.errors ? `, ${r.errors} failed (rawrag resume ${displayPath(r.dir)} --retry-errors redoes them)` : ''}; rawrag show / stats / report read it as one run`) +
          '\n',
      );
    });
}
