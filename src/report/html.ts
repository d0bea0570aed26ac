/**
 * The report page: static tables rendered here (they print and read without JavaScript), charts
 * as Vega-Lite specs rendered in the page by the inlined Vega bundles, and the explorer driven by
 * the page script over one compact JSON blob. Nothing is fetched: a Content-Security-Policy
 * forbids every network request.
 */
import { formatP, stars } from '../stats/render.js';
import type { FamilyReport } from '../stats/compute-tables.js';
import { chartLibraryScripts, inlineSafe, pageScript } from './assets.js';
import {
  ablationChart,
  ablationSeries,
  coverageAtKChart,
  coverageChart,
  coverageIntervalsChart,
  distinctRunNames,
  leaderboardChart,
  perTypeChart,
  timeChart,
  wallOf,
  workSeconds,
} from './charts.js';
import { totalCost, type AblationView, type FamilyView, type ReportData, type RunView } from './data.js';
import { PAGE_CSS } from './style.js';

const CSP = "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data:; font-src data:";

export function esc(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const pct = (x: number | null | undefined, d = 2) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : (100 * x).toFixed(d));
const signed = (x: number | null) => (x === null || !Number.isFinite(x) ? '—' : (x >= 0 ? '+' : '−') + Math.abs(100 * x).toFixed(2));
const int = (x: number | null | undefined) => (x === null || x === undefined ? '—' : Math.round(x).toLocaleString('en-US'));

/** What a page is made of: `rawrag report` writes them as one file; `rawrag view` also sends them apart, to refresh a page in place. */
export interface PageParts {
  title: string;
  /** The inside of `<header class="top">`: title, provenance, section links, notes. */
  header: string;
  /** The inside of `<main>`: the sections (static tables, chart placeholders, the explorer's frame). */
  main: string;
  /** The page script's data: the explorer's rows and the chart specs, as JSON safe inside a script element. */
  blob: string;
}

/** What a page served live (`rawrag view`) adds: a wider policy (requests to its own server), markup before the header, a script. */
export interface PageExtras {
  /** Sources the page may request (`'self'`: the view server); none in a written report. */
  connect?: string;
  /** HTML before the header (the live progress panel). */
  top?: string;
  /** Script run after the page's own (inlined; plain browser JavaScript). */
  script?: string;
}

