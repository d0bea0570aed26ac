/**
 * `rawrag show RUN_DIR ID...`: an item's readable request/response log (src/pipeline/item-log.ts);
 * `--out FOLDER` writes one log file per item instead (every item when no ID is given).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { findItem, openItemLog, renderItemLog } from '../../pipeline/item-log.js';
import { UsageError } from '../../util/errors.js';
import { writeOutputs } from '../../util/output-set.js';

/** An item id as a file name: `conv-26:q0` -> `conv-26_q0.log`. */
export function logFileName(id: string): string {
  return `${id.replace(/[^A-Za-z0-9._-]+/g, '_')}.log`;
}

export function showCommand(): Command {
  return new Command('show')
    .description(
      "An item of a run as a readable log: question and gold, the ranked windows, the reader's request as sent and its reply, each judge run's request, reply and verdict, metrics, usage and timings",
    )
    .argument('<dir>', 'a run directory')
    .argument('[ids...]', 'item ids as items.jsonl names them (e.g. conv-26:q0)')
    .option('--out <folder>', 'write one <id>.log file per item into FOLDER (every item when no id is given)')
    .action(async (dir: string, ids: string[], opts: { out?: string }) => {
      if (ids.length === 0 && !opts.out) throw new UsageError('give an item id (or --out FOLDER for a log file per item)');
      const { ctx, items } = await openItemLog(dir);
      const chosen = ids.length ? ids.map((id) => findItem(items, id, dir)) : items;
      if (!opts.out) {
        process.stdout.write(chosen.map((i) => renderItemLog(i, ctx)).join('\n'));
        return;
      }
      mkdirSync(opts.out, { recursive: true });
      // The logs land together or not at all (src/util/output-set.ts).
      await writeOutputs((set) => {
        for (const item of chosen) set.stage(join(opts.out!, logFileName(String(item.id))), renderItemLog(item, ctx));
      });
      process.stdout.write(`${chosen.length} item log${chosen.length === 1 ? '' : 's'} written to ${opts.out}\n`);
    });
}
