/** CSV tables from a StatsReport: one file per table, one row per system, pair or column. */
import { stringify } from 'csv-stringify/sync';
import type { Cell, StatsReport } from './compute-tables.js';

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
        rows.push([
          f.benchmark,
          f.setting,
          r.rank,
          r.system,
          column,
          kind,
          c?.n ?? 0,
          num(c?.accuracy),
          num(c?.ci_low),
          num(c?.ci_high),
          c?.ci_method ?? '',
          r.items,
          r.scored,
          r.failed,
          r.unscored,
          r.missing,
          r.dir,
          report.options.resamples,
          report.options.seed,
          f.judge ?? '',
        ]);
      }
    }
  }
  return stringify(rows, {
    header: true,
    columns: [
      'benchmark',
      'setting',
      'rank',
      'system',
      'column',
      'kind',
      'n',
      'accuracy',
      'ci_low',
      'ci_high',
      'ci_method',
      'items',
      'scored',
      'failed',
      'unscored',
      'missing',
      'dir',
      'resamples',
      'seed',
      'judge',
    ],
  });
}

export function pairwiseCsv(report: StatsReport): string {
  const rows = report.families.flatMap((f) =>
    f.pairwise.map((p) => [
      f.benchmark,
      f.setting,
      p.system_a,
      p.system_b,
      p.n,
      p.excluded,
      p.delta,
      p.ci_low,
      p.ci_high,
      p.p_bootstrap,
      p.mcnemar_b,
      p.mcnemar_c,
      p.p_mcnemar,
      p.p_holm,
      p.p_bootstrap_holm,
      p.p_method,
      p.p_bootstrap_bound ? 1 : 0,
      p.log10_p_mcnemar,
      p.log10_p_holm,
      report.options.resamples,
      report.options.seed,
      f.judge ?? '',
    ]),
  );
  return stringify(rows, {
    header: true,
    columns: [
      'benchmark',
      'setting',
      'system_a',
      'system_b',
      'n',
      'excluded',
      'delta',
      'ci_low',
      'ci_high',
      'p_bootstrap',
      'mcnemar_b',
      'mcnemar_c',
      'p_mcnemar',
      'p_holm',
      'p_bootstrap_holm',
      'p_method',
      'p_bootstrap_bound',
      'log10_p_mcnemar',
      'log10_p_holm',
      'resamples',
      'seed',
      'judge',
    ],
  });
}

export function omnibusCsv(report: StatsReport): string {
  const rows = report.families
    .filter((f) => f.omnibus)
    .map((f) => {
      const o = f.omnibus!;
      return [f.benchmark, f.setting, o.systems.join(' | '), o.systems.length, o.n, o.q, o.df, o.p, f.judge ?? ''];
    });
  return stringify(rows, { header: true, columns: ['benchmark', 'setting', 'systems', 'k', 'n', 'q', 'df', 'p', 'judge'] });
}

export function coverageCsv(report: StatsReport): string {
  const rows = report.families.flatMap((f) =>
    f.coverage.map((c) => [
      f.benchmark,
      f.setting,
      c.system,
      c.n,
      num(c.coverage),
      num(c.coverage_ci_low),
      num(c.coverage_ci_high),
      c.covered_scored,
      num(c.utilization),
      num(c.utilization_ci_low),
      num(c.utilization_ci_high),
      c.utilization_ci_method ?? '',
      report.options.resamples,
      report.options.seed,
      f.judge ?? '',
    ]),
  );
  return stringify(rows, {
    header: true,
    columns: [
      'benchmark',
      'setting',
      'system',
      'n',
      'coverage',
      'coverage_ci_low',
      'coverage_ci_high',
      'covered_scored',
      'utilization',
      'utilization_ci_low',
      'utilization_ci_high',
      'utilization_ci_method',
      'resamples',
      'seed',
      'judge',
    ],
  });
}

export function coveragePairwiseCsv(report: StatsReport): string {
  const rows = report.families.flatMap((f) =>
    f.coverage_pairwise.map((c) => [
      f.benchmark,
      f.setting,
      c.measure,
      c.system_a,
      c.system_b,
      c.n,
      num(c.delta),
      num(c.ci_low),
      num(c.ci_high),
      num(c.p_bootstrap),
      num(c.p_holm),
      c.p_method ?? '',
      report.options.resamples,
      report.options.seed,
      f.judge ?? '',
    ]),
  );
  return stringify(rows, {
    header: true,
    columns: [
      'benchmark',
      'setting',
      'measure',
      'system_a',
      'system_b',
      'n',
      'delta',
      'ci_low',
      'ci_high',
      'p_bootstrap',
      'p_holm',
      'p_method',
      'resamples',
      'seed',
      'judge',
    ],
  });
}

export function agreementCsv(report: StatsReport): string {
  const rows = report.families.flatMap((f) =>
    f.agreement.map((a) => [
      f.benchmark,
      f.setting,
      a.system,
      a.n,
      a.raters,
      num(a.kappa),
      num(a.observed),
      num(a.expected),
      a.excluded,
      f.judge ?? '',
      (a.replicates ?? []).map((r) => r.accuracy.toFixed(6)).join(';'),
      num(a.replicate_q?.q ?? null),
      num(a.replicate_q?.p ?? null),
    ]),
  );
  return stringify(rows, {
    header: true,
    columns: [
      'benchmark',
      'setting',
      'system',
      'n',
      'raters',
      'kappa',
      'observed',
      'expected',
      'excluded',
      'judge',
      'replicate_accuracy',
      'replicate_q',
      'replicate_q_p',
    ],
  });
}
