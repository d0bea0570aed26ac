/**
 * One page per benchmark family: runs, statistics and ablations of several benchmarks are split
 * into one page each (`report.<benchmark>.html` beside the index), so no page carries another
 * benchmark's per-question data; the index (`--out`) links them with one line per run.
 */
import { basename, dirname, extname, join } from 'node:path';
import type { ReportInputs } from './collect.js';
import type { ReportData } from './data.js';
import { inlineSafe } from './assets.js';
import { esc, type PageExtras } from './html.js';
import { PAGE_CSS } from './style.js';

/** The benchmarks of the inputs, in the order they first appear (runs, then statistics, then ablations). */
export function benchmarksOf(inputs: ReportInputs): string[] {
  const seen: string[] = [];
  const add = (b: string) => {
    if (!seen.includes(b)) seen.push(b);
  };
  for (const r of inputs.runs) add(r.loaded.benchmark);
  for (const f of inputs.stats.families) add(f.benchmark);
  for (const a of inputs.ablations) add(String((a.data as { benchmark?: unknown }).benchmark ?? '?'));
  return seen;
}

/** The inputs of one benchmark: its runs, its families' statistics, its ablations. */
export function inputsFor(inputs: ReportInputs, benchmark: string): ReportInputs {
  const runs = inputs.runs.filter((r) => r.loaded.benchmark === benchmark);
  return {
    ...inputs,
    runs,
    stats: {
      ...inputs.stats,
      runs: inputs.stats.runs.filter((r) => r.benchmark === benchmark),
      families: inputs.stats.families.filter((f) => f.benchmark === benchmark),
    },
    ablations: inputs.ablations.filter((a) => String((a.data as { benchmark?: unknown }).benchmark ?? '?') === benchmark),
    datasets: new Map(runs.map((r) => [r, inputs.datasets.get(r) ?? null])),
  };
}

/** `report.html` -> `report.locomo.html` beside it. */
export function pagePath(out: string, benchmark: string): string {
  const ext = extname(out) || '.html';
  const stem = basename(out, extname(out));
  const safe = benchmark.toLowerCase().replace(/[^a-z0-9_-]+/g, '-');
  return join(dirname(out), `${stem}.${safe}${ext}`);
}

export interface PageSummary {
  benchmark: string;
  file: string;
  bytes: number;
  data: ReportData;
}

const CSP = "default-src 'none'; style-src 'unsafe-inline'";

/** The index: one section per benchmark page, one line per run (system and label, setting, n, headline, status). */
export function renderIndexParts(
  pages: PageSummary[],
  meta: { generated_at: string; tool_version: string; notes: string[] },
): { title: string; header: string; main: string } {
  const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : (100 * x).toFixed(2));
  const sections = pages.map((p) => {
    const rows = p.data.runs.map((r) => {
      const s = r.summary;
      const judged = s !== null && s.scored > 0 && s.accuracy !== null;
      const headline0 = s === null ? '—' : judged ? `accuracy ${pct(s.accuracy)} %` : `coverage ${pct(s.coverage_all)} %`;
      // A run with failed items: the figure is over the items that did not fail, and says so.
      const headline =
        s !== null && s.errors > 0
          ? `${headline0} <span class="muted small">(over ${s.n - s.errors} of ${s.n}; ${s.errors} failed)</span>`
          : headline0;
      return `<tr data-run="${esc(r.label)}"><th scope="row">${esc(r.system)}${r.name ? ` [${esc(r.name)}]` : ''}<div class="muted small">${esc(r.label)}</div></th><td>${esc(r.setting)}</td><td>${r.rows.length}</td><td>${headline}</td><td class="run-status${r.status?.startsWith('complete') ? '' : ' not-complete'}">${esc(r.status ?? '—')}</td></tr>`;
    });
    const ablations = p.data.ablations.length ? `; ${p.data.ablations.length} ablation${p.data.ablations.length === 1 ? '' : 's'}` : '';
    return `<section data-benchmark="${esc(p.benchmark)}"><h2><a href="${esc(basename(p.file))}">${esc(p.benchmark)}</a> <span class="muted small">(${(p.bytes / 1024).toFixed(0)} KiB; ${p.data.runs.length} run${p.data.runs.length === 1 ? '' : 's'}, ${p.data.families.length} benchmark-setting${p.data.families.length === 1 ? '' : 's'}${ablations})</span></h2>
<div class="table-wrap"><table><thead><tr><th scope="col">run</th><th scope="col">setting</th><th scope="col">questions</th><th scope="col">headline</th><th scope="col">status</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div></section>`;
  });
  const title = `rawrag report — ${pages.map((p) => p.benchmark).join(', ')}`;
  const header = `<h1>rawrag report — ${pages.length} benchmarks</h1>
<p class="muted">Generated ${esc(meta.generated_at)} by rawrag ${esc(meta.tool_version)}. One page per benchmark (leaderboards, coverage × utilization, ablations, explorer, cost and time), each beside this file and opening offline; the headline here is accuracy when judged, else coverage (all gold evidence shown).</p>
${meta.notes.map((n) => `<p class="note">${esc(n)}</p>`).join('\n')}
`;
  return { title, header, main: `\n${sections.join('\n')}\n` };
}

export function renderIndexPage(
  pages: PageSummary[],
  meta: { generated_at: string; tool_version: string; notes: string[] },
  extras: PageExtras = {},
): string {
  return indexHtml(renderIndexParts(pages, meta), extras);
}

/** The index's parts as one document. */
export function indexHtml(p: { title: string; header: string; main: string }, extras: PageExtras = {}): string {
  // A written index runs no script; one served live (rawrag view) runs its refresh script.
  const csp = extras.script ? `${CSP}; script-src 'unsafe-inline'; connect-src ${extras.connect ?? "'none'"}` : CSP;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(p.title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
${extras.top ?? ''}<header class="top">${p.header}</header>
<main>${p.main}</main>
${extras.script ? `<script>${inlineSafe(extras.script)}</script>\n` : ''}</body>
</html>
`;
}
