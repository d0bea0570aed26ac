/** Markdown leaderboards and CSV tables from a StatsReport. */
import { statusLabel } from '../run-files/status.js';
import { markdownTable } from '../util/table.js';
import type { Cell, FamilyReport, PairRow, StatsReport } from './compute-tables.js';
export { agreementCsv, coverageCsv, coveragePairwiseCsv, leaderboardCsv, omnibusCsv, pairwiseCsv } from './render-csv.js';

const pct = (x: number | null | undefined, d = 2) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : (100 * x).toFixed(d));
const signed = (x: number) => (x >= 0 ? '+' : '') + (100 * x).toFixed(2);

export function stars(p: number): string {
  return p < 0.001 ? '***' : p < 0.01 ? '**' : p < 0.05 ? '*' : '';
}

/** Below this a p-value prints as "< 1e-300" (stats.json keeps log10 p where it underflows). */
const P_PRINT_FLOOR = 1e-300;

/**
 * A p-value for the tables. `bound`: the value is an upper bound (the bootstrap floor 1/(B+1): no
 * replicate was as extreme), printed "< 2.0e-5".
 */
export function formatP(p: number | null, bound = false): string {
  if (p === null || Number.isNaN(p)) return '—';
  if (p < P_PRINT_FLOOR) return '< 1e-300';
  const text = p < 1e-4 ? p.toExponential(1) : p.toFixed(4);
  return bound ? `< ${text}` : text;
}

/** Tables keep system labels short; longer names get a numbered short form and a legend line. */
const MAX_LABEL = 40;

function labeller(names: string[]): { label: (name: string) => string; legend: string[] } {
  const short = new Map<string, string>();
  const legend: string[] = [];
  for (const name of names) {
    if (name.length <= MAX_LABEL || short.has(name)) continue;
    const k = legend.length + 1;
    short.set(name, `${name.slice(0, MAX_LABEL - 6).trimEnd()}… (${k})`);
    legend.push(`(${k}) ${name}`);
  }
  return { label: (name) => short.get(name) ?? name, legend };
}

function cellText(c: Cell | null | undefined): string {
  return c ? pct(c.accuracy) : '—';
}

/** What every section of a family's report shares: short system labels and the significance marks. */
interface RenderContext {
  f: FamilyReport;
  opts: { resamples: number; seed: number | string };
  label(name: string): string;
  mark(p: PairRow): string;
}

