/** `rawrag paper [DIR...] [--json]`: the reproduction map (src/paper/map.ts). */
import { Command } from 'commander';
import { buildPaperMap } from '../../paper/map.js';
import { renderPaperMap } from '../../paper/render.js';
import { fromRoot } from '../../util/paths.js';
import { integer } from '../options.js';

export function paperCommand(): Command {
  return new Command('paper')
    .description(
      "The reproduction map: every table, figure and diagnostic of the paper, the command that regenerates it, the matching run directories and rawrag's figure beside the paper's",
    )
    .argument('[dirs...]', 'folders holding run directories and ablation folders (default results/)')
    .option('--json', 'print the map as JSON')
    .option('--seed <n>', 'seed of the paired bootstrap (default 0)', integer)
    .action((dirs: string[], opts: { json?: boolean; seed?: number }) => {
      const map = buildPaperMap(dirs.length ? dirs : [fromRoot('results')], { seed: opts.seed });
      process.stdout.write(opts.json ? JSON.stringify(map, null, 2) + '\n' : renderPaperMap(map) + '\n');
    });
}
