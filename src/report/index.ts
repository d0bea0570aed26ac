/**
 * `rawrag report`: self-contained HTML pages from run directories, `rawrag stats` outputs and
 * `rawrag ablate` outputs — one page when the inputs hold one benchmark, else one page per
 * benchmark beside an index page at `out`. Also called by `rawrag stats` and `rawrag ablate`
 * after their outputs are written.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { StatsReport } from '../stats/compute-tables.js';
import { toolInfo } from '../run-files/manifest.js';
import { OutputSet, writeOutputs } from '../util/output-set.js';
import { yieldToEventLoop } from '../util/yield.js';
import { chartLibraryVersions } from './assets.js';
import { collectInputs, type CollectOptions, type ReportInputs } from './collect.js';
import { buildReportData } from './data.js';
import { renderPage } from './html.js';
import { benchmarksOf, inputsFor, pagePath, renderIndexPage, type PageSummary } from './pages.js';

export interface ReportPage {
  benchmark: string;
  path: string;
  bytes: number;
  runs: number;
  /** Items whose evidence and judge replies did not fit the page's cap, of all items on the page. */
  trimmed: number;
  items: number;
}
import { buildPaperMap } from '../paper/map.js';

export interface ReportResult {
  /** The file at `out`: the page itself (one benchmark) or the index of the pages. */
  path: string;
  bytes: number;
  runs: number;
  families: number;
  ablations: number;
  /** One per benchmark; with a single benchmark, the page at `path`. */
  pages: ReportPage[];
  notes: string[];
}

export interface ReportOptions {
  stats?: { report: StatsReport; source: string };
  /** Characters of page data under which per-question detail is embedded (report/data.ts DEFAULT_DETAIL_BUDGET). */
  detailBudget?: number;
  /**
   * The command's output set: the pages are staged into it and land with the command's other
   * outputs (`rawrag stats`). Without one, the pages land together on their own.
   */
  outputs?: OutputSet;
  /** Ablation outputs being written by this command (not on disk yet): used in place of the ablation.json in their folder. */
  ablations?: CollectOptions['ablations'];
}

/**
 * Writes the report's pages — the index and one page per benchmark, or the one page — together or
 * not at all: each page is staged as it is built, and all are renamed into place at the end, so an
 * interrupted or failed report leaves the previous set of pages (src/util/output-set.ts).
 */
export async function writeReport(paths: string[], out: string, opts: ReportOptions = {}): Promise<ReportResult> {
  if (opts.outputs) return stageReport(paths, out, opts, opts.outputs);
  return (await writeOutputs((set) => stageReport(paths, out, opts, set))).value;
}

async function stageReport(paths: string[], out: string, opts: ReportOptions, set: OutputSet): Promise<ReportResult> {
  const inputs = await collectInputs(paths, opts);
  // The reproduction map of the paper (rawrag paper) on every page: which items these runs answer.
  const paper = buildPaperMap(paths);
  const path = resolve(out);
  mkdirSync(dirname(path), { recursive: true });
  const benchmarks = benchmarksOf(inputs);
  const meta = { version: toolInfo().version, libraries: chartLibraryVersions(), detailBudget: opts.detailBudget };
  const page = (sub: ReportInputs, file: string, benchmark: string): PageSummary & { trimmed: number; items: number } => {
    const data = { ...buildReportData(sub, meta), paper };
    const html = renderPage(data);
    set.stage(file, html);
    const items = data.runs.reduce((a, r) => a + r.rows.length, 0);
    return { benchmark, file, bytes: Buffer.byteLength(html), data, items, trimmed: items - data.runs.reduce((a, r) => a + r.detailed, 0) };
  };
  const written: Array<ReturnType<typeof page>> = [];
  if (benchmarks.length <= 1) written.push(page(inputs, path, benchmarks[0] ?? ''));
  else {
    for (const b of benchmarks) {
      written.push(page(inputsFor(inputs, b), pagePath(path, b), b));
      // A signal is seen between pages (each takes up to a second or two to build).
      await yieldToEventLoop();
    }
  }
  // Per-benchmark pages of an earlier report into the same file that this one does not write.
  for (const stale of benchmarkPagesBeside(path)) set.retire(stale);
  let bytes = written[0]!.bytes;
  if (benchmarks.length > 1) {
    const html = renderIndexPage(written, { generated_at: written[0]!.data.generated_at, tool_version: meta.version, notes: inputs.notes });
    set.stage(path, html);
    bytes = Buffer.byteLength(html);
  }
  return {
    path,
    bytes,
    runs: inputs.runs.length,
    families: inputs.stats.families.length,
    ablations: inputs.ablations.length,
    pages: written.map((w) => ({
      benchmark: w.benchmark,
      path: w.file,
      bytes: w.bytes,
      runs: w.data.runs.length,
      trimmed: w.trimmed,
      items: w.items,
    })),
    notes: inputs.notes,
  };
}

/** The files beside `out` named as its per-benchmark pages are (`report.<benchmark>.html`: pagePath). */
function benchmarkPagesBeside(out: string): string[] {
  const ext = extname(out) || '.html';
  const stem = basename(out, extname(out));
  let names: string[];
  try {
    names = readdirSync(dirname(out));
  } catch {
    return [];
  }
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const page = new RegExp(`^${escape(stem)}\\.[a-z0-9_-]+${escape(ext)}$`);
  return names.filter((n) => page.test(n)).map((n) => join(dirname(out), n));
}
