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

/** rawrag's figure: only from the run that reproduces the item. */
function reproducedCell(e: PaperEntry): string {
  if (e.status !== 'reproduced') return '—';
  const accuracyVariants = e.variants.filter((v) => v.measure === 'accuracy');
  const head = e.rawrag === null ? '—' : formatFigure(e.rawrag, e.unit);
  if (accuracyVariants.length > 1) return `${head} (${accuracyVariants.map(variantText).join('; ')})`;
  return e.text ? `${head} (${e.text})` : head;
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
  const shown = e.others.slice(0, 3).map((o) => `${o.rawrag === null ? '' : `${formatFigure(o.rawrag, e.unit)} `}${o.label}: ${o.run}`);
  return shown.join('; ') + (e.others.length > 3 ? ` (+${e.others.length - 3})` : '');
}

export function renderPaperMap(map: PaperMap): string {
  const out: string[] = ['# The paper, item by item: how rawrag regenerates each', ''];
  out.push(
    map.searched.length
      ? `Run directories searched: ${map.searched.join(', ')}.`
      : 'No results folder found: every item lists its command; run them (or `rawrag paper --run`), then `rawrag paper` again.',
    '',
    "rawrag's figure is shown only from a complete run of the item's setting (data, gold, categories, the whole question set, " +
      'system, reader, retriever used, judge protocol, display, method): other runs are listed apart with what differs.',
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
          'rawrag (reproduced)',
          'measure',
          'paired Δ [95% CI]',
          'coverage',
          'not comparable (partial, other settings)',
          'command',
        ],
        es.map((e) => [
          e.title,
          e.paper,
          reproducedCell(e),
          e.measure,
          deltaCell(e),
          coverageCell(e),
          othersCell(e),
          e.command === null ? `— ${e.note ?? ''}` : `\`${e.command}\`${e.note ? ` (${e.note})` : ''}`,
        ]),
        ['l', 'l', 'r', 'l', 'l', 'l', 'l', 'l'],
      ),
      '',
    );
  }
  const counts: Record<string, number> = { reproduced: 0, partial: 0, 'other setting': 0, runnable: 0, 'not in rawrag': 0 };
  for (const e of map.entries) counts[e.status]!++;
  out.push(
    `${map.entries.length} items: ${counts.reproduced} reproduced (a complete run of the setting), ${counts.partial} with a partial run only, ` +
      `${counts['other setting']} with runs of other settings only, ${counts.runnable} not run yet, ${counts['not in rawrag']} not in rawrag.`,
  );
  return out.join('\n');
}
