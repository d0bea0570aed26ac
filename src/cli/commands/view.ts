/**
 * `rawrag view [DIR...] [--port N]`: the report pages of a results folder served on 127.0.0.1,
 * refreshed while runs write (src/view/). Read-only; runs until Ctrl-C (exit 130) or SIGTERM (143),
 * then closes the server and every connection.
 */
import { printOut } from '../../util/stdout.js';
import { relative } from 'node:path';
import { Command } from 'commander';
import { Interrupted, watchInterrupts } from '../../util/interrupt.js';
import { nonNegativeInteger, positiveNumber } from '../../util/flags.js';
import { fromRoot } from '../../util/paths.js';
import { checkFolders, LiveSite } from '../../view/site.js';
import { DEFAULT_VIEW_PORT, startViewServer } from '../../view/server.js';

/** The view was stopped by a signal: nothing to resume, the run directories were only read. */
class ViewStopped extends Interrupted {
  constructor(signal: 'SIGINT' | 'SIGTERM') {
    super(signal, 0, 0);
    this.message = `view stopped (${signal}); the server is closed, nothing was written`;
  }
}

export function viewCommand(): Command {
  return new Command('view')
    .description(
      'Serve the report pages of a results folder on 127.0.0.1 (leaderboards, coverage x utilization, ablations, the per-question explorer, cost and time) ' +
        'and refresh them while runs write: a live panel of every run (status, questions done, failures, score and cost so far); Ctrl-C stops',
    )
    .argument('[dir...]', 'folders holding run directories at any depth, or run directories (default results/)')
    .option('--port <n>', `the port on 127.0.0.1 (default ${DEFAULT_VIEW_PORT}; 0 = a free one, printed)`, nonNegativeInteger)
    .option('--interval <seconds>', 'how often the page checks for new items (default 2)', positiveNumber)
    .option(
      '--explorer-mb <n>',
      "as rawrag report's: per-question detail embedded while a page holds less than N million characters",
      positiveNumber,
    )
    .action(async (dirs: string[], opts: { port?: number; interval?: number; explorerMb?: number }) => {
      const paths = dirs.length ? dirs : [relative(process.cwd(), fromRoot('results')) || '.'];
      checkFolders(paths);
      const intervalMs = Math.round(1000 * (opts.interval ?? 2));
      const site = new LiveSite(paths, {
        intervalMs,
        detailBudget: opts.explorerMb ? Math.round(opts.explorerMb * 1e6) : undefined,
        log: (line) => process.stderr.write(`${line}\n`),
      });
      const interrupts = watchInterrupts();
      try {
        const server = await startViewServer(site, { port: opts.port ?? DEFAULT_VIEW_PORT, intervalMs });
        printOut(
          `rawrag view: ${server.url} (${paths.join(', ')}; the pages refresh every ${intervalMs / 1000} s while runs write; Ctrl-C stops)\n`,
        );
        // Built before the first browser asks, so the first page opens at once.
        void site.pages();
        const signal = await new Promise<'SIGINT' | 'SIGTERM'>((resolveSignal) =>
          interrupts.signal.addEventListener('abort', () => resolveSignal(interrupts.reason() ?? 'SIGINT'), { once: true }),
        );
        await server.close();
        throw new ViewStopped(signal);
      } finally {
        interrupts.dispose();
      }
    });
}
