/**
 * The coverage x utilization tables of `rawrag stats` (each system's row and the paired tests
 * between systems) and the judge-agreement table (Fleiss' kappa, each judge run as a replicate).
 */
import { pairedP, percentileInterval, replicates, resampleSums } from './bootstrap.js';
import { fleissKappaFromVotes, wilson } from './intervals.js';
import type { StatItem } from './load.js';
import { cochranQ, holm } from './tests.js';
import type { AgreementRow, CoveragePairRow, CoverageRow, SystemRun } from './report-types.js';
import { coverageKnown, isScored, toDesign } from './scored.js';

function ratio(sums: Float64Array, base: number): number {
  return sums[base]! > 0 ? sums[base + 1]! / sums[base]! : NaN;
}

export function coverageRow(
  s: SystemRun,
  headline: (id: string) => boolean,
  boot: { resamples: number; seed: number | string },
): CoverageRow {
  const known = [...s.byId.values()].filter((i) => coverageKnown(i) && headline(i.id)).sort((a, b) => (a.id < b.id ? -1 : 1));
  const row: CoverageRow = {
    system: s.name,
    n: known.length,
    coverage: null,
    coverage_ci_low: null,
    coverage_ci_high: null,
    covered_scored: 0,
    utilization: null,
    utilization_ci_low: null,
    utilization_ci_high: null,
    utilization_ci_method: null,
  };
  const polluted = [...s.byId.values()].filter((i) => i.error === null && typeof i.pollution === 'number' && headline(i.id));
  if (polluted.length)
    Object.assign(row, { pollution: polluted.reduce((a, i) => a + i.pollution!, 0) / polluted.length, pollution_n: polluted.length });
  if (known.length === 0) return row;
  // Coverage is a proportion of 0/1 outcomes: Wilson, like binary accuracy cells (a bootstrap has zero width at 0% and 100%).
  const covered = known.filter((i) => i.coverage).length;
  row.coverage = covered / known.length;
  const ci = wilson(covered, known.length);
  row.coverage_ci_low = ci.low;
  row.coverage_ci_high = ci.high;
  // Utilization = accuracy on the covered questions: an accuracy cell over them (Wilson when the
  // scores are 0/1, else the bootstrap of their mean).
  const covScores = known.filter((i) => isScored(i) && i.coverage).map((i) => i.score!);
  row.covered_scored = covScores.length;
  if (row.covered_scored === 0) return row;
  const sum = covScores.reduce((x, y) => x + y, 0);
  row.utilization = sum / covScores.length;
  if (covScores.every((x) => x === 0 || x === 1)) {
    const w = wilson(sum, covScores.length);
    row.utilization_ci_low = w.low;
    row.utilization_ci_high = w.high;
    row.utilization_ci_method = 'wilson';
    return row;
  }
  const uci = percentileInterval(
    replicates(covScores, toDesign({ strata: [covScores.map((_, i) => i)], weights: [1] }), boot.resamples, boot.seed),
  );
  row.utilization_ci_low = uci.low;
  row.utilization_ci_high = uci.high;
  row.utilization_ci_method = 'bootstrap';
  return row;
}

function finite(x: Float64Array): Float64Array {
  return x.filter((v) => Number.isFinite(v));
}

/**
 * Paired coverage and utilization differences. One resampling pass per pair over the questions
 * whose coverage is known in both: the same draws give the coverage difference and the
 * utilization difference (a ratio over the covered questions scored in both).
 */