export function renderPageParts(data: ReportData): PageParts {
  const charts: Record<string, unknown> = {};
  const chart = (id: string, spec: unknown, caption: string) => {
    if (!spec) return '';
    charts[id] = spec;
    return `<figure class="chart-figure"><div class="chart" data-chart="${esc(id)}" role="img" aria-label="${esc(caption)}"></div><figcaption>${esc(caption)}</figcaption></figure>`;
  };
  const sections = [
    leaderboardSection(data, chart),
    coverageSection(data, chart),
    ablationSection(data, chart),
    explorerSection(data),
    costSection(data, chart),
    paperSection(data),
  ];
  // The page script needs only the explorer's data and the chart specs; tables are already HTML.
  const names = distinctRunNames(data.runs);
  const explorer = {
    s: data.s,
    questions: data.questions,
    turns: data.turns,
    runs: data.runs.map((r, i) => ({
      label: r.label,
      // The system with its --name label, and its setting where another run of the page reads the same.
      system: names[i],
      benchmark: r.benchmark,
      evidence_text: r.evidence_text,
      detailed: r.detailed,
      rows: r.rows,
    })),
  };
  const blob = JSON.stringify({ ...explorer, charts }).replace(/</g, '\\u003c');
  const title = `rawrag report — ${[...new Set(data.families.map((f) => f.stats.benchmark).concat(data.runs.map((r) => r.benchmark)))].join(', ') || 'results'}`;
  const header = `
  <h1>${esc(title)}</h1>
  <p class="muted">Generated ${esc(data.generated_at)} by rawrag ${esc(data.tool_version)} from ${data.runs.length} run director${data.runs.length === 1 ? 'y' : 'ies'}${data.ablations.length ? ` and ${data.ablations.length} ablation${data.ablations.length === 1 ? '' : 's'}` : ''}. Statistics: ${esc(data.stats_source)}. Charts: ${Object.entries(
    data.libraries,
  )
    .map(([k, v]) => `${esc(k)} ${esc(v)}`)
    .join(', ')} (inlined; this file needs no network).</p>
  <nav aria-label="sections"><a href="#leaderboard">Leaderboard</a> <a href="#coverage">Coverage × utilization</a> <a href="#ablations">Ablations</a> <a href="#explorer">Explorer</a> <a href="#cost">Cost and time</a> <a href="#paper">The paper</a></nav>
  ${data.notes.length ? `<ul class="notes">${data.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
`;
  return { title, header, main: `\n${sections.join('\n')}\n`, blob };
}

export function renderPage(data: ReportData, extras: PageExtras = {}): string {
  return pageHtml(renderPageParts(data), extras);
}

/** A page's parts as one self-contained document (the charting library and the page script inlined). */
export function pageHtml(p: PageParts, extras: PageExtras = {}): string {
  const csp = extras.connect ? `${CSP}; connect-src ${extras.connect}` : CSP;
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
<script type="application/json" id="report-data">${p.blob}</script>
${chartLibraryScripts()}
<script>${inlineSafe(pageScript('report'))}</script>
${extras.script ? `<script>${inlineSafe(extras.script)}</script>\n` : ''}</body>
</html>
`;
}

type ChartFn = (id: string, spec: unknown, caption: string) => string;

function leaderboardSection(data: ReportData, chart: ChartFn): string {
  const parts = data.families.map((f, i) => {
    const st = f.stats;
    const anyScored = st.leaderboard.some((r) => r.columns.overall);
    return `<article class="family" data-family="${esc(st.setting)}">
<h3>${esc(st.benchmark)} — ${esc(st.setting)} <span class="muted">(${st.questions} questions, ${st.leaderboard.length} system${st.leaderboard.length === 1 ? '' : 's'})</span></h3>
<div class="charts">${chart(`lb-${i}`, leaderboardChart(f), `${st.setting}: ${anyScored ? 'headline accuracy' : 'coverage'} per system with 95% CI${Object.keys(f.paper).length && anyScored ? "; diamond = the paper's figure for the same benchmark, reader and retriever" : ''}`)}
${anyScored ? chart(`type-${i}`, perTypeChart(f), `${st.setting}: accuracy by question type with 95% CI`) : ''}</div>
${leaderboardTable(f)}
${agreementTable(st, data.runs)}
${st.problems.notes.length ? `<ul class="notes">${st.problems.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
</article>`;
  });
  return `<section id="leaderboard" aria-labelledby="h-leaderboard"><h2 id="h-leaderboard">1. Leaderboard</h2>
${parts.join('\n') || '<p>No runs with a benchmark and setting were found.</p>'}</section>`;
}

function leaderboardTable(f: FamilyView): string {
  const st = f.stats;
  const pairOf = new Map(st.pairwise.filter((p) => p.system_b === st.baseline).map((p) => [p.system_a, p]));
  const coverageOf = new Map(st.coverage.map((c) => [c.system, c]));
  const extraCols = st.aggregation.columns.filter((c) => c !== 'overall');
  const hasPaper = Object.keys(f.paper).length > 0 || Object.keys(f.notComparable ?? {}).length > 0;
  const head = [
    '#',
    'system',
    'n scored',
    ...st.types,
    ...extraCols,
    `${st.aggregation.overall} %`,
    '95% CI',
    ...(hasPaper ? ['paper %', 'Δ vs paper'] : []),
    'coverage %',
    st.mode === 'baseline' ? `Δ vs ${st.baseline ?? 'baseline'} (Holm)` : 'pairwise (Holm)',
  ];
  const rows = st.leaderboard.map((r) => {
    const o = r.columns.overall;
    const p = pairOf.get(r.system);
    const paper = f.paper[r.system];
    let sig = '—';
    if (r.system === st.baseline) sig = 'baseline';
    else if (p) {
      const mark = p.p_holm < 0.05 ? (p.delta > 0 ? '▲ better' : '▼ worse') : 'n.s.';
      sig = `${signed(p.delta)} ${mark}${stars(p.p_holm)} <span class="muted">p=${formatP(p.p_holm)}</span>`;
    } else if (st.mode === 'all-pairs') {
      const above = st.pairwise
        .filter((x) => x.system_a === r.system && x.p_holm < 0.05 && x.delta > 0)
        .map((x) => `#${st.leaderboard.find((y) => y.system === x.system_b)!.rank}`);
      sig = above.length ? `above ${above.join(', ')}` : '';
    }
    const cov = coverageOf.get(r.system);
    return `<tr data-system="${esc(r.system)}" data-dir="${esc(r.dir)}"><td>${r.rank}</td><th scope="row">${esc(r.system)}<div class="muted small">${esc(r.dir)}</div></th><td>${r.scored}</td>${st.types.map((t) => `<td data-col="type:${esc(t)}">${pct(r.by_type[t]?.accuracy)}</td>`).join('')}${extraCols.map((c) => `<td data-col="${esc(c)}">${pct(r.columns[c]?.accuracy)}</td>`).join('')}<td data-col="overall" class="strong">${pct(o?.accuracy)}</td><td>${o ? `${pct(o.ci_low)}–${pct(o.ci_high)} ${o.ci_method === 'wilson' ? 'W' : 'B'}` : '—'}</td>${hasPaper ? `<td data-col="paper">${paper ? paper.accuracy.toFixed(2) : f.notComparable?.[r.system] ? `<span class="muted small" title="${esc(f.notComparable[r.system]!)}">not comparable: ${esc(f.notComparable[r.system]!)}</span>` : '—'}</td><td>${paper && o ? signed(o.accuracy - paper.accuracy / 100) : '—'}</td>` : ''}<td data-col="coverage">${pct(cov?.coverage)}</td><td data-col="sig">${sig}</td></tr>`;
  });
  return `<div class="table-wrap"><table class="leaderboard">
<caption>Leaderboard: ${esc(st.aggregation.note)}. 95% CI: W = Wilson, B = bootstrap. Coverage = share of questions whose gold evidence turns were all shown. Significance: Holm-adjusted exact McNemar on majority-vote outcomes; * p&lt;0.05, ** p&lt;0.01, *** p&lt;0.001; ▲/▼ = significantly better/worse than the baseline.${Object.values(f.paper).length ? ` Paper: ${esc([...new Set(Object.values(f.paper).map((p) => p.headline))].join('; '))}.` : ''}</caption>
<thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>`;
}

function agreementTable(st: FamilyReport, runs: RunView[]): string {
  const rows = st.agreement.filter((a) => a.n > 0);
  if (rows.length === 0) return '<p class="muted">Judge agreement: no item has two or more judge votes.</p>';
  // How much accuracy moves between the judge's runs (summary.json judge_runs.sd), matched by run directory.
  const dirOf = new Map(st.leaderboard.map((r) => [r.system, r.dir]));
  const sdOf = (system: string) => {
    const run = runs.find((r) => r.label === dirOf.get(system) && r.setting === st.setting);
    return run?.summary?.judge_sd ?? null;
  };
  return `<div class="table-wrap"><table class="agreement"><caption>Judge agreement between the judge's runs (Fleiss' κ over items with the modal number of votes); SD = how much accuracy moves from one judge run to another (summary.json).</caption>
<thead><tr><th scope="col">system</th><th scope="col">items</th><th scope="col">judge runs</th><th scope="col">κ</th><th scope="col">observed agreement %</th><th scope="col">accuracy SD over judge runs (pts)</th><th scope="col">excluded</th></tr></thead>
<tbody>${rows
    .map((a) => {
      const sd = sdOf(a.system);
      return `<tr data-system="${esc(a.system)}"><th scope="row">${esc(a.system)}</th><td>${a.n}</td><td>${a.raters}</td><td data-col="kappa">${a.kappa === null ? '—' : a.kappa.toFixed(3)}</td><td>${pct(a.observed)}</td><td data-col="judge-sd">${sd === null ? '—' : (100 * sd).toFixed(2)}</td><td>${a.excluded}</td></tr>`;
    })
    .join('')}</tbody></table></div>`;
}

function coverageSection(data: ReportData, chart: ChartFn): string {
  const parts = data.families.map((f, i) => {
    const rows = f.stats.coverage.filter((c) => c.n > 0);
    if (rows.length === 0) return '';
    return `<article class="family" data-family="${esc(f.stats.setting)}"><h3>${esc(f.stats.setting)}</h3>
<div class="charts">${chart(`cov-${i}`, coverageChart(f), `${f.stats.setting}: share of questions whose gold evidence was never retrieved, retrieved but not used (answer wrong), retrieved and used`)}
${chart(`covci-${i}`, coverageIntervalsChart(f), `${f.stats.setting}: coverage (square) and utilization (triangle) with 95% bootstrap intervals`)}
${chart(`covk-${i}`, coverageAtKChart(f.stats.setting, data.runs), `${f.stats.setting}: coverage had only the top k windows been kept, from each run's own ranking (summary.json coverage_at_k)`)}</div>
<div class="table-wrap"><table class="coverage"><caption>Coverage = all gold evidence turns shown to the reader (where a question has no gold turns, MemoryAgentBench: the answer shown); utilization = accuracy on covered questions. Lost answers split into never retrieved (1 − coverage) and retrieved but not used (coverage × (1 − utilization)).</caption>
<thead><tr><th scope="col">system</th><th scope="col">n</th><th scope="col">coverage %</th><th scope="col">95% CI</th><th scope="col">utilization %</th><th scope="col">95% CI</th><th scope="col">never retrieved %</th><th scope="col">retrieved, not used %</th></tr></thead>
<tbody>${rows.map((c) => `<tr data-system="${esc(c.system)}"><th scope="row">${esc(c.system)}</th><td>${c.n}</td><td data-col="coverage">${pct(c.coverage)}</td><td>${pct(c.coverage_ci_low)}–${pct(c.coverage_ci_high)}</td><td data-col="utilization">${pct(c.utilization)}</td><td>${c.utilization === null ? '—' : `${pct(c.utilization_ci_low)}–${pct(c.utilization_ci_high)}`}</td><td>${c.coverage === null ? '—' : pct(1 - c.coverage)}</td><td>${c.coverage === null || c.utilization === null ? '—' : pct(c.coverage * (1 - c.utilization))}</td></tr>`).join('')}</tbody></table></div></article>`;
  });
  const body = parts.join('\n').trim();
  return `<section id="coverage" aria-labelledby="h-coverage"><h2 id="h-coverage">2. Coverage × utilization</h2>
${body || '<p>No run records coverage (no gold evidence in these benchmarks or runs).</p>'}</section>`;
}

function ablationSection(data: ReportData, chart: ChartFn): string {
  const parts = data.ablations.map((a, i) => ablationArticle(a, i, chart));
  return `<section id="ablations" aria-labelledby="h-ablations"><h2 id="h-ablations">3. Ablations</h2>
${parts.join('\n') || '<p>No ablation found (run <code>rawrag ablate --k 1,5,15,60</code> and give its folder).</p>'}</section>`;
}

function ablationArticle(a: AblationView, i: number, chart: ChartFn): string {
  const metric = a.metric === 'accuracy' ? 'accuracy' : 'coverage';
  const rows = a.rows.map(
    (r) =>
      `<tr data-variant="${esc(r.variant)}"${r.is_default ? ' class="reference"' : ''}><th scope="row">${esc(r.variant)}${r.is_default ? ' (reference)' : ''}</th><td>${esc(r.k)}</td><td>${esc(ablationSeries(r))}</td><td data-col="${metric}">${pct(r[metric] as number | null)}</td><td>${signed(r.delta as number | null)}</td><td>${r.ci_low === null ? '—' : `${signed(r.ci_low as number)} … ${signed(r.ci_high as number)}`}</td><td>${formatP(r.p_holm as number | null)}</td><td>${int(r.evidence_tokens as number | null)}</td><td>${workSeconds(r).toFixed(2)}</td></tr>`,
  );
  return `<article class="ablation" data-ablation="${esc(a.label)}"><h3>${esc(a.benchmark)} — ${esc(a.system)}${a.name ? ` [${esc(a.name)}]` : ''} <span class="muted">(${esc(a.label)})</span></h3>
${chart(`abl-${i}`, ablationChart(a), `${a.benchmark}: ${metric} against the swept setting with paired 95% intervals (reference + the interval of the difference); each point labelled with its evidence tokens and summed work time`)}
<div class="table-wrap"><table class="ablation-table"><caption>Each variant against the reference, paired per question (${a.resamples} bootstrap resamples); p Holm-adjusted over the variants. Work s = summed work charged to the variant (shared retrieval charged in full; per-question times added up), not wall time${a.wall_ms === null ? '' : `; wall time of the whole sweep: ${(a.wall_ms / 1000).toFixed(2)} s`}.</caption>
<thead><tr><th scope="col">variant</th><th scope="col">k</th><th scope="col">other knobs</th><th scope="col">${metric} %</th><th scope="col">Δ pts</th><th scope="col">95% CI of Δ</th><th scope="col">p (Holm)</th><th scope="col">evidence tokens</th><th scope="col">work s</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div></article>`;
}

/** Says when the size cap left per-question detail out, for how many items, and how to see them. */
function capNote(data: ReportData): string {
  const total = data.runs.reduce((a, r) => a + r.rows.length, 0);
  const detailed = data.runs.reduce((a, r) => a + r.detailed, 0);
  if (detailed === total) return '';
  return `<p class="note" id="explorer-cap">To keep this page small (data under ${(data.detail_budget / 1e6).toFixed(1)} M characters; <code>rawrag report --explorer-mb</code> changes it), evidence text and judge replies are embedded for ${int(detailed)} of ${int(total)} items (every run's first questions); outcomes, answers, votes and coverage are here for all. <code>rawrag show RUN_DIR ID</code> prints any item in full.</p>`;
}

function explorerSection(data: ReportData): string {
  if (data.runs.length === 0)
    return `<section id="explorer" aria-labelledby="h-explorer"><h2 id="h-explorer">4. Per-question explorer</h2><p>No run directory with items was given.</p></section>`;
  return `<section id="explorer" aria-labelledby="h-explorer"><h2 id="h-explorer">4. Per-question explorer</h2>
<div id="explorer-app">
<form class="controls" onsubmit="return false" aria-label="explorer filters">
<label>benchmark <select id="x-bench"></select></label>
<label>system A <select id="x-a"></select></label>
<label>system B <select id="x-b"></select></label>
<label>type <select id="x-type"></select></label>
<label>show <select id="x-outcome"></select></label>
<label>search <input id="x-text" type="search" placeholder="id, question, gold, answer"></label>
</form>
${capNote(data)}<p class="legend muted">✓ correct (score ≥ 0.5) · ✗ incorrect · ≠ judges disagree · ○ coverage miss · ★ gold evidence turn</p>
<div class="pager"><button type="button" id="x-prev">← previous</button> <span id="x-count" aria-live="polite"></span> <button type="button" id="x-next">next →</button></div>
<div class="explorer-grid">
<div class="table-wrap list"><table class="questions"><thead><tr><th scope="col">id</th><th scope="col">type</th><th scope="col">A</th><th scope="col" id="x-headB">B</th><th scope="col">question</th></tr></thead><tbody id="x-tbody"></tbody></table></div>
<div id="x-detail" class="detail" aria-live="polite"></div>
</div>
</div></section>`;
}

function costSection(data: ReportData, chart: ChartFn): string {
  const usageRows: string[] = [];
  const usd = (x: number | null) => (x === null ? 'unknown price' : `$${x.toFixed(4)}`);
  for (const r of data.runs) {
    const roles = Object.entries(r.usage);
    const head = `<th scope="row">${esc(r.system)}${r.name ? ` <span class="run-name">[${esc(r.name)}]</span>` : ''}<div class="muted small">${esc(r.setting)} · ${esc(r.label)}</div></th>`;
    for (const [role, u] of roles) {
      usageRows.push(
        `<tr data-run="${esc(r.label)}" data-role="${esc(role)}">${head}<td>${esc(role)}</td><td>${int(u.prompt_tokens)}</td><td>${int(u.completion_tokens)}${u.search_units ? `<div class="muted small">${int(u.search_units)} search units</div>` : ''}</td><td>${usd(u.cost_usd)}</td><td>${int(u.requests)}</td><td>${int(u.cache_hits)}</td></tr>`,
      );
    }
    if (roles.length > 0)
      usageRows.push(
        `<tr data-run="${esc(r.label)}" data-role="total" class="total">${head}<td>list-price equivalent (all roles)</td><td></td><td></td><td>${usd(totalCost(r.usage))}</td><td></td><td></td></tr>`,
        `<tr data-run="${esc(r.label)}" data-role="paid" class="total">${head}<td>paid (all roles, every process)</td><td></td><td></td><td>${usd(r.paid_usd)}</td><td></td><td></td></tr>`,
      );
    if (roles.length === 0)
      usageRows.push(
        `<tr data-run="${esc(r.label)}">${head}<td colspan="6" class="muted">no model calls recorded (offline run or external system)</td></tr>`,
      );
  }
  const timeRows = data.runs.map((r) => timeRow(r));
  return `<section id="cost" aria-labelledby="h-cost"><h2 id="h-cost">5. Cost and time</h2>
<div class="table-wrap"><table class="usage"><caption>Tokens, dollars, requests and cache hits per role at the <b>list-price equivalent</b> (every reply priced, cached or not): reader and judge summed over the run's items (across resumes); embed and rerank from summary.json (the run's last process); the system's ingest extraction from its ingest report. <b>Paid</b> is what was billed over every process of the run directory (cache hits cost nothing): what <code>--max-cost</code> caps (docs/runs.md).</caption>
<thead><tr><th scope="col">run</th><th scope="col">role</th><th scope="col">prompt tokens</th><th scope="col">completion tokens</th><th scope="col">cost</th><th scope="col">requests</th><th scope="col">cache hits</th></tr></thead>
<tbody>${usageRows.join('\n')}</tbody></table></div>
${chart('time', timeChart(data.runs), 'Per run: the wall-clock time (dark bar), and the summed work split into load, ingest (index building) and query (retrieval, reading and judging). Per-question times add up over questions answered concurrently, so summed work can exceed the wall time')}
<div class="table-wrap"><table class="timings"><caption>Time per run from manifest.json (seconds). Wall = wall-clock time of the run's last process (an ablation variant: of the whole sweep, shared by its variants); summed work = load + warm-up + ingest + retrieve + read/judge, per-question times added up.</caption>
<thead><tr><th scope="col">run</th><th scope="col">questions</th><th scope="col">wall</th><th scope="col">summed work</th><th scope="col">load</th><th scope="col">ingest</th><th scope="col">retrieve</th><th scope="col">read + judge</th><th scope="col">query ms / question</th></tr></thead>
<tbody>${timeRows.join('\n')}</tbody></table></div></section>`;
}

function timeRow(r: RunView): string {
  const sec = (ms: number | undefined | null) => (typeof ms === 'number' ? (ms / 1000).toFixed(2) : '—');
  const s = (k: string) => sec(r.timings[k]);
  const n = r.rows.length;
  const query = (r.timings.retrieve_ms ?? 0) + (r.timings.stages_ms ?? 0);
  const work = ['load_ms', 'warmup_ms', 'ingest_ms', 'retrieve_ms', 'stages_ms'].reduce((a, k) => a + (r.timings[k] ?? 0), 0);
  const wall = wallOf(r);
  return `<tr data-run="${esc(r.label)}"><th scope="row">${esc(r.system)}${r.name ? ` <span class="run-name">[${esc(r.name)}]</span>` : ''}<div class="muted small">${esc(r.setting)} · ${esc(r.label)}</div></th><td>${n}</td><td data-col="wall">${sec(wall.ms)}${wall.sweep ? ' <span class="muted small">(sweep)</span>' : ''}</td><td data-col="work">${sec(r.timings.work_ms ?? (Object.keys(r.timings).length ? work : null))}</td><td>${s('load_ms')}</td><td>${s('ingest_ms')}</td><td>${s('retrieve_ms')}</td><td>${s('stages_ms')}</td><td>${n && r.timings.retrieve_ms !== undefined ? (query / n).toFixed(1) : '—'}</td></tr>`;
}

/** The reproduction map (`rawrag paper`) over the folders this page was built from. */
function paperSection(data: ReportData): string {
  const map = data.paper;
  if (!map) return '';
  const num = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  const others = (e: NonNullable<ReportData['paper']>['entries'][number]) =>
    e.others.length ? esc(e.others.map((o) => `${o.rawrag === null ? '' : `${num(o.rawrag)} `}${o.label}: ${o.run}`).join('; ')) : '—';
  // rawrag's figure with its interval and the difference from the paper's (src/paper/map.ts FigureCheck).
  const check = (e: NonNullable<ReportData['paper']>['entries'][number]) => {
    const c = e.figure;
    if (!c) return '';
    const ci = c.ci_low === null || c.ci_high === null ? '' : ` [${num(c.ci_low)}, ${num(c.ci_high)}]`;
    return ` <span class="muted small">${esc(`${ci}; ${c.difference > 0 ? '+' : ''}${c.difference.toFixed(2)} vs the paper`)}</span>`;
  };
  const rows = map.entries.map(
    (e) =>
      `<tr data-status="${esc(e.status)}"><td>${esc(e.section)}</td><td>${esc(e.title)}</td><td>${esc(e.paper)}</td><td>${esc(e.status)}${e.why ? ` <span class="muted small">${esc(e.why)}</span>` : ''}</td><td class="num">${num(e.rawrag)}${e.run ? check(e) : ''}${e.text ? ` <span class="muted small">${esc(e.text)}</span>` : ''}</td><td>${esc(e.measure)}</td><td>${
        e.delta ? `${num(e.delta.delta)} [${num(e.delta.ci_low)}, ${num(e.delta.ci_high)}] (n ${e.delta.n})` : '—'
      }</td><td>${e.run ? esc(e.run) : esc(e.status === 'not in rawrag' ? 'not in rawrag' : e.status === 'runnable' ? 'none yet' : e.status)}</td><td>${others(e)}</td><td>${
        e.command === null
          ? esc(e.note ?? '')
          : `<code>${esc(e.command)}</code>${e.note ? ` <span class="muted">${esc(e.note)}</span>` : ''}`
      }</td></tr>`,
  );
  return `<section id="paper" aria-labelledby="h-paper"><h2 id="h-paper">6. The paper, item by item</h2>
<p class="muted">Every table, figure and diagnostic of the paper, the command that regenerates it, and rawrag's figure beside the paper's with its 95% interval and the difference. An item is reproduced only when a run has the same data (release sha256, all its questions), the whole split, the same system and setting, and the paper's figure lies inside rawrag's 95% interval (or within the item's stated tolerance); otherwise its status names the condition that fails, and other runs are listed apart with what differs. The same map as <code>rawrag paper</code>.</p>
<div class="table-wrap"><table class="paper"><thead><tr><th>section</th><th>item</th><th>paper</th><th>status</th><th>rawrag [95% CI]; Δ vs paper</th><th>measure</th><th>paired Δ [95% CI]</th><th>run</th><th>not comparable</th><th>command</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div></section>`;
}
