/** The page's stylesheet: readable at 1280x800 and on a laptop, in greyscale, and on paper. */
export const PAGE_CSS = `
:root { --fg: #1b1b1b; --muted: #5c5c5c; --line: #d0d0d0; --accent: #1f5fa8; --gold-bg: #fff3c4; --bad: #a61b1b; --good: #1d6b27; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; }
header.top { padding: 12px 24px 8px; border-bottom: 1px solid var(--line); }
header.top h1 { margin: 0 0 4px; font-size: 20px; }
header.top p { margin: 0 0 6px; font-size: 12px; }
nav a { margin-right: 14px; color: var(--accent); font-weight: 600; text-decoration: none; }
nav a:hover, nav a:focus { text-decoration: underline; }
main { padding: 0 24px 40px; max-width: 1500px; }
section { padding-top: 8px; border-bottom: 1px solid var(--line); padding-bottom: 16px; scroll-margin-top: 90px; }
h2 { font-size: 18px; margin: 16px 0 8px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
h4 { margin: 0; font-size: 14px; }
h5 { margin: 10px 0 4px; font-size: 13px; }
.muted { color: var(--muted); }
.small { font-size: 11px; font-weight: normal; }
.strong { font-weight: 700; }
.notes { font-size: 12px; color: var(--muted); margin: 4px 0; padding-left: 18px; }
.charts { display: flex; flex-wrap: wrap; gap: 12px 32px; align-items: flex-start; }
figure.chart-figure { margin: 8px 0; }
figure.chart-figure figcaption { font-size: 12px; color: var(--muted); max-width: 640px; }
.table-wrap { overflow-x: auto; margin: 8px 0; }
table { border-collapse: collapse; font-size: 13px; }
caption { text-align: left; font-size: 12px; color: var(--muted); padding: 4px 0; max-width: 1100px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: right; vertical-align: top; }
th[scope=row], td.qtext, thead th:nth-child(2) { text-align: left; }
table.questions td, table.questions th { text-align: left; }
thead th { background: #f3f3f3; font-weight: 600; }
tr.reference th, tr.reference td { font-weight: 600; }
.controls { display: flex; flex-wrap: wrap; gap: 8px 16px; margin: 8px 0; }
.controls label { font-size: 12px; display: flex; flex-direction: column; gap: 2px; font-weight: 600; }
.controls select, .controls input { font: inherit; padding: 3px 4px; max-width: 330px; }
.pager { margin: 6px 0; }
.pager button { font: inherit; padding: 2px 10px; }
.explorer-grid { display: grid; grid-template-columns: minmax(380px, 40%) 1fr; gap: 16px; align-items: start; }
.list { max-height: 640px; overflow-y: auto; }
table.questions td.qtext { max-width: 360px; }
table.questions td:first-child { white-space: nowrap; }
table.questions tr.selected { outline: 2px solid var(--accent); background: #eef4fb; }
button.linkish { background: none; border: none; color: var(--accent); text-decoration: underline; cursor: pointer; font: inherit; padding: 0; text-align: left; }
.outcome.correct { color: var(--good); }
.outcome.incorrect, .error { color: var(--bad); }
.run-status.not-complete { color: var(--bad); font-weight: 600; }
.detail { border: 1px solid var(--line); padding: 8px 12px; min-height: 200px; }
.detail h3 { margin-top: 0; }
dl.qa dt, .system-col dt { font-weight: 600; font-size: 12px; color: var(--muted); }
dl.qa dd, .system-col dd { margin: 0 0 6px; }
.side-by-side { display: grid; grid-template-columns: 1fr; gap: 12px; }
.side-by-side.two { grid-template-columns: 1fr 1fr; }
.system-col { border-top: 3px solid var(--accent); padding-top: 6px; min-width: 0; }
.system-col + .system-col { border-top-style: dashed; }
ol.votes { padding-left: 18px; margin: 0; }
.vote.yes { color: var(--good); } .vote.no { color: var(--bad); }
pre { white-space: pre-wrap; word-break: break-word; font-size: 12px; background: #f6f6f6; padding: 4px 6px; margin: 2px 0; }
ol.evidence, ul.missed { padding-left: 22px; margin: 4px 0; font-size: 12.5px; }
ol.evidence { max-height: 420px; overflow-y: auto; }
li.turn { margin: 2px 0; }
li.turn .turn-id { font-family: ui-monospace, monospace; font-size: 11px; color: var(--muted); }
li.turn.gold { background: var(--gold-bg); border-left: 4px solid #b38600; padding-left: 4px; font-weight: 600; }
li.turn.gold .turn-id { color: #6b5000; }
.cov.miss { color: var(--bad); font-weight: 600; }
table.paper td { text-align: left; overflow-wrap: anywhere; min-width: 4em; }
@media (max-width: 1100px) { .explorer-grid { grid-template-columns: 1fr; } .list { max-height: 360px; } }
@media print {
  header.top { position: static; }
  nav, .controls, .pager, .legend { display: none; }
  section { break-before: page; border: none; }
  section:first-of-type { break-before: auto; }
  figure, table, article { break-inside: avoid; }
  .list, ol.evidence { max-height: none; overflow: visible; }
  .explorer-grid { grid-template-columns: 1fr; }
  details { display: block; }
  a { color: inherit; }
  main, header.top { padding-left: 0; padding-right: 0; }
  .chart svg { max-width: 100% !important; height: auto !important; }
  .table-wrap { overflow: visible; }
  table { font-size: 10px; }
  th, td { padding: 2px 4px; }
  table.paper { table-layout: fixed; width: 100%; }
  td, th { overflow-wrap: anywhere; }
}
`;