export function* coveragePairs(
  pairs: Array<[SystemRun, SystemRun]>,
  headline: (id: string) => boolean,
  boot: { resamples: number; seed: number | string },
): Generator<void, CoveragePairRow[]> {
  const cov: CoveragePairRow[] = [];
  const util: CoveragePairRow[] = [];
  const empty = (measure: 'coverage' | 'utilization', a: SystemRun, b: SystemRun, n: number): CoveragePairRow => ({
    measure,
    system_a: a.name,
    system_b: b.name,
    n,
    delta: null,
    ci_low: null,
    ci_high: null,
    p_bootstrap: null,
    p_method: null,
    p_bootstrap_bound: false,
    p_holm: null,
  });
  const sum = (v: Float64Array) => v.reduce((p, q) => p + q, 0);
  for (const [a, b] of pairs) {
    yield;
    const known = (s: SystemRun, id: string) => {
      const it = s.byId.get(id);
      return it !== undefined && coverageKnown(it) && headline(id);
    };
    const ids = [...a.byId.keys()].filter((id) => known(a, id) && known(b, id)).sort();
    if (ids.length === 0) {
      cov.push(empty('coverage', a, b, 0));
      util.push(empty('utilization', a, b, 0));
      continue;
    }
    const ia = ids.map((id) => a.byId.get(id)!);
    const ib = ids.map((id) => b.byId.get(id)!);
    const both = ids.map((_, i) => isScored(ia[i]) && isScored(ib[i]));
    const d = Float64Array.from(ids, (_, i) => (ia[i]!.coverage ? 1 : 0) - (ib[i]!.coverage ? 1 : 0));
    const columnsOf = (items: StatItem[]) => [
      Float64Array.from(items, (it, i) => (both[i] && it.coverage ? 1 : 0)),
      Float64Array.from(items, (it, i) => (both[i] && it.coverage ? it.score! : 0)),
    ];
    const cols = [d, ...columnsOf(ia), ...columnsOf(ib)];
    const n = ids.length;
    const design = toDesign({ strata: [ids.map((_, i) => i)], weights: [1] });
    const sums = resampleSums(cols, design, boot.resamples, boot.seed);

    const covReps = Float64Array.from({ length: boot.resamples }, (_, r) => sums[5 * r]! / n);
    const covDelta = sum(d) / n;
    const covTest = pairedP(d, design, covReps, covDelta);
    const covCi = percentileInterval(covReps);
    cov.push({
      measure: 'coverage',
      system_a: a.name,
      system_b: b.name,
      n,
      delta: covDelta,
      ci_low: covCi.low,
      ci_high: covCi.high,
      p_bootstrap: covTest.p,
      p_method: covTest.pMethod,
      p_bootstrap_bound: covTest.pBound,
      p_holm: null,
    });

    const nBoth = both.filter(Boolean).length;
    const utilDelta = sum(cols[2]!) / sum(cols[1]!) - sum(cols[4]!) / sum(cols[3]!);
    if (!Number.isFinite(utilDelta)) {
      util.push(empty('utilization', a, b, nBoth));
      continue;
    }
    const utilReps = finite(Float64Array.from({ length: boot.resamples }, (_, r) => ratio(sums, 5 * r + 1) - ratio(sums, 5 * r + 3)));
    const count = utilReps.reduce((c, x) => c + (Math.abs(x - utilDelta) >= Math.abs(utilDelta) - 1e-12 ? 1 : 0), 0);
    const p = utilDelta === 0 ? 1 : (1 + count) / (utilReps.length + 1);
    const ci = percentileInterval(utilReps);
    util.push({
      measure: 'utilization',
      system_a: a.name,
      system_b: b.name,
      n: nBoth,
      delta: utilDelta,
      ci_low: ci.low,
      ci_high: ci.high,
      p_bootstrap: p,
      p_method: 'bootstrap',
      p_bootstrap_bound: utilDelta !== 0 && count === 0,
      p_holm: null,
    });
  }
  for (const list of [cov, util]) {
    const tested = list.filter((r) => r.p_bootstrap !== null);
    const adj = holm(tested.map((r) => r.p_bootstrap!));
    tested.forEach((r, i) => (r.p_holm = adj[i]!));
  }
  return [...cov, ...util];
}

export function agreementRow(system: string, items: StatItem[]): AgreementRow {
  const withVotes = items.filter((i) => i.error === null && i.votes !== null && i.votes.length >= 2);
  const lengths = new Map<number, number>();
  for (const i of withVotes) lengths.set(i.votes!.length, (lengths.get(i.votes!.length) ?? 0) + 1);
  // The modal number of judge runs (largest count; ties: more raters).
  const raters = [...lengths.entries()].sort((x, y) => y[1] - x[1] || y[0] - x[0])[0]?.[0] ?? 0;
  const used = withVotes.filter((i) => i.votes!.length === raters).sort((a, b) => (a.id < b.id ? -1 : 1));
  const k = used.length ? fleissKappaFromVotes(used.map((i) => i.votes!)) : null;
  // Each judge run as its own replicate over the same items: does one run score differently?
  const binary = used.map((i) => i.votes!.map((v) => (v >= 0.5 ? 1 : 0)));
  const replicates = Array.from({ length: used.length ? raters : 0 }, (_, r) => {
    const hits = binary.reduce((s, row) => s + row[r]!, 0);
    const ci = wilson(hits, binary.length);
    return { run: r + 1, accuracy: hits / binary.length, ci_low: ci.low, ci_high: ci.high };
  });
  return {
    replicates,
    replicate_q: used.length && raters >= 2 ? cochranQ(binary) : null,
    system,
    n: used.length,
    raters,
    kappa: k?.kappa ?? null,
    observed: k?.observed ?? null,
    expected: k?.expected ?? null,
    excluded: items.length - used.length,
  };
}
