/** The ablation table as Markdown (printed, written) and CSV (written). */
import { stringify } from 'csv-stringify/sync';
import { markdownTable, pct } from '../util/table.js';
import type { AblationTable } from './paired-table.js';

export function ablationMarkdown(table: AblationTable): string {
  const scored = table.rows.some((r) => r.accuracy !== null);
  const header = ['variant', 'n', 'coverage %'];
  if (scored) header.push('accuracy %');
  const walls = table.rows.some((r) => r.wall_s !== null);
  header.push(`Δ ${table.metric} (pts)`, '95% CI', 'p (Holm)');
  // Where answers were judged: how many questions kept their evidence, and — when they were read and judged
  // again (--rejudge-unchanged) — how much of each delta they carry (judge noise). Reused answers carry none by construction.
  const split = table.rows.some((r) => r.delta_unchanged !== null);
  if (split) header.push(table.rejudged ? 'unchanged evidence (re-judged)' : 'unchanged evidence (answers reused)');
  if (split && table.rejudged) header.push('Δ from unchanged (pts, micro)');
  header.push('evidence tokens/q', 'work s');
  if (walls) header.push('wall s');
  const rows = table.rows.map((r) => {
    const cells: Array<string | number> = [r.is_default ? `${r.variant} (reference)` : r.variant, r.questions, pct(r.coverage)];
    if (scored) cells.push(pct(r.accuracy));
    cells.push(
      r.delta === null ? '—' : signed(100 * r.delta),
      r.ci_low === null ? '—' : `[${signed(100 * r.ci_low)}, ${signed(100 * r.ci_high!)}]`,
      r.p_holm === null ? '—' : pValue(r.p_holm),
    );
    if (split) cells.push(r.unchanged === null ? '—' : `${r.unchanged}/${r.compared}`);
    if (split && table.rejudged)
      cells.push(r.delta_unchanged === null ? '—' : `${signed(100 * r.delta_unchanged)} of ${signed(100 * r.delta_micro!)}`);
    cells.push(r.evidence_tokens === null ? '—' : r.evidence_tokens.toFixed(1), r.work_s.toFixed(2));
    if (walls) cells.push(r.wall_s === null ? '—' : r.wall_s.toFixed(2));
    return cells;
  });
  return markdownTable(header, rows);
}

export function ablationCsv(table: AblationTable): string {
  const columns = [
    'variant',
    'system',
    'is_default',
    'window',
    'stride',
    'candidates',
    'k',
    'rerank',
    'expand',
    'questions',
    'errors',
    'coverage',
    'accuracy',
    'metric',
    'paired',
    'delta',
    'ci_low',
    'ci_high',
    'p',
    'p_holm',
    'evidence_tokens',
    'work_s',
    'wall_s',
    'unchanged',
    'compared',
    'delta_unchanged',
    'delta_micro',
    'identical_to',
    'dir',
  ];
  const records = table.rows.map((r) => ({ ...r, metric: table.metric, identical_to: r.identical_to ?? '' }));
  return stringify(records, {
    header: true,
    columns,
    cast: { boolean: (b) => (b ? 'true' : 'false'), number: (n) => String(n) },
  });
}

function signed(x: number): string {
  const s = x.toFixed(2);
  return x > 0 ? `+${s}` : s === '-0.00' ? '0.00' : s;
}

function pValue(p: number): string {
  return p < 0.0001 ? '<0.0001' : p.toFixed(4);
}

/** Notes under the table: variants that changed nothing, and what the unchanged-evidence column means. */
export function ablationNotes(table: AblationTable): string[] {
  const notes = table.rows
    .filter((r) => r.identical_to !== null)
    .map(
      (r) =>
        `note: variant ${r.variant} showed exactly the evidence of ${r.identical_to === 'default' ? 'the reference' : r.identical_to} for every question: ` +
        'this sweep changes nothing here (e.g. a window size on data chunked one fact per chunk), so its delta is re-judging only',
    );
  if (table.rows.some((r) => (r.unchanged ?? 0) > 0) && !table.rejudged)
    notes.push(
      'note: answers of questions whose evidence did not change were reused, so they move no delta here by construction; ' +
        'rawrag ablate --rejudge-unchanged reads and judges them again (bypassing the response cache) to measure that judge noise',
    );
  return notes;
}
