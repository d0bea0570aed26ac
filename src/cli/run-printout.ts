/** What `rawrag run` prints at the end: coverage (and accuracy, when judged) per question type. */
import type { RunOutcome } from '../pipeline/run.js';
import { markdownTable, pct } from '../util/table.js';
import { paperComparisonLine } from '../benchmarks/paper-rows.js';
import { compareWithPaperRow } from '../paper/rows.js';
import { systemOf } from '../systems/registry.js';
import { costLine, runCost } from '../run-files/cost.js';
import { statusLabel } from '../run-files/status.js';
import { renderFailures, type FailureGroup } from '../run-files/failures.js';

export function renderRunReport(outcome: RunOutcome): string {
  const { summary, manifest } = outcome;
  const scored = summary.overall.scored > 0;
  // Coverage is over the questions that have gold evidence: when some have none, that count is shown
  // beside n, so each percentage's denominator is on the page (LoCoMo: 1,540 questions, 1,536 with evidence).
  // Types outside the headline (LoCoMo's adversarial category) are their own rows, after the overall.
  const outside = new Set(summary.outside_headline ?? []);
  const rowsAll = [
    ...summary.by_type.filter((r) => !outside.has(r.type)),
    summary.overall,
    ...summary.by_type.filter((r) => outside.has(r.type)).map((r) => ({ ...r, type: `${r.type} (not in overall)` })),
  ];
  const showEvidenceN = rowsAll.some((r) => r.coverage.n !== r.n - r.errors);
  // Types without numeric ids (LongMemEval, BEAM) get no id column; data without gold evidence
  // (MemoryAgentBench's sources, answers judged without evidence) no coverage columns of dashes.
  const showId = rowsAll.some((r) => r.type_id !== null && r.type_id !== undefined && r.type_id !== '');
  const showCoverage = summary.overall.coverage.n > 0;
  const header = [
    'type',
    ...(showId ? ['id'] : []),
    'n',
    ...(showCoverage && showEvidenceN ? ['n with evidence'] : []),
    ...(showCoverage ? ['coverage all %', 'coverage any %'] : []),
  ];
  if (scored) header.push('accuracy %');
  // With failures, accuracy over all N (failed count 0) beside it: a run with errors never looks better.
  if (scored && summary.errors > 0) header.push('accuracy all N %');
  // Offline metrics computed beside the judge (LoCoMo token F1, ...), one column each; metrics cut at
  // depths (`name@k`, LongMemEval's retrieval metrics: 36 of them) get their own table below instead.
  const allMetrics = scored ? Object.keys(summary.overall.metrics) : [];
  const metricNames = allMetrics.filter((m) => depthOf(m) === null);
  header.push(...metricNames.map((m) => `${m} %`));
  if (summary.errors > 0) header.push('errors');
  const rows = rowsAll.map((r) => {
    const cells: Array<string | number> = [
      r.type,
      ...(showId ? [r.type_id ?? ''] : []),
      r.n,
      ...(showCoverage && showEvidenceN ? [r.coverage.n] : []),
      ...(showCoverage ? [pct(r.coverage.all), pct(r.coverage.any)] : []),
    ];
    if (scored) cells.push(pct(r.accuracy));
    if (scored && summary.errors > 0) cells.push(pct(r.accuracy_all_n));
    for (const m of metricNames) cells.push(pct(r.metrics[m] ?? null));
    if (summary.errors > 0) cells.push(r.errors);
    return cells;
  });
  // Depths where some question had gold turns to recall (answer-sufficiency coverage has none).
  const ks = showCoverage ? Object.entries(summary.coverage_at_k).filter(([, r]) => r.n > 0) : [];
  const configuredK = manifest.config.retrieval.k;
  const kTable = markdownTable(
    ['k', 'n', 'recall_all %', 'recall_any %'],
    ks.map(([k, r]) => [Number(k) === configuredK ? `${k} (k)` : k, r.n, pct(r.all), pct(r.any)]),
  );
  const lines = [
    `${manifest.system}${manifest.name ? ` [${manifest.name}]` : ''} on ${manifest.benchmark} — ${summary.n} questions, ${summary.errors} errors${errorStages(summary.errors_by_stage)}`,
    // Said when the run is not complete (failed items, questions left): a complete run needs no line.
    ...(manifest.status !== 'complete' || summary.errors > 0
      ? [`status: ${statusLabel({ status: manifest.status, failed: summary.errors })}`]
      : []),
    ...failureLines(summary as Record<string, unknown>, outcome.dir),
    '',
    markdownTable(header, rows),
    ...metricsAtDepth(rowsAll, allMetrics),
    '',
    // Nothing ranked (full context, judged outside answers): no recall table.
    ...(ks.length ? ['Evidence recall from the same ranking (turns of the top-k windows):', kTable, ''] : []),
    ...(showCoverage ? [] : ['no gold evidence turns in this data: coverage not computed']),
    ...(summary.coverage_by_answer
      ? [
          `coverage of ${summary.coverage_by_answer} question(s) without gold evidence turns is answer sufficiency: the gold answer (or an accepted one) found in the text shown, by the benchmark's normalisation (docs/diagnostics.md)`,
        ]
      : []),
    // Only when evidence was shown (answers judged without an evidence list have none to count).
    ...(summary.evidence_tokens_mean ? [`mean evidence tokens per question: ${summary.evidence_tokens_mean.toFixed(1)}`] : []),
  ];
  const jr = summary.overall.judge_runs;
  if (jr) {
    const runs = jr.accuracy.map((a) => (100 * a).toFixed(2)).join(' / ');
    lines.push(
      `judge runs (overall accuracy of each of the ${jr.runs} runs): ${runs} %; mean ${(100 * jr.mean).toFixed(2)} ± ${(100 * jr.sd).toFixed(2)} (sample SD over runs)`,
    );
  }
  const ep = summary.overall.epochs;
  if (ep) {
    const each = ep.accuracy.map((a) => (100 * a).toFixed(2)).join(' / ');
    lines.push(
      `epochs (overall accuracy of each of the ${ep.runs} answers per question): ${each} %; mean ${(100 * ep.mean).toFixed(2)} ± ${(100 * ep.sd).toFixed(2)} (sample SD over epochs)`,
    );
  }
  lines.push(...usageLines(summary as Record<string, unknown>));
  lines.push(...cumulativeLines(summary as Record<string, unknown>));
  lines.push(...costLines(outcome.dir));
  lines.push(...provenanceLines(summary as Record<string, unknown>));
  const system = systemOf(manifest.config);
  lines.push(...(system.summaryLines?.(summary as Record<string, unknown>) ?? []));
  lines.push(...benchmarkTables(summary.benchmark_summary));
  // A paper row, for the paper's method only: the paper's figure beside this run's (a retriever that fell back to local is not the paper's).
  if (system.reference) {
    const retrieverUsed = manifest.retriever.name.startsWith('local') ? manifest.retriever.name : manifest.config.retrieval.retriever;
    // A partial run, or one of another setting (gold, display, judge ...), is said to be so (src/core/comparability.ts).
    const notComparable = compareWithPaperRow(manifest)?.notComparable ?? null;
    const paper = paperComparisonLine(manifest.benchmark, manifest.config.reader.model, retrieverUsed, summary, notComparable);
    if (paper) lines.push('', paper);
  }
  // Printed here only (not also on stderr at the start): once. The retriever's notes were printed
  // on stderr when the run started (before a long run is the time to know it) and are in the manifest.
  for (const d of manifest.deviations ?? []) lines.push(`DEVIATION from the protocol: ${d}`);
  for (const s of manifest.skipped) lines.push(`NOTE: ${s}`);
  lines.push(`run directory: ${outcome.dir}`);
  return lines.join('\n');
}

