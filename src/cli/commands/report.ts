import { Command } from 'commander';
import { join } from 'node:path';
import { writeReport, type ReportResult } from '../../report/index.js';
import { positiveNumber } from '../options.js';

export function reportCommand(): Command {
  return new Command('report')
    .description(
      'Self-contained HTML pages (charts and data inlined, open offline) from run directories, ' +
        'rawrag stats outputs and rawrag ablate outputs: leaderboards, coverage x utilization, ablations, a per-question explorer, cost and time; ' +
        'one page per benchmark beside an index page when the runs cover several',
    )
    .argument('<dir...>', 'run directories, or folders holding them (and stats.json / ablation.json) at any depth')
    .option(
      '--out <file>',
      'the HTML file to write (default <first DIR>/report/report.html; several benchmarks: the index, pages <name>.<benchmark>.html beside it)',
    )
    .option(
      '--explorer-mb <n>',
      'per-question detail (evidence text, judge replies) is embedded while a page holds less than N million characters of data (default 6); beyond, rawrag show prints an item',
      positiveNumber,
    )
    .action(async (dirs: string[], opts: { out?: string; explorerMb?: number }) => {
      // Beside the runs it reads, as `rawrag stats` writes <first DIR>/stats/: never into the working folder unasked.
      const out = opts.out ?? join(dirs[0]!, 'report', 'report.html');
      const r = await writeReport(dirs, out, opts.explorerMb ? { detailBudget: Math.round(opts.explorerMb * 1e6) } : {});
      for (const n of r.notes) process.stderr.write(`note: ${n}\n`);
      process.stdout.write(reportLines(r).join('\n') + '\n');
    });
}

/** `report: <path> (<size>; ...)`, and with several benchmarks one line per page. */
export function reportLines(r: ReportResult): string[] {
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  const kib = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
  const capped = (p: ReportResult['pages'][number]) =>
    p.trimmed ? `; evidence and judge replies embedded for ${p.items - p.trimmed} of ${p.items} items (size cap)` : '';
  const counts = `${plural(r.runs, 'run')}, ${plural(r.families, 'benchmark-setting')}, ${plural(r.ablations, 'ablation')}`;
  if (r.pages.length <= 1) return [`report: ${r.path} (${kib(r.bytes)}; ${counts}${r.pages[0] ? capped(r.pages[0]) : ''})`];
  return [
    `report: ${r.path} (index of ${r.pages.length} pages, one per benchmark; ${counts})`,
    ...r.pages.map((p) => `  ${p.benchmark}: ${p.path} (${kib(p.bytes)}; ${plural(p.runs, 'run')}${capped(p)})`),
  ];
}
