/**
 * `rawrag memory show | purge`: a run's memory store, through its system's `store` capability
 * (src/core/system.ts): what it holds, and deleting one owner's data physically.
 */
import { Command } from 'commander';
import { storeOfRun } from '../../systems/registry.js';

export function memoryCommand(): Command {
  const cmd = new Command('memory').description('Read or purge the memory store of a run whose system keeps one');
  cmd
    .command('show')
    .description('List memory items with their source events and version chains')
    .argument('[dir]', 'run directory')
    .option('--run <dir>', 'run directory (same as the argument)')
    .option('--owner <id>', 'only this owner (an episode id)')
    .option('--all', 'also list superseded items in full (default: active items, then the version chains)')
    .option('--json', 'print the items as JSON')
    .action((dir: string | undefined, opts: { run?: string; owner?: string; all?: boolean; json?: boolean }) => {
      const { runDir, store } = storeOfRun(dir ?? opts.run);
      process.stdout.write(store.show(runDir, opts) + '\n');
    });
  cmd
    .command('purge')
    .description("Delete an owner's data physically from the run's memory store (and its cached ingest replies), verified by reading back")
    .argument('[dir]', 'run directory')
    .requiredOption('--owner <id>', 'the owner (episode id) to delete')
    .option('--run <dir>', 'run directory (same as the argument)')
    .option('--cache-dir <dir>', 'response cache folder holding the ingest replies (default as for rawrag run)')
    .action(async (dir: string | undefined, opts: { owner: string; run?: string; cacheDir?: string }) => {
      const { runDir, store } = storeOfRun(dir ?? opts.run);
      process.stdout.write((await store.purge(runDir, opts.owner, opts)) + '\n');
    });
  return cmd;
}
