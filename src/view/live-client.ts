/**
 * What `rawrag view` adds to a report page: a progress panel above the header (one row per run:
 * status, questions done of those selected (and, while it runs, its phases: ingest, index, answer,
 * judge with done/total, rate, time left and money), the time left, failures, judged items and their mean score, coverage,
 * cost so far: paid and list-price equivalent, src/run/cost.ts) and the script that fills it. The script polls the server's /api/progress every
 * interval; when the server has built newer pages it fetches this page's parts (/api/page) and
 * swaps them in — header, sections, the page script's data — and asks the report script to redraw,
 * keeping the explorer's choices and the scroll position. Plain browser JavaScript, inlined.
 */

/** The panel's markup (filled by the script) with its styles; `version` is the build the page holds. */
export function livePanel(version: string, kind: string): string {
  return `<style>${LIVE_CSS}</style>
<section id="live" aria-labelledby="h-live" data-version="${version}" data-kind="${kind}" aria-live="polite">
<h2 id="h-live">Live <span id="live-status" class="muted small">connecting…</span></h2>
<div class="table-wrap"><table class="live"><thead><tr><th scope="col">run</th><th scope="col">status</th><th scope="col">questions done</th><th scope="col" title="time left while the run runs: its own estimate, else the rate at which items are written; below it the phases (ingest, index, answer, judge) with done/total, rate, time left and money">ETA and phases</th><th scope="col">failed</th><th scope="col">judged</th><th scope="col">mean score %</th><th scope="col">coverage %</th><th scope="col" title="paid: what was billed over every process of the run directory (cache hits cost nothing); list-price equivalent: every reply priced, cached or not">cost so far: paid (list-price equivalent)</th><th scope="col">last written</th></tr></thead>
<tbody id="live-runs"></tbody></table></div>
</section>
`;
}

const LIVE_CSS = `
#live { padding: 8px 24px 10px; border-bottom: 2px solid var(--accent); background: #f7fafd; }
#live h2 { margin: 0 0 4px; font-size: 16px; }
#live table.live td, #live table.live th { padding: 3px 8px; }
#live table.live th[scope=row], #live table.live thead th:first-child, #live table.live td[data-col=status] { text-align: left; }
#live .status { font-weight: 600; }
#live .status.running { color: var(--accent); }
#live .status.complete { color: var(--good); }
#live .status.failed, #live .status.stopped, #live .status.interrupted, #live .status.incomplete { color: var(--bad); }
#live progress { width: 140px; vertical-align: middle; margin-right: 6px; }
#live .offline { color: var(--bad); font-weight: 600; }
@media print { #live { display: none; } }
`;

