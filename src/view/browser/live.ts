/**
 * The script `rawrag view` adds to a report page (browser TypeScript, bundled by
 * scripts/build-browser.mjs into dist/browser/live.js and inlined): fills the progress panel
 * (#live, src/view/live-client.ts) from the server's /api/progress every `data-interval` ms; when
 * the server has built newer pages it fetches this page's parts (/api/page) and swaps them in —
 * header, sections, the page script's data — and asks the report script to redraw, keeping the
 * explorer's choices and the scroll position.
 */

/** One run's row of /api/progress (src/view/progress.ts). */
interface RunRow {
  label: string;
  system: string;
  name: string | null;
  setting: string;
  status: string;
  status_label?: string;
  done: number;
  selected: number | null;
  eta_s: number | null;
  phases?: PhaseRow[];
  failed: number;
  judged: number;
  mean_score: number | null;
  coverage: number | null;
  requests: number;
  cache_hits: number;
  paid_usd: number | null;
  list_usd: number | null;
  updated_at: string | null;
}

interface PhaseRow {
  phase: string;
  done: number;
  total: number;
  unit: string;
  rate_per_s: number | null;
  eta_s: number | null;
  cost_usd?: number | null;
}

interface Progress {
  folders: string[];
  runs: RunRow[];
  building: boolean;
  site_version: string | null;
}

/** /api/page: the newer parts of one page. */
interface PageParts {
  kind: string;
  version: string;
  title: string;
  header: string;
  main: string;
  blob: string | null;
}

declare global {
  interface Window {
    rawragReport?: { refresh(): Promise<void> };
  }
}

const panel = document.getElementById('live')!;
const INTERVAL = Number(panel.getAttribute('data-interval'));
let version = panel.getAttribute('data-version');
const kind = panel.getAttribute('data-kind');
let busy = false;
let refreshes = 0;

function text(tag: string, value: string, attrs?: Record<string, string>): HTMLElement {
  const e = document.createElement(tag);
  e.textContent = value;
  for (const k in attrs || {}) e.setAttribute(k, attrs![k]!);
  return e;
}

function pct(x: number | null | undefined): string {
  return x === null || x === undefined ? '\u2014' : (100 * x).toFixed(2);
}

function usd(x: number | null | undefined): string {
  return x === null || x === undefined ? 'unknown price' : '$' + x.toFixed(4);
}

function clock(iso: string | null): string {
  return iso ? new Date(iso).toLocaleTimeString() : '\u2014';
}

function duration(s: number | null | undefined): string {
  if (s === null || s === undefined || !isFinite(s)) return '\u2014';
  const r = Math.max(0, Math.round(s));
  if (r < 60) return r + 's';
  if (r < 3600) return Math.floor(r / 60) + 'm ' + String(r % 60).padStart(2, '0') + 's';
  return Math.floor(r / 3600) + 'h ' + String(Math.floor((r % 3600) / 60)).padStart(2, '0') + 'm';
}

/** "ingest 120/5882 turns 3.2/s ETA 29m 58s $0.0123 · index 2/10 episodes": the phases that have started. */
function phasesLine(phases: PhaseRow[] | undefined): string {
  return (phases || [])
    .filter(function (p) {
      return p.done > 0;
    })
    .map(function (p) {
      let t = p.phase + ' ' + p.done + '/' + p.total + ' ' + p.unit;
      if (p.done < p.total && p.rate_per_s !== null)
        t += ' ' + (p.rate_per_s < 10 ? p.rate_per_s.toFixed(1) : Math.round(p.rate_per_s)) + '/s';
      if (p.done < p.total && p.eta_s !== null) t += ' ETA ' + duration(p.eta_s);
      if (p.cost_usd !== undefined) t += ' ' + usd(p.cost_usd);
      return t;
    })
    .join(' \u00b7 ');
}

/** The "questions done" cell: a progress bar when the selection's size is known, then "done / selected". */
function doneCell(r: RunRow): HTMLElement {
  const done = document.createElement('td');
  done.setAttribute('data-col', 'done');
  done.setAttribute('data-done', String(r.done));
  if (r.selected) {
    const bar = document.createElement('progress');
    bar.max = r.selected;
    bar.value = Math.min(r.done, r.selected);
    done.appendChild(bar);
  }
  done.appendChild(document.createTextNode(r.done + (r.selected ? ' / ' + r.selected : '')));
  return done;
}

function costCell(r: RunRow): HTMLElement {
  const cost = text(
    'td',
    r.requests + r.cache_hits || r.paid_usd ? 'paid ' + usd(r.paid_usd) + ' (list-price equivalent ' + usd(r.list_usd) + ')' : '\u2014',
    {
      'data-col': 'cost',
    },
  );
  if (r.requests + r.cache_hits) cost.appendChild(text('div', r.requests + ' sent, ' + r.cache_hits + ' cached', { class: 'muted small' }));
  return cost;
}