/** The Markdown report of one benchmark-setting: leaderboard, pairwise tests, omnibus, coverage, agreement, problems. */
export function renderFamily(f: FamilyReport, opts: { resamples: number; seed: number | string }): string {
  const out: string[] = [`## ${f.benchmark} — ${f.setting}${f.judge ? ` — judge ${f.judge}` : ''}`, ''];
  // Said before the table, not only among the notes: a leaderboard that ranks an incomplete run.
  const incomplete = f.leaderboard.filter((r) => r.status && r.status !== 'complete');
  if (incomplete.length)
    out.push(
      `WARNING: this leaderboard ranks ${incomplete.length === 1 ? 'an incomplete run' : `${incomplete.length} incomplete runs`}: ${incomplete
        .map((r) => `${r.system} (${statusLabel({ status: r.status, failed: r.failed })})`)
        .join(', ')}; a failed item is not scored (\`rawrag show RUN --failures\` says why; --retry-errors redoes them)`,
      '',
    );
  const { label, legend } = labeller(f.leaderboard.map((r) => r.system));
  const mark = (p: PairRow) => `${stars(p.p_holm)}${p.p_bootstrap_holm < 0.05 ? '†' : ''}`;
  const ctx: RenderContext = { f, opts, label, mark };
  out.push(...leaderboardSection(ctx), ...pairwiseSection(ctx), ...omnibusSection(f), ...coverageSection(ctx));
  out.push(...agreementSection(ctx), ...epochsSection(ctx));
  if (legend.length) {
    out.push('Systems: ' + legend.join('; '));
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

/** The accuracy leaderboard with its intervals and Δ vs the baseline (or the ranks each system beats). */
function leaderboardSection({ f, opts, label, mark }: RenderContext): string[] {
  const out: string[] = [];
  const pairOf = new Map<string, PairRow>();
  for (const p of f.pairwise) pairOf.set(p.system_a, p);
  const baselineMode = f.mode === 'baseline';
  const scored = f.leaderboard.some((r) => r.scored > 0);
  if (scored) {
    const header = ['#', 'system', 'n', ...f.types, ...f.aggregation.columns.filter((c) => c !== 'overall'), 'overall', '95% CI'];
    header.push(baselineMode ? `Δ vs ${label(f.baseline!)}` : 'significantly above');
    const rankOf = new Map(f.leaderboard.map((r) => [r.system, r.rank]));
    const rows = f.leaderboard.map((r) => {
      const overall = r.columns.overall;
      const cells: Array<string | number> = [r.rank, label(r.system), r.scored];
      for (const t of f.types) cells.push(cellText(r.by_type[t]));
      for (const c of f.aggregation.columns) if (c !== 'overall') cells.push(cellText(r.columns[c]));
      cells.push(cellText(overall));
      cells.push(overall ? `${pct(overall.ci_low)}–${pct(overall.ci_high)}${overall.ci_method === 'wilson' ? ' W' : ' B'}` : '—');
      if (baselineMode) {
        const p = pairOf.get(r.system);
        cells.push(r.system === f.baseline ? 'baseline' : p ? `${signed(p.delta)}${mark(p)}` : '—');
      } else {
        // Wins of either system of a pair: the winner is the one the difference favours, whatever the ranks.
        const beaten = f.pairwise
          .filter((p) => p.p_holm < 0.05 && p.delta !== 0 && (p.delta > 0 ? p.system_a : p.system_b) === r.system)
          .map((p) => rankOf.get(p.delta > 0 ? p.system_b : p.system_a)!)
          .sort((x, y) => x - y);
        cells.push(beaten.length ? beaten.join(',') : '');
      }
      return cells;
    });
    out.push(
      markdownTable(
        header,
        rows,
        header.map((_, i) => (i === 1 ? 'l' : 'r')),
      ),
    );
    out.push('');
    out.push(
      `Accuracy %. ${f.aggregation.note}. n = scored questions. 95% CI: W = Wilson (binary scores), B = bootstrap ` +
        `(percentile, ${opts.resamples} resamples, seed ${opts.seed}; stratified by type for macro averages).`,
    );
    out.push(
      baselineMode
        ? `Δ = system − ${label(f.baseline!)} on the questions both scored (headline aggregation). * / ** / *** = Holm-adjusted exact McNemar ` +
            `p < 0.05 / 0.01 / 0.001 on binarised outcomes (majority of judge runs); † = Holm-adjusted paired p < 0.05 ` +
            `(exact sign-flip test when at most 20 questions differ, else bootstrap).`
        : 'significantly above = ranks of the systems this one beats (either side of a pair, by the sign of Δ) with Holm-adjusted exact McNemar p < 0.05 (binarised outcomes, majority of judge runs).',
    );
    if (f.aggregation.overall === 'macro') {
      out.push(
        "Δ is the macro headline; McNemar and Cochran's Q test the pooled headline questions (each question once, binarised), " +
          'so a test can disagree with a small macro Δ.',
      );
    }
    out.push('');
  } else {
    out.push('No run here has judged scores: no accuracy leaderboard (coverage only).');
    out.push('');
  }

  return out;
}

function pairwiseSection({ f, label, mark }: RenderContext): string[] {
  const out: string[] = [];
  if (f.pairwise.length) {
    out.push('### Pairwise (A − B)');
    out.push(
      markdownTable(
        ['A', 'B', 'n', 'excl.', 'Δ %', '95% CI', 'p paired', 'b / c', 'p McNemar', 'p Holm', 'p paired Holm'],
        f.pairwise.map((p) => [
          label(p.system_a),
          label(p.system_b),
          p.n,
          p.excluded,
          `${signed(p.delta)}${mark(p)}`,
          `${signed(p.ci_low)} – ${signed(p.ci_high)}`,
          formatP(p.p_bootstrap, p.p_bootstrap_bound) + (p.p_method === 'sign-flip' ? ' e' : ''),
          `${p.mcnemar_b} / ${p.mcnemar_c}`,
          formatP(p.p_mcnemar),
          formatP(p.p_holm),
          formatP(p.p_bootstrap_holm, p.p_bootstrap_holm_bound),
        ]),
        ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    out.push(
      'excl. = questions scored by only one of the two (left out of the pairing). b / c = discordant pairs (A right, B wrong / A wrong, B right). ' +
        'Marks on Δ as above, for whichever system wins. p paired: bootstrap (null-shifted, two-sided); e = exact sign-flip test over all ' +
        `sign patterns (at most 20 questions differ); "< x" = no resample as extreme (x = 1/(B+1)).`,
    );
    out.push('');
  }
  return out;
}

function omnibusSection(f: FamilyReport): string[] {
  const out: string[] = [];
  if (f.omnibus) {
    const o = f.omnibus;
    out.push(
      `Omnibus Cochran's Q over ${o.systems.length} systems on ${o.n} questions scored by all: Q = ${o.q.toFixed(3)}, df = ${o.df}, p = ${formatP(o.p)}.`,
    );
    out.push('');
  }
  return out;
}

function coverageSection({ f, label }: RenderContext): string[] {
  const out: string[] = [];
  if (f.coverage.some((c) => c.n > 0)) {
    out.push('### Coverage × utilization');
    out.push(
      markdownTable(
        ['system', 'n', 'coverage %', '95% CI', 'covered & scored', 'utilization %', '95% CI'],
        f.coverage.map((c) => [
          label(c.system),
          c.n,
          pct(c.coverage),
          c.coverage === null ? '—' : `${pct(c.coverage_ci_low)}–${pct(c.coverage_ci_high)} W`,
          c.covered_scored,
          pct(c.utilization),
          c.utilization === null
            ? '—'
            : `${pct(c.utilization_ci_low)}–${pct(c.utilization_ci_high)} ${c.utilization_ci_method === 'wilson' ? 'W' : 'B'}`,
        ]),
        ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    out.push(
      'coverage = share of questions whose shown evidence contains every gold turn, or, where a question has no gold turns (MemoryAgentBench), the answer (W = Wilson interval); ' +
        'utilization = accuracy on the covered questions (W = Wilson for 0/1 scores, B = bootstrap).',
    );
    for (const c of f.coverage.filter((x) => typeof x.pollution === 'number')) {
      out.push(
        `memory pollution (${c.system}): ${pct(c.pollution!)}% of injected items come from turns holding no gold evidence (mean over ${c.pollution_n} questions).`,
      );
    }
    const tested = f.coverage_pairwise.filter((c) => c.delta !== null);
    if (tested.length) {
      out.push('');
      out.push('#### Coverage and utilization differences (A − B)');
      out.push(
        markdownTable(
          ['measure', 'A', 'B', 'n', 'Δ %', '95% CI', 'p paired', 'p Holm'],
          tested.map((c) => [
            c.measure,
            label(c.system_a),
            label(c.system_b),
            c.n,
            signed(c.delta!),
            `${signed(c.ci_low!)} – ${signed(c.ci_high!)}`,
            formatP(c.p_bootstrap, c.p_bootstrap_bound) + (c.p_method === 'sign-flip' ? ' e' : ''),
            formatP(c.p_holm),
          ]),
          ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r'],
        ),
      );
      out.push(
        'n = questions whose coverage is known in both (utilization: those scored in both; the ratio uses the covered ones); Holm within each measure.',
      );
    }
    out.push('');
  }
  return out;
}

function agreementSection({ f, label }: RenderContext): string[] {
  const out: string[] = [];
  const kappas = f.agreement.filter((a) => a.n > 0);
  if (kappas.length) {
    out.push("### Judge agreement (Fleiss' kappa across judge runs) and judge variance tested (Cochran's Q across runs)");
    out.push(
      markdownTable(
        ['system', 'items', 'runs', 'kappa', 'observed', 'chance', 'accuracy per judge run % [95% CI W]', "Cochran's Q", 'p'],
        kappas.map((a) => [
          label(a.system),
          a.n,
          a.raters,
          a.kappa === null ? '— (one category)' : a.kappa.toFixed(4),
          a.observed!.toFixed(4),
          a.expected!.toFixed(4),
          (a.replicates ?? []).map((r) => `${pct(r.accuracy)} [${pct(r.ci_low)}–${pct(r.ci_high)}]`).join('; '),
          a.replicate_q ? `${a.replicate_q.q.toFixed(3)} (df ${a.replicate_q.df})` : '—',
          a.replicate_q ? formatP(a.replicate_q.p) : '—',
        ]),
        ['l', 'r', 'r', 'r', 'r', 'r', 'l', 'r', 'r'],
      ),
    );
    out.push('votes >= 0.5 count as correct per judge run; Q tests H0 that every judge run has the same accuracy on the same items.');
    out.push('');
  }
  return out;
}

function epochsSection({ f, label }: RenderContext): string[] {
  const out: string[] = [];
  if (f.epochs?.length) {
    out.push('### Between epochs (--epochs: the reader answered each question several times) beside between judge runs');
    out.push(
      markdownTable(
        [
          'system',
          'items',
          'epochs',
          'accuracy per epoch %',
          'SD over epochs (pts)',
          'judge runs',
          'SD over judge runs (pts)',
          'item variance: epochs / judge runs',
        ],
        f.epochs.map((e) => [
          label(e.system),
          e.items,
          e.epochs,
          e.accuracy.map((a) => pct(a)).join('; '),
          (100 * e.sd_epochs).toFixed(2),
          e.judge_runs || '—',
          e.sd_judge_runs === null ? '—' : (100 * e.sd_judge_runs).toFixed(2),
          `${e.item_variance_epochs.toFixed(4)} / ${e.item_variance_judge_runs === null ? '—' : e.item_variance_judge_runs.toFixed(4)}`,
        ]),
        ['l', 'r', 'r', 'l', 'r', 'r', 'r', 'r'],
      ),
    );
    out.push(
      "SD = sample SD of the overall accuracy between the epochs' answers, and between the judge's runs (each run's verdicts averaged over the epochs), on the same items; item variance = mean over items of the variance of its score across epochs, and across judge runs. At the protocol's temperature 0 the epochs measure only the provider's nondeterminism.",
    );
    out.push('');
  }
  return out;
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
    if (p.excluded)
      lines.push(
        `${p.system_a} vs ${p.system_b}: paired on the ${p.n} questions scored by both; ${p.excluded} scored by only one were left out`,
      );
  }
  if (f.omnibus && f.omnibus.n < f.headline_questions) {
    lines.push(`Cochran's Q uses the ${f.omnibus.n} of ${f.headline_questions} headline questions scored by every system`);
  }
  if (f.problems.type_conflicts.length) lines.push(`types differ between runs for: ${sample(f.problems.type_conflicts)}`);
  lines.push(...f.problems.notes);
  return lines;
}

export function renderReport(report: StatsReport): string {
  const parts = report.families.map((f) => renderFamily(f, report.options));
  if (parts.length === 0) parts.push('No run directory with questions found.\n');
  if (report.skipped.length) {
    parts.push(['## Folders skipped', '', ...report.skipped.map((s) => `- ${s.dir}: ${s.reason}`), ''].join('\n'));
  }
  return parts.join('\n');
}
