/** `rawrag paper` as Markdown: one table per section of the paper, reproduced figures apart from everything else. */
import { markdownTable } from '../util/table.js';
import { formatFigure } from './figures.js';
import type { PaperEntry, PaperMap, VariantFigure } from './map.js';

const signed = (x: number) => `${x > 0 ? '+' : ''}${x.toFixed(2)}`;
const ci = (lo: number | null, hi: number | null) =>
  lo === null || hi === null || Number.isNaN(lo) ? '' : ` [${signed(lo)}, ${signed(hi)}]`;

function variantText(v: VariantFigure): string {
  return `${v.variant}: ${v.delta === null ? '—' : signed(v.delta)}${ci(v.ci_low, v.ci_high)}`;
}

/** rawrag's figure: only from the item's run (a complete run of its setting; its status may still say the figure or the data differs), with its interval and difference. */
function reproducedCell(e: PaperEntry): string {
  if (e.run === null) return '—';
  const accuracyVariants = e.variants.filter((v) => v.measure === 'accuracy');
  const head = e.rawrag === null ? '—' : formatFigure(e.rawrag, e.unit);
  const shown = `${head}${checkText(e)}`;
  if (accuracyVariants.length > 1) return `${shown} (${accuracyVariants.map(variantText).join('; ')})`;
  return e.text ? `${shown} (${e.text})` : shown;
}

/** ` [CI lo, hi], Δ -0.53 vs the paper: within` — the interval and the difference beside the figure. */
function checkText(e: PaperEntry): string {
  const c = e.figure;
  if (!c) return '';
  const unit = e.unit;
  const ci = c.ci_low === null || c.ci_high === null ? '' : ` [${formatFigure(c.ci_low, unit)}, ${formatFigure(c.ci_high, unit)}]`;
  return `${ci}, ${signed(c.difference)} vs the paper (${c.within ? 'within' : 'outside'}: ${c.rule})`;
}

function statusCell(e: PaperEntry): string {
  return e.why && e.status !== 'partial' && e.status !== 'other setting' && e.status !== 'other data' && e.status !== 'other system'
    ? `${e.status}: ${e.why.replace(/^figure differs: /, '')}`
    : e.status;
}

function deltaCell(e: PaperEntry): string {
  if (!e.delta) return '—';
  return `${signed(e.delta.delta)}${ci(e.delta.ci_low, e.delta.ci_high)} (n ${e.delta.n}${e.delta.against.startsWith('the ') ? '' : `, against ${e.delta.against}`})`;
}

function coverageCell(e: PaperEntry): string {
  const cov = e.variants.filter((v) => v.measure === 'coverage');
  if (cov.length > 1) return `Δ coverage: ${cov.map(variantText).join('; ')}`;
  if (e.coverage === null) return '—';
  return `${e.coverage_measure?.startsWith('Δ') ? signed(e.coverage) : e.coverage.toFixed(2)} (${e.coverage_measure})`;
}

function othersCell(e: PaperEntry): string {
  if (e.others.length === 0) return e.status === 'not in rawrag' ? 'not in rawrag' : e.status === 'reproduced' ? '—' : 'none yet';
  const shown = e.others
    .slice(0, 3)
    .map(
      (o) =>
        `${o.rawrag === null ? '' : `${formatFigure(o.rawrag, e.unit)}${o.figure ? ` (${signed(o.figure.difference)} vs the paper)` : ''} `}${o.label}: ${o.run}`,
    );
  return shown.join('; ') + (e.others.length > 3 ? ` (+${e.others.length - 3})` : '');
}

export function renderPaperMap(map: PaperMap): string {
  const out: string[] = ['# The paper, item by item: how rawrag regenerates each', ''];
  out.push(
    map.searched.length
      ? `Run directories searched: ${map.searched.join(', ')}.`
      : 'No results folder found: every item lists its command; run them (or `rawrag paper --run`), then `rawrag paper` again.',
    '',
    "An item is reproduced only when a run has the same data (the release's sha256 and all its questions), the whole split, the same system and " +
      "the same setting (reader, retriever used, judge protocol, display, method, the benchmark's protocol options), and its figure lies within the " +
      "paper's uncertainty (the paper's figure inside rawrag's 95 % interval, or within the item's stated tolerance). Otherwise the status names the " +
      'condition that fails; other runs are listed apart with what differs.',
    '',
  );
  for (const section of [...new Set(map.entries.map((e) => e.section))]) {
    out.push(`## ${section}`, '');
    const es = map.entries.filter((e) => e.section === section);
    out.push(
      markdownTable(
        [
          'item',
          'paper',
          'status',
          'rawrag [95% CI], difference',
          'measure',
          'paired Δ [95% CI]',
          'coverage',
          'not comparable (partial, other settings)',
          'command',
        ],
        es.map((e) => [
          e.title,
          e.paper,
          statusCell(e),
          reproducedCell(e),
          e.measure,
          deltaCell(e),
          coverageCell(e),
          othersCell(e),
          e.command === null ? `— ${e.note ?? ''}` : `\`${e.command}\`${e.note ? ` (${e.note})` : ''}`,
        ]),
        ['l', 'l', 'l', 'r', 'l', 'l', 'l', 'l', 'l'],
      ),
      '',
    );
  }
  const counts = new Map<string, number>();
  for (const e of map.entries) counts.set(e.status, (counts.get(e.status) ?? 0) + 1);
  const order = ['reproduced', 'figure differs', 'other data', 'other system', 'other setting', 'partial', 'runnable', 'not in rawrag'];
  out.push(
    `${map.entries.length} items: ` +
      order
        .filter((s) => counts.has(s))
        .map((s) => `${counts.get(s)} ${s === 'runnable' ? 'not run yet' : s}`)
        .join(', ') +
      '.',
  );
  return out.join('\n');
}
