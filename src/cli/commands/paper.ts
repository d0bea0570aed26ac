/**
 * `rawrag paper [DIR...] [--json]`: the reproduction map (src/paper/map.ts); with `--run`, the
 * runs every item not yet reproduced needs, planned, priced and run resumably (src/cli/paper-run.ts).
 */
import { printOut } from '../../util/stdout.js';
import { Command } from 'commander';
import { buildPaperMap } from '../../paper/map.js';
import { renderPaperMap } from '../../paper/render.js';
import { PAPER_SECTIONS } from '../../paper/items.js';
import { fromRoot } from '../../util/paths.js';
import { UsageError } from '../../util/errors.js';
import { watchInterrupts } from '../../util/interrupt.js';
import { addTransportOptions, integer, transportFromFlags } from '../options.js';

export function paperCommand(): Command {
  const cmd = new Command('paper')
    .description(
      "The reproduction map: every table, figure and diagnostic of the paper, the command that regenerates it, the matching run directories and rawrag's figure beside the paper's (only from a complete run of the item's setting); --run runs what is missing",
    )
    .argument('[dirs...]', 'folders holding run directories and ablation folders (default results/; --run writes below the first)')
    .option('--json', 'print the map as JSON')
    .option('--seed <n>', 'seed of the paired bootstrap (default 0)', integer)
    .option('--only <sections>', `only these sections, comma-separated: ${PAPER_SECTIONS.join(' | ')}`)
    .option(
      '--run',
      'plan every item not reproduced yet (calls, tokens and dollars per run and in total), then run them into <dir>/paper/ (the same command resumes)',
    )
    .option('--retry-errors', 'with --run: redo the items that failed in the runs it resumes')
    .option('--no-progress', 'with --run: no progress bar')
    .option('--no-reach', 'with --run: do not reach each endpoint once before the first run (the pre-flight still checks names and keys)');
  addTransportOptions(cmd);
  return cmd.action(async (dirs: string[], _o: unknown, command: Command) => {
    const opts = command.opts();
    const only = opts.only === undefined ? null : sections(opts.only as string);
    const runOnly = ['dryRun', 'maxCost', 'retryErrors'].filter((k) => command.getOptionValueSource(k) === 'cli');
    if (!opts.run && runOnly.length)
      throw new UsageError(`${runOnly.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} goes with --run`);
    const searched = dirs.length ? dirs : [fromRoot('results')];
    if (!opts.run) {
      const map = buildPaperMap(searched, { seed: opts.seed as number | undefined });
      for (const u of map.unreadable) process.stderr.write(`rawrag: warning: left out of the map: ${u.error}\n`);
      const shown = only ? { ...map, entries: map.entries.filter((e) => only.includes(e.section)) } : map;
      printOut(opts.json ? JSON.stringify(shown, null, 2) + '\n' : renderPaperMap(shown) + '\n');
      return;
    }
    // The planner and runner load the pipeline: only when asked to run.
    const { paperRun } = await import('../paper-run.js');
    const interrupts = watchInterrupts();
    try {
      await paperRun(
        {
          searched,
          only,
          dryRun: Boolean(opts.dryRun),
          maxCost: (opts.maxCost as number | undefined) ?? null,
          retryErrors: Boolean(opts.retryErrors),
          progress: opts.progress !== false,
          transport: transportFromFlags(command),
          signal: interrupts.signal,
          reach: opts.reach !== false,
        },
        (s) => printOut(s + '\n'),
        (s) => process.stderr.write(s + '\n'),
      );
    } finally {
      interrupts.dispose();
    }
  });
}

function sections(list: string): string[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((s) => !(PAPER_SECTIONS as readonly string[]).includes(s));
  if (unknown.length || names.length === 0)
    throw new UsageError(
      `--only: unknown section ${unknown.map((s) => `'${s}'`).join(', ') || "''"} (sections: ${PAPER_SECTIONS.join(', ')})`,
    );
  return names;
}
