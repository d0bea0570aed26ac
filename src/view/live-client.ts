/**
 * What `rawrag view` adds to a report page: a progress panel above the header (one row per run:
 * status, questions done of those selected (and, while it runs, its phases: ingest, index, answer,
 * judge with done/total, rate, time left and money), the time left, failures, judged items and their mean score, coverage,
 * cost so far: paid and list-price equivalent, src/run-files/cost.ts) and the script that fills it. The script polls the server's /api/progress every
 * interval; when the server has built newer pages it fetches this page's parts (/api/page) and
 * swaps them in — header, sections, the page script's data — and asks the report script to redraw,
 * keeping the explorer's choices and the scroll position. The script is src/view/browser/live.ts,
 * bundled at build time and inlined.
 */
import { pageScript } from '../report/assets.js';

/** The panel's markup (filled by the script) with its styles; `version` is the build the page holds, `intervalMs` between polls. */
export function livePanel(version: string, kind: string, intervalMs: number): string {
  return `<style>${LIVE_CSS}</style>
<section id="live" aria-labelledby="h-live" data-version="${version}" data-kind="${kind}" data-interval="${Math.round(intervalMs)}" aria-live="polite">
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

/** The script that fills the panel (src/view/browser/live.ts, bundled at build time). */
export function liveScript(): string {
  return pageScript('live');
}