/** `session_recall_any@10` -> {name: 'session_recall_any', k: 10}; null for a metric without a depth. */
function depthOf(metric: string): { name: string; k: number } | null {
  const m = /^(.+)@(\d+)$/.exec(metric);
  return m ? { name: m[1]!, k: Number(m[2]) } : null;
}

/**
 * Metrics cut at several depths, per question type: one row per metric and type, one column per
 * depth (as columns of the type table, LongMemEval's 6 metrics x 6 depths were 36 more columns).
 * A type with no value for a metric (no gold sessions to rank, e.g. abstention) has no row.
 */
function metricsAtDepth(rows: Array<{ type: string; metrics: Record<string, number | null> }>, metrics: string[]): string[] {
  const cut = metrics.map(depthOf).filter((d) => d !== null);
  if (cut.length === 0) return [];
  const names = [...new Set(cut.map((d) => d.name))];
  const ks = [...new Set(cut.map((d) => d.k))].sort((a, b) => a - b);
  const body = names.flatMap((name) =>
    rows
      .map((r) => ks.map((k) => r.metrics[`${name}@${k}`] ?? null))
      .flatMap((values, i) => (values.some((v) => v !== null) ? [[name, rows[i]!.type, ...values.map((v) => pct(v))]] : [])),
  );
  return [
    '',
    'Metrics at depth k, per question type (%):',
    markdownTable(['metric', 'type', ...ks.map((k) => `@${k}`)], body, ['l', 'l', ...ks.map(() => 'r' as const)]),
  ];
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

/** Reader/judge cost over every item in the directory, across resumes (summary.usage_cumulative). */
export function cumulativeLines(summary: Record<string, unknown>): string[] {
  const usage = summary.usage_cumulative as Record<string, { requests: number; cache_hits: number; cost_usd: number | null }> | undefined;
  if (!usage || Object.keys(usage).length === 0) return [];
  const parts = Object.entries(usage).map(
    ([role, u]) =>
      `${role} ${u.requests} requests + ${u.cache_hits} cached, ${u.cost_usd === null ? 'cost unknown' : `$${u.cost_usd.toFixed(4)}`}`,
  );
  return ['', `All items in this run directory, across resumes: ${parts.join('; ')}`];
}

/** Provider calls, cache hits and cost per role, when the run used providers (summary.usage). */
export function usageLines(summary: Record<string, unknown>): string[] {
  const usage = summary.usage as
    | Record<
        string,
        {
          requests: number;
          cache_hits: number;
          retries: number;
          prompt_tokens: number;
          completion_tokens: number;
          cost_usd_spent: number | null;
          cost_usd_total: number | null;
        }
      >
    | undefined;
  if (!usage) return [];
  const reader = summary.reader as { model?: string; protocol?: string } | undefined;
  const judge = summary.judge as { model?: string | null; protocol?: string; runs?: number } | undefined;
  const who: string[] = [];
  if (reader?.model) who.push(`reader ${reader.model} (${reader.protocol})`);
  if (judge?.model) who.push(`judge ${judge.model} x${judge.runs} (${judge.protocol}; item score = mean of the runs)`);
  const usd = (x: number | null | undefined) => (x === null || x === undefined ? 'unknown' : `$${x.toFixed(4)}`);
  const roles = Object.entries(usage).filter(([r]) => r !== 'all');
  if (roles.length === 0) return [];
  const rows = roles.map(([r, u]) => [
    r,
    u.requests,
    u.cache_hits,
    u.retries,
    u.prompt_tokens,
    u.completion_tokens,
    usd(u.cost_usd_spent),
    usd(u.cost_usd_total),
  ]);
  return [
    ...(who.length ? ['', who.join('; ')] : []),
    '',
    'Provider usage (requests sent; replies from the cache; cost of this run and from scratch):',
    markdownTable(['role', 'requests', 'cache hits', 'retries', 'prompt tokens', 'completion tokens', 'cost', 'cost uncached'], rows),
  ];
}

/** Which endpoints and served models answered, and a warning for cached replies from another endpoint. */
export function provenanceLines(summary: Record<string, unknown>): string[] {
  const p = summary.provenance as
    | {
        cache_scope: string;
        by_role: Record<string, { endpoints: string[]; served_models: string[]; system_fingerprints: string[] }>;
        warnings: string[];
      }
    | undefined;
  if (!p || Object.keys(p.by_role).length === 0) return [];
  const parts = Object.entries(p.by_role).map(([role, r]) => {
    const served = r.served_models.length ? `; served ${r.served_models.join(', ')}` : '';
    const fp = r.system_fingerprints.length ? `; fingerprints ${r.system_fingerprints.join(', ')}` : '';
    return `${role} ${r.endpoints.join(', ')}${served}${fp}`;
  });
  return ['', `Endpoints (cache scope ${p.cache_scope}): ${parts.join(' | ')}`, ...p.warnings.map((w) => `WARNING: ${w}`)];
}

/** ` (read 3, judge 1)` after the error count; empty without errors (or from an older summary). */
function errorStages(byStage: Record<string, number> | undefined): string {
  const parts = Object.entries(byStage ?? {}).map(([s, c]) => `${s} ${c}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/**
 * The run directory's cost by the one definition (src/run-files/cost.ts), the same figures `rawrag view`,
 * the report and `--max-cost` use; nothing when no provider was called.
 */
export function costLines(dir: string): string[] {
  const c = runCost(dir);
  if (c.paid_usd === 0 && c.list_usd === 0) return [];
  return [
    '',
    `Cost of this run directory: ${costLine(c)} (paid: billed over every process, cache hits cost nothing; list-price equivalent: every reply priced, cached or not; both cover ingest, retrieval, answers and judge)`,
  ];
}

/** Why items failed, grouped with counts and a fix hint (summary.json `failures`), and where to see them all. */
export function failureLines(summary: Record<string, unknown>, dir: string): string[] {
  const groups = summary.failures as FailureGroup[] | undefined;
  if (!Array.isArray(groups) || groups.length === 0) return [];
  return ['why they failed (grouped; every failed item: `rawrag show ' + dir + ' --failures`):', ...renderFailures(groups)];
}
