/**
 * `rawrag runs [DIR...]`: one line per run directory at or below the folders given (default
 * results/): label, benchmark, setting, system, status, questions, headline, date. Read-only.
 */
import { readRunManifest, readRunSummary } from '../../run-files/record.js';
import { effectiveStatus, statusLabel } from '../../run-files/status.js';
import { printOut } from '../../util/stdout.js';
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { Command } from 'commander';
import { loadRun, scanRunDirs } from '../../stats/load.js';
import { markdownTable } from '../../util/table.js';
import { fromRoot } from '../../util/paths.js';

export interface RunLine {
  dir: string;
  /** `--name`; null when the run has none. */
  name: string | null;
  benchmark: string;
  setting: string;
  system: string;
  status: string | null;
  /**
   * The status as the table shows it: the manifest's, with the failed items when there are any
   * (`complete, 1386 of 1540 failed`) — a run whose items mostly failed is not shown as plain `complete`.
   */
  status_text: string;
  /** Questions with an item, of those selected (external runs: items, selection unknown). */
  n: number;
  selected: number | null;
  errors: number;
  /** Accuracy when judged, else coverage (all gold evidence shown); null when neither is known. */
  headline: { metric: 'accuracy' | 'coverage' | 'mean score'; value: number } | null;
  /** When the run directory was last written (manifest updated_at, else created_at). */
  date: string | null;
}

export function listRuns(paths: string[]): { runs: RunLine[]; skipped: Array<{ dir: string; reason: string }> } {
  const { dirs, skipped } = scanRunDirs(paths);
  const runs = dirs.map((dir) => runLine(dir));
  return { runs, skipped };
}

export function runLine(dir: string): RunLine {
  // Through the run record (src/run-files/record.ts): validated, an older version upgraded.
  const m = readRunManifest(dir).manifest as Record<string, unknown>;
  const s = readRunSummary(dir) as {
    n?: number;
    errors?: number;
    overall?: { accuracy?: number | null; scored?: number; coverage?: { all?: number | null } };
  } | null;
  const q = m.questions as { selected?: number; done?: number; errors?: number } | undefined;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const line: RunLine = {
    dir: relative(process.cwd(), dir) || '.',
    name: str(m.name),
    benchmark: str(m.benchmark) ?? '?',
    setting: str(m.setting) ?? '?',
    system: str(m.system) ?? '?',
    status: str(m.status),
    status_text: '',
    n: q?.done ?? s?.n ?? 0,
    selected: q?.selected ?? null,
    errors: q?.errors ?? s?.errors ?? 0,
    headline: null,
    date: str(m.updated_at) ?? str(m.created_at),
  };
  const o = s?.overall;
  if (o && (o.scored ?? 0) > 0 && typeof o.accuracy === 'number') line.headline = { metric: 'accuracy', value: o.accuracy };
  else if (o && typeof o.coverage?.all === 'number') line.headline = { metric: 'coverage', value: o.coverage.all };
  if (!s) {
    // An external system's folder (manifest + items.jsonl of {"id", "score"}): read as rawrag stats reads it.
    const loaded = loadRun(dir);
    line.n = loaded.items.length;
    const scored = loaded.items.filter((i) => i.score !== null && i.error === null);
    if (scored.length) line.headline = { metric: 'mean score', value: scored.reduce((a, i) => a + i.score!, 0) / scored.length };
    line.errors = loaded.items.filter((i) => i.error !== null).length;
  }
  line.status = effectiveStatus({ status: line.status, failed: line.errors });
  line.status_text = statusText(line);
  return line;
}

/** `complete`, or `incomplete (1386 failed)` when items failed (errors, never scored as wrong; src/run-files/status.ts). */
export function statusText(r: Pick<RunLine, 'status' | 'errors' | 'n'>): string {
  return statusLabel({ status: r.status, failed: r.errors });
}

export function renderRuns(runs: RunLine[]): string {
  if (runs.length === 0) return 'no run directories found';
  const rows = runs.map((r) => [
    r.name ?? '—',
    r.benchmark,
    r.setting,
    r.system,
    r.status_text,
    r.selected !== null && r.selected !== r.n ? `${r.n}/${r.selected}` : String(r.n),
    r.headline ? `${r.headline.metric} ${(100 * r.headline.value).toFixed(2)} %` : '—',
    r.date ? r.date.slice(0, 16).replace('T', ' ') : '—',
    r.dir,
  ]);
  return markdownTable(['label', 'benchmark', 'setting', 'system', 'status', 'n', 'headline', 'date (UTC)', 'directory'], rows, [
    'l',
    'l',
    'l',
    'l',
    'l',
    'r',
    'l',
    'l',
    'l',
  ]);
}

export function runsCommand(): Command {
  return new Command('runs')
    .description(
      'List the run directories at or below DIR (default results/): label, benchmark, setting, system, status, questions, headline, date',
    )
    .argument('[dir...]', 'folders holding run directories at any depth (default results/)')
    .option('--json', 'print JSON (one object per run) instead of the table')
    .action((dirs: string[], opts: { json?: boolean }) => {
      const paths = dirs.length ? dirs : [relative(process.cwd(), fromRoot('results')) || '.'];
      if (dirs.length === 0 && !existsSync(paths[0]!)) {
        printOut(opts.json ? '[]\n' : `no run directories found (no ${paths[0]} folder)\n`);
        return;
      }
      const { runs, skipped } = listRuns(paths);
      if (opts.json) {
        printOut(JSON.stringify(runs, null, 2) + '\n');
        return;
      }
      for (const s of skipped) process.stderr.write(`note: ${s.dir} skipped: ${s.reason}\n`);
      printOut(renderRuns(runs) + '\n');
    });
}
