import { Command } from 'commander';
import { writeReport } from '../../report/index.js';

export function reportCommand(): Command {
  return new Command('report')
    .description(
      'One self-contained HTML page (charts and data inlined, opens offline) from run directories, ' +
        'rawrag stats outputs and rawrag ablate outputs: leaderboards, coverage x utilization, ablations, a per-question explorer, cost and time',
    )
    .argument('<dir...>', 'run directories, or folders holding them (and stats.json / ablation.json) at any depth')
    .option('--out <file>', 'the HTML file to write', 'report.html')
    .action(async (dirs: string[], opts: { out: string }) => {
      const r = await writeReport(dirs, opts.out);
      for (const n of r.notes) process.stderr.write(`note: ${n}\n`);
      process.stdout.write(
        `report: ${r.path} (${(r.bytes / 1024).toFixed(0)} KiB; ${r.runs} run${r.runs === 1 ? '' : 's'}, ${r.families} benchmark-setting${r.families === 1 ? '' : 's'}, ${r.ablations} ablation${r.ablations === 1 ? '' : 's'})\n`,
      );
    });
}
