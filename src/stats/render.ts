/** Markdown leaderboards and CSV tables from a StatsReport. */
import { stringify } from 'csv-stringify/sync';
import { markdownTable } from '../util/table.js';
import type { Cell, FamilyReport, PairRow, StatsReport } from './compute-tables.js';

const pct = (x: number | null | undefined, d = 2) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : (100 * x).toFixed(d));
const signed = (x: number) => (x >= 0 ? '+' : '') + (100 * x).toFixed(2);

export function stars(p: number): string {
  return p < 0.001 ? '***' : p < 0.01 ? '**' : p < 0.05 ? '*' : '';
}

export function formatP(p: number | null): string {
  if (p === null || !Number.isFinite(p)) return '—';
  if (p === 0) return '0';
  return p < 1e-4 ? p.toExponential(1) : p.toFixed(4);
}

function cellText(c: Cell | null | undefined): string {
  return c ? pct(c.accuracy) : '—';
}

/** The Markdown report of one benchmark-setting: leaderboard, pairwise tests, omnibus, coverage, agreement, problems. */
export function renderFamily(f: FamilyReport, opts: { resamples: number; seed: number | string }): string {
  const out: string[] = [`## ${f.benchmark} — ${f.setting}`, ''];
  const pairOf = new Map<string, PairRow>();
  for (const p of f.pairwise) pairOf.set(p.system_a, p);
  const baselineMode = f.mode === 'baseline';
  const header = ['#', 'system', 'n', ...f.types, ...f.aggregation.columns.filter((c) => c !== 'overall'), 'overall', '95% CI'];
  header.push(baselineMode ? `Δ vs ${f.baseline}` : 'significantly above');
  const rows = f.leaderboard.map((r) => {
    const overall = r.columns.overall;
    const cells: Array<string | number> = [r.rank, r.system, r.scored];
    for (const t of f.types) cells.push(cellText(r.by_type[t]));
    for (const c of f.aggregation.columns) if (c !== 'overall') cells.push(cellText(r.columns[c]));
    cells.push(cellText(overall));
    cells.push(overall ? `${pct(overall.ci_low)}–${pct(overall.ci_high)}${overall.ci_method === 'wilson' ? ' W' : ' B'}` : '—');
    if (baselineMode) {
      const p = pairOf.get(r.system);
      cells.push(r.system === f.baseline ? 'baseline' : p ? `${signed(p.delta)}${stars(p.p_holm)}${p.p_bootstrap_holm < 0.05 ? '†' : ''}` : '—');
    } else {
      const above = f.pairwise
        .filter((p) => p.system_a === r.system && p.p_holm < 0.05 && p.delta > 0)
        .map((p) => f.leaderboard.find((x) => x.system === p.system_b)!.rank);
      cells.push(above.length ? above.join(',') : '');
    }
    return cells;
  });
  out.push(markdownTable(header, rows, header.map((_, i) => (i === 1 ? 'l' : 'r'))));
  out.push('');
  out.push(
    `Accuracy %. ${f.aggregation.note}. n = scored questions. 95% CI: W = Wilson (binary scores), B = bootstrap ` +
      `(percentile, ${opts.resamples} resamples, seed ${opts.seed}; stratified by type for macro averages).`,
  );
  out.push(
    baselineMode
      ? `Δ = system − ${f.baseline} on the questions both scored (headline aggregation). * / ** / *** = Holm-adjusted exact McNemar ` +
          `p < 0.05 / 0.01 / 0.001 on binarised outcomes (majority of judge runs); † = Holm-adjusted paired-bootstrap p < 0.05.`
      : 'significantly above = ranks of the systems this one beats with Holm-adjusted exact McNemar p < 0.05 (binarised outcomes, majority of judge runs).',
  );
  out.push('');

  if (f.pairwise.length) {
    out.push('### Pairwise (A − B)');
    out.push(
      markdownTable(
        ['A', 'B', 'n', 'excl.', 'Δ %', '95% CI', 'p boot', 'b / c', 'p McNemar', 'p Holm', 'p boot Holm'],
        f.pairwise.map((p) => [
          p.system_a, p.system_b, p.n, p.excluded, signed(p.delta), `${signed(p.ci_low)} – ${signed(p.ci_high)}`,
          formatP(p.p_bootstrap), `${p.mcnemar_b} / ${p.mcnemar_c}`, formatP(p.p_mcnemar), formatP(p.p_holm), formatP(p.p_bootstrap_holm),
        ]),
        ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    out.push('excl. = questions scored by only one of the two (left out of the pairing). b / c = discordant pairs (A right, B wrong / A wrong, B right).');
    out.push('');
  }
  if (f.omnibus) {
    const o = f.omnibus;
    out.push(`Omnibus Cochran's Q over ${o.systems.length} systems on ${o.n} questions scored by all: Q = ${o.q.toFixed(3)}, df = ${o.df}, p = ${formatP(o.p)}.`);
    out.push('');
  }
  if (f.coverage.some((c) => c.n > 0)) {
    out.push('### Coverage × utilization');
    out.push(
      markdownTable(
        ['system', 'n', 'coverage %', '95% CI', 'covered & scored', 'utilization %', '95% CI'],
        f.coverage.map((c) => [
          c.system, c.n, pct(c.coverage), c.coverage === null ? '—' : `${pct(c.coverage_ci_low)}–${pct(c.coverage_ci_high)}`,
          c.covered_scored, pct(c.utilization), c.utilization === null ? '—' : `${pct(c.utilization_ci_low)}–${pct(c.utilization_ci_high)}`,
        ]),
        ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    out.push('coverage = share of questions whose shown evidence contains every gold turn; utilization = accuracy on the covered questions (bootstrap CIs).');
    for (const c of f.coverage.filter((x) => typeof x.pollution === 'number')) {
      out.push(`memory pollution (${c.system}): ${pct(c.pollution!)}% of injected items come from turns holding no gold evidence (mean over ${c.pollution_n} questions).`);
    }
    const tested = f.coverage_pairwise.filter((c) => c.delta !== null);
    if (tested.length) {
      out.push('');
      out.push(
        markdownTable(
          ['measure', 'A', 'B', 'n', 'Δ %', '95% CI', 'p boot', 'p Holm'],
          tested.map((c) => [c.measure, c.system_a, c.system_b, c.n, signed(c.delta!), `${signed(c.ci_low!)} – ${signed(c.ci_high!)}`, formatP(c.p_bootstrap), formatP(c.p_holm)]),
          ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r'],
        ),
      );
    }
    out.push('');
  }
  const kappas = f.agreement.filter((a) => a.n > 0);
  if (kappas.length) {
    out.push("### Judge agreement (Fleiss' kappa across judge runs)");
    out.push(
      markdownTable(
        ['system', 'items', 'runs', 'kappa', 'observed', 'chance'],
        kappas.map((a) => [a.system, a.n, a.raters, a.kappa === null ? '— (one category)' : a.kappa.toFixed(4), a.observed!.toFixed(4), a.expected!.toFixed(4)]),
        ['l', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    out.push('');
  }
  const problems = problemLines(f);
  if (problems.length) {
    out.push('### Questions not used, and other notes');
    out.push(...problems.map((p) => `- ${p}`));
    out.push('');
  }
  return out.join('\n');
}

function sample(ids: string[], k = 5): string {
  return ids.slice(0, k).join(', ') + (ids.length > k ? `, … (${ids.length - k} more)` : '');
}

export function problemLines(f: FamilyReport): string[] {
  const lines: string[] = [];
  for (const r of f.leaderboard) {
    const m = f.problems.missing[r.system]!;
    const fl = f.problems.failed[r.system]!;
    const un = f.problems.unscored[r.system]!;
    if (m.length) lines.push(`${r.system}: ${m.length} question(s) missing (present in another run): ${sample(m)}`);
    if (fl.length) lines.push(`${r.system}: ${fl.length} failed item(s), not scored and not counted as wrong: ${sample(fl)}`);
    if (un.length) lines.push(`${r.system}: ${un.length} item(s) without a score (not judged): ${sample(un)}`);
  }
  for (const p of f.pairwise) {
    if (p.excluded) lines.push(`${p.system_a} vs ${p.system_b}: paired on the ${p.n} questions scored by both; ${p.excluded} scored by only one were left out`);
  }
  if (f.omnibus && f.omnibus.n < f.questions) lines.push(`Cochran's Q uses the ${f.omnibus.n} of ${f.questions} questions scored by every system`);
  if (f.problems.type_conflicts.length) lines.push(`types differ between runs for: ${sample(f.problems.type_conflicts)}`);
  lines.push(...f.problems.notes);
  return lines;
}

export function renderReport(report: StatsReport): string {
  if (report.families.length === 0) return 'No run directories found.';
  return report.families.map((f) => renderFamily(f, report.options)).join('\n');
}

const num = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? '' : x);

export function leaderboardCsv(report: StatsReport): string {
  const rows: Array<Array<string | number>> = [];
  for (const f of report.families) {
    for (const r of f.leaderboard) {
      const cols: Array<[string, 'type' | 'aggregate', Cell | null]> = [
        ...f.types.map((t): [string, 'type', Cell | null] => [t, 'type', r.by_type[t] ?? null]),
        ...f.aggregation.columns.map((c): [string, 'aggregate', Cell | null] => [c, 'aggregate', r.columns[c] ?? null]),
      ];
      for (const [column, kind, c] of cols) {
        rows.push([f.benchmark, f.setting, r.rank, r.system, column, kind, c?.n ?? 0, num(c?.accuracy), num(c?.ci_low), num(c?.ci_high), c?.ci_method ?? '',
          r.items, r.scored, r.failed, r.unscored, r.missing, r.dir]);
      }
    }
  }
  return stringify(rows, {
    header: true,
    columns: ['benchmark', 'setting', 'rank', 'system', 'column', 'kind', 'n', 'accuracy', 'ci_low', 'ci_high', 'ci_method',
      'items', 'scored', 'failed', 'unscored', 'missing', 'dir'],
  });
}

export function pairwiseCsv(report: StatsReport): string {
  const rows = report.families.flatMap((f) =>
    f.pairwise.map((p) => [f.benchmark, f.setting, p.system_a, p.system_b, p.n, p.excluded, p.delta, p.ci_low, p.ci_high, p.p_bootstrap,
      p.mcnemar_b, p.mcnemar_c, p.p_mcnemar, p.p_holm, p.p_bootstrap_holm]),
  );
  return stringify(rows, {
    header: true,
    columns: ['benchmark', 'setting', 'system_a', 'system_b', 'n', 'excluded', 'delta', 'ci_low', 'ci_high', 'p_bootstrap',
      'mcnemar_b', 'mcnemar_c', 'p_mcnemar', 'p_holm', 'p_bootstrap_holm'],
  });
}

export function omnibusCsv(report: StatsReport): string {
  const rows = report.families.filter((f) => f.omnibus).map((f) => {
    const o = f.omnibus!;
    return [f.benchmark, f.setting, o.systems.join(' | '), o.systems.length, o.n, o.q, o.df, o.p];
  });
  return stringify(rows, { header: true, columns: ['benchmark', 'setting', 'systems', 'k', 'n', 'q', 'df', 'p'] });
}

export function coverageCsv(report: StatsReport): string {
  const rows = report.families.flatMap((f) =>
    f.coverage.map((c) => [f.benchmark, f.setting, c.system, c.n, num(c.coverage), num(c.coverage_ci_low), num(c.coverage_ci_high),
      c.covered_scored, num(c.utilization), num(c.utilization_ci_low), num(c.utilization_ci_high)]),
  );
  return stringify(rows, {
    header: true,
    columns: ['benchmark', 'setting', 'system', 'n', 'coverage', 'coverage_ci_low', 'coverage_ci_high', 'covered_scored',
      'utilization', 'utilization_ci_low', 'utilization_ci_high'],
  });
}

export function coveragePairwiseCsv(report: StatsReport): string {
  const rows = report.families.flatMap((f) =>
    f.coverage_pairwise.map((c) => [f.benchmark, f.setting, c.measure, c.system_a, c.system_b, c.n, num(c.delta), num(c.ci_low), num(c.ci_high),
      num(c.p_bootstrap), num(c.p_holm)]),
  );
  return stringify(rows, {
    header: true,
    columns: ['benchmark', 'setting', 'measure', 'system_a', 'system_b', 'n', 'delta', 'ci_low', 'ci_high', 'p_bootstrap', 'p_holm'],
  });
}

export function agreementCsv(report: StatsReport): string {
  const rows = report.families.flatMap((f) =>
    f.agreement.map((a) => [f.benchmark, f.setting, a.system, a.n, a.raters, num(a.kappa), num(a.observed), num(a.expected), a.excluded]),
  );
  return stringify(rows, { header: true, columns: ['benchmark', 'setting', 'system', 'n', 'raters', 'kappa', 'observed', 'expected', 'excluded'] });
}
