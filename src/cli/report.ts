/** What `rawrag run` prints at the end: coverage (and accuracy, when judged) per question type. */
import type { RunOutcome } from '../run/runner.js';
import { markdownTable, pct } from './table.js';

export function renderRunReport(outcome: RunOutcome): string {
  const { summary, manifest } = outcome;
  const scored = summary.overall.scored > 0;
  const header = ['type', 'id', 'n', 'coverage all %', 'coverage any %'];
  if (scored) header.push('accuracy %');
  const rows = [...summary.by_type, summary.overall].map((r) => {
    const cells: Array<string | number> = [r.type, r.type_id ?? '', r.n, pct(r.coverage.all), pct(r.coverage.any)];
    if (scored) cells.push(pct(r.accuracy));
    return cells;
  });
  const ks = Object.entries(summary.coverage_at_k);
  const kTable = markdownTable(
    ['k', 'n', 'recall_all %', 'recall_any %'],
    ks.map(([k, r]) => [k, r.n, pct(r.all), pct(r.any)]),
  );
  const lines = [
    `${manifest.system} on ${manifest.benchmark} — ${summary.n} questions, ${summary.errors} errors`,
    '',
    markdownTable(header, rows),
    '',
    'Evidence recall from the same ranking (turns of the top-k windows):',
    kTable,
    '',
    `mean evidence tokens per question: ${summary.evidence_tokens_mean === null ? '—' : summary.evidence_tokens_mean.toFixed(1)}`,
  ];
  lines.push(...benchmarkTables(summary.benchmark_summary));
  for (const s of manifest.skipped) lines.push(`NOTE: ${s}`);
  for (const n of manifest.retriever.notes) lines.push(`NOTE: ${n}`);
  lines.push(`run directory: ${outcome.dir}`);
  return lines.join('\n');
}

/**
 * Tables a benchmark's summarise() asks to print (`tables: [{title, header, rows}]` in
 * benchmark_summary), e.g. BEAM's per-size ability table; anything else there stays in summary.json.
 */
export function benchmarkTables(benchmarkSummary: unknown): string[] {
  const tables = (benchmarkSummary as { tables?: unknown } | null)?.tables;
  if (!Array.isArray(tables)) return [];
  const out: string[] = [];
  for (const t of tables as Array<{ title?: string; header?: string[]; rows?: Array<Array<string | number>> }>) {
    if (!Array.isArray(t.header) || !Array.isArray(t.rows)) continue;
    out.push('', t.title ?? '', markdownTable(t.header, t.rows));
  }
  return out;
}