function row(r: RunRow): HTMLElement {
  const tr = document.createElement('tr');
  tr.setAttribute('data-run', r.label);
  tr.setAttribute('data-status', r.status);
  const head = document.createElement('th');
  head.setAttribute('scope', 'row');
  head.appendChild(document.createTextNode(r.system + (r.name ? ' [' + r.name + ']' : '')));
  head.appendChild(text('div', r.setting + ' \u00b7 ' + r.label, { class: 'muted small' }));
  tr.appendChild(head);
  tr.appendChild(
    text('td', r.status === 'stopped' ? 'stopped (its process is gone)' : r.status_label || r.status, {
      class: 'status ' + r.status,
      'data-col': 'status',
    }),
  );
  tr.appendChild(doneCell(r));
  const eta = text('td', r.status === 'running' ? duration(r.eta_s) : '', { 'data-col': 'eta' });
  const phases = phasesLine(r.phases);
  if (phases) eta.appendChild(text('div', phases, { class: 'muted small', 'data-phases': '' }));
  tr.appendChild(eta);
  tr.appendChild(text('td', String(r.failed), { 'data-col': 'failed' }));
  tr.appendChild(text('td', String(r.judged), { 'data-col': 'judged' }));
  tr.appendChild(text('td', pct(r.mean_score), { 'data-col': 'score' }));
  tr.appendChild(text('td', pct(r.coverage), { 'data-col': 'coverage' }));
  tr.appendChild(costCell(r));
  tr.appendChild(text('td', clock(r.updated_at), { 'data-col': 'updated' }));
  return tr;
}

function showProgress(p: Progress): void {
  const body = document.getElementById('live-runs')!;
  body.innerHTML = '';
  p.runs.forEach(function (r) {
    body.appendChild(row(r));
  });
  const running = p.runs.filter(function (r) {
    return r.status === 'running';
  }).length;
  const status = document.getElementById('live-status')!;
  status.className = 'muted small';
  status.textContent =
    p.folders.join(', ') +
    ': ' +
    p.runs.length +
    ' run' +
    (p.runs.length === 1 ? '' : 's') +
    ', ' +
    running +
    ' running \u00b7 checked ' +
    new Date().toLocaleTimeString() +
    ' (every ' +
    INTERVAL / 1000 +
    ' s)' +
    (p.building || p.site_version !== version ? ' \u00b7 updating the pages\u2026' : '');
  panel.setAttribute('data-running', String(running));
}

/** Newer parts of this page in place of the old: the scroll position stays, charts keep their height until redrawn. */
function swap(parts: PageParts): void {
  const hasData = !!document.getElementById('report-data');
  if (parts.kind !== kind || (parts.blob !== null) !== hasData) {
    location.reload();
    return;
  }
  const heights: Record<string, number> = {};
  document.querySelectorAll<HTMLElement>('[data-chart]').forEach(function (n) {
    heights[n.getAttribute('data-chart')!] = n.offsetHeight;
  });
  document.querySelector('header.top')!.innerHTML = parts.header;
  document.querySelector('main')!.innerHTML = parts.main;
  document.title = parts.title;
  document.querySelectorAll<HTMLElement>('[data-chart]').forEach(function (n) {
    const h = heights[n.getAttribute('data-chart')!];
    if (h) n.style.minHeight = h + 'px';
  });
  if (hasData) document.getElementById('report-data')!.textContent = parts.blob;
  version = parts.version;
  panel.setAttribute('data-version', version);
  refreshes++;
  document.body.setAttribute('data-refreshes', String(refreshes));
  if (hasData && window.rawragReport) void window.rawragReport.refresh();
}

function fetchPage(): Promise<void> {
  busy = true;
  return fetch('/api/page?path=' + encodeURIComponent(location.pathname), { cache: 'no-store' })
    .then(function (r) {
      return r.ok ? (r.json() as Promise<PageParts>) : null;
    })
    .then(function (parts) {
      if (parts && parts.version !== version) swap(parts);
    })
    .then(
      function () {
        busy = false;
      },
      function () {
        busy = false;
      },
    );
}

function poll(): void {
  fetch('/api/progress', { cache: 'no-store' })
    .then(function (r) {
      return r.json() as Promise<Progress>;
    })
    .then(function (p) {
      showProgress(p);
      if (!busy && p.site_version && p.site_version !== version) return fetchPage();
      return undefined;
    })
    .catch(function () {
      const status = document.getElementById('live-status')!;
      status.className = 'offline';
      status.textContent = 'the view server does not answer (stopped?): the figures below are as last seen';
    })
    .then(function () {
      setTimeout(poll, INTERVAL);
    });
}
poll();

export {};