/** The script; `intervalMs` between polls. */
export function liveScript(intervalMs: number): string {
  return String.raw`
(function () {
  'use strict';
  var INTERVAL = ${Math.round(intervalMs)};
  var panel = document.getElementById('live');
  var version = panel.getAttribute('data-version');
  var kind = panel.getAttribute('data-kind');
  var busy = false;
  var refreshes = 0;

  function text(tag, value, attrs) {
    var e = document.createElement(tag);
    e.textContent = value;
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  function pct(x) { return x === null || x === undefined ? '\u2014' : (100 * x).toFixed(2); }
  function usd(x) { return x === null || x === undefined ? 'unknown price' : '$' + x.toFixed(4); }
  function clock(iso) { return iso ? new Date(iso).toLocaleTimeString() : '\u2014'; }
  function duration(s) {
    if (s === null || s === undefined || !isFinite(s)) return '\u2014';
    var r = Math.max(0, Math.round(s));
    if (r < 60) return r + 's';
    if (r < 3600) return Math.floor(r / 60) + 'm ' + String(r % 60).padStart(2, '0') + 's';
    return Math.floor(r / 3600) + 'h ' + String(Math.floor((r % 3600) / 60)).padStart(2, '0') + 'm';
  }
  /** "ingest 120/5882 turns 3.2/s ETA 29m 58s $0.0123 · index 2/10 episodes": the phases that have started. */
  function phasesLine(phases) {
    return (phases || []).filter(function (p) { return p.done > 0; }).map(function (p) {
      var t = p.phase + ' ' + p.done + '/' + p.total + ' ' + p.unit;
      if (p.done < p.total && p.rate_per_s !== null) t += ' ' + (p.rate_per_s < 10 ? p.rate_per_s.toFixed(1) : Math.round(p.rate_per_s)) + '/s';
      if (p.done < p.total && p.eta_s !== null) t += ' ETA ' + duration(p.eta_s);
      if (p.cost_usd !== undefined) t += ' ' + usd(p.cost_usd);
      return t;
    }).join(' \u00b7 ');
  }

  function row(r) {
    var tr = document.createElement('tr');
    tr.setAttribute('data-run', r.label);
    tr.setAttribute('data-status', r.status);
    var head = document.createElement('th');
    head.setAttribute('scope', 'row');
    head.appendChild(document.createTextNode(r.system + (r.name ? ' [' + r.name + ']' : '')));
    head.appendChild(text('div', r.setting + ' \u00b7 ' + r.label, { class: 'muted small' }));
    tr.appendChild(head);
    tr.appendChild(text('td', r.status === 'stopped' ? 'stopped (its process is gone)' : r.status_label || r.status, { class: 'status ' + r.status, 'data-col': 'status' }));
    var done = document.createElement('td');
    done.setAttribute('data-col', 'done');
    done.setAttribute('data-done', String(r.done));
    if (r.selected) {
      var bar = document.createElement('progress');
      bar.max = r.selected;
      bar.value = Math.min(r.done, r.selected);
      done.appendChild(bar);
    }
    done.appendChild(document.createTextNode(r.done + (r.selected ? ' / ' + r.selected : '')));
    tr.appendChild(done);
    var eta = text('td', r.status === 'running' ? duration(r.eta_s) : '', { 'data-col': 'eta' });
    var phases = phasesLine(r.phases);
    if (phases) eta.appendChild(text('div', phases, { class: 'muted small', 'data-phases': '' }));
    tr.appendChild(eta);
    tr.appendChild(text('td', String(r.failed), { 'data-col': 'failed' }));
    tr.appendChild(text('td', String(r.judged), { 'data-col': 'judged' }));
    tr.appendChild(text('td', pct(r.mean_score), { 'data-col': 'score' }));
    tr.appendChild(text('td', pct(r.coverage), { 'data-col': 'coverage' }));
    var cost = text('td', r.requests + r.cache_hits || r.paid_usd ? 'paid ' + usd(r.paid_usd) + ' (list-price equivalent ' + usd(r.list_usd) + ')' : '\u2014', { 'data-col': 'cost' });
    if (r.requests + r.cache_hits) cost.appendChild(text('div', r.requests + ' sent, ' + r.cache_hits + ' cached', { class: 'muted small' }));
    tr.appendChild(cost);
    tr.appendChild(text('td', clock(r.updated_at), { 'data-col': 'updated' }));
    return tr;
  }

  function showProgress(p) {
    var body = document.getElementById('live-runs');
    body.innerHTML = '';
    p.runs.forEach(function (r) { body.appendChild(row(r)); });
    var running = p.runs.filter(function (r) { return r.status === 'running'; }).length;
    var status = document.getElementById('live-status');
    status.className = 'muted small';
    status.textContent = p.folders.join(', ') + ': ' + p.runs.length + ' run' + (p.runs.length === 1 ? '' : 's') + ', ' + running + ' running \u00b7 checked ' +
      new Date().toLocaleTimeString() + ' (every ' + INTERVAL / 1000 + ' s)' + (p.building || p.site_version !== version ? ' \u00b7 updating the pages\u2026' : '');
    panel.setAttribute('data-running', String(running));
  }

  /** Newer parts of this page in place of the old: the scroll position stays, charts keep their height until redrawn. */
  function swap(parts) {
    var hasData = !!document.getElementById('report-data');
    if (parts.kind !== kind || (parts.blob !== null) !== hasData) { location.reload(); return; }
    var heights = {};
    document.querySelectorAll('[data-chart]').forEach(function (n) { heights[n.getAttribute('data-chart')] = n.offsetHeight; });
    document.querySelector('header.top').innerHTML = parts.header;
    document.querySelector('main').innerHTML = parts.main;
    document.title = parts.title;
    document.querySelectorAll('[data-chart]').forEach(function (n) {
      var h = heights[n.getAttribute('data-chart')];
      if (h) n.style.minHeight = h + 'px';
    });
    if (hasData) document.getElementById('report-data').textContent = parts.blob;
    version = parts.version;
    panel.setAttribute('data-version', version);
    refreshes++;
    document.body.setAttribute('data-refreshes', String(refreshes));
    if (hasData && window.rawragReport) window.rawragReport.refresh();
  }

  function fetchPage() {
    busy = true;
    return fetch('/api/page?path=' + encodeURIComponent(location.pathname), { cache: 'no-store' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (parts) { if (parts && parts.version !== version) swap(parts); })
      .then(function () { busy = false; }, function () { busy = false; });
  }

  function poll() {
    fetch('/api/progress', { cache: 'no-store' })
      .then(function (r) { return r.json(); })
      .then(function (p) {
        showProgress(p);
        if (!busy && p.site_version && p.site_version !== version) return fetchPage();
      })
      .catch(function () {
        var status = document.getElementById('live-status');
        status.className = 'offline';
        status.textContent = 'the view server does not answer (stopped?): the figures below are as last seen';
      })
      .then(function () { setTimeout(poll, INTERVAL); });
  }
  poll();
})();
`;
}
