/**
 * The report's charts as Vega-Lite specifications (data inlined); the page renders them with the
 * bundled Vega. Every series is told apart by shape or a text label as well as by colour, so the
 * charts read in greyscale and on paper.
 */
import type { FamilyView } from './data.js';
import { base, legendFor, pct, SHAPES, stepFor, uncut, type Spec } from './chart-base.js';

export { wrapLabel } from './chart-base.js';
export { ablationChart, ablationSeries, coverageAtKChart, distinctRunNames, timeChart, wallOf, workSeconds } from './run-charts.js';

/** Leaderboard: each system's headline with its 95% interval; the paper's figure beside it as a diamond. */
export function leaderboardChart(f: FamilyView): Spec | null {
  const st = f.stats;
  const scored = st.leaderboard.some((r) => r.columns.overall);
  const points: Array<Record<string, unknown>> = [];
  if (scored) {
    for (const r of st.leaderboard) {
      const c = r.columns.overall;
      if (!c) continue;
      points.push({
        system: r.system,
        source: 'this run',
        value: pct(c.accuracy),
        low: pct(c.ci_low),
        high: pct(c.ci_high),
        label: `${pct(c.accuracy)!.toFixed(2)}`,
      });
      const p = f.paper[r.system];
      if (p)
        points.push({
          system: r.system,
          source: 'paper',
          value: p.accuracy,
          low: null,
          high: null,
          label: `paper ${p.accuracy.toFixed(2)}`,
        });
    }
  } else {
    for (const c of st.coverage) {
      if (c.coverage === null) continue;
      points.push({
        system: c.system,
        source: 'this run',
        value: pct(c.coverage),
        low: pct(c.coverage_ci_low),
        high: pct(c.coverage_ci_high),
        label: `${pct(c.coverage)!.toFixed(2)}`,
      });
    }
  }
  if (points.length === 0) return null;
  const sources = ['this run', 'paper'].filter((x) => points.some((p) => p.source === x));
  const measure = scored ? `${st.aggregation.overall} (%)` : 'coverage: all gold evidence shown (%)';
  const order = scored ? st.leaderboard.map((r) => r.system) : st.coverage.map((c) => c.system);
  return base(
    `${st.benchmark} — ${st.setting}: ${scored ? 'accuracy' : 'coverage (no judged answers)'} with 95% CI`,
    `Leaderboard chart for ${st.setting}`,
    {
      height: stepFor(order, 34),
      data: { values: points },
      encoding: {
        y: { field: 'system', type: 'nominal', sort: order, title: null, axis: uncut(order) },
        yOffset: { field: 'source', type: 'nominal', sort: ['this run', 'paper'] },
      },
      layer: [
        {
          mark: { type: 'rule', strokeWidth: 2 },
          encoding: { x: { field: 'low', type: 'quantitative', title: measure, scale: { zero: false } }, x2: { field: 'high' } },
        },
        {
          mark: { type: 'point', filled: true, size: 90 },
          encoding: {
            x: { field: 'value', type: 'quantitative' },
            shape: { field: 'source', type: 'nominal', scale: { domain: sources, range: ['circle', 'diamond'] }, title: 'figure' },
            color: { field: 'source', type: 'nominal', scale: { domain: sources, range: ['#1f5fa8', '#b35900'] }, title: 'figure' },
            tooltip: [
              { field: 'system' },
              { field: 'source' },
              { field: 'value', title: 'value %' },
              { field: 'low', title: 'CI low' },
              { field: 'high', title: 'CI high' },
            ],
          },
        },
        {
          mark: { type: 'text', align: 'left', dx: 8, dy: -9 },
          encoding: { x: { field: 'value', type: 'quantitative' }, text: { field: 'label' } },
        },
      ],
    },
  );
}

/** Per-type accuracy (or coverage when nothing was judged) with intervals, one shape per system. */
export function perTypeChart(f: FamilyView): Spec | null {
  const st = f.stats;
  const points: Array<Record<string, unknown>> = [];
  for (const r of st.leaderboard) {
    for (const t of st.types) {
      const c = r.by_type[t];
      if (c) points.push({ system: r.system, type: t, value: pct(c.accuracy), low: pct(c.ci_low), high: pct(c.ci_high), n: c.n });
    }
  }
  if (points.length === 0) return null;
  const systems = st.leaderboard.map((r) => r.system);
  return base(`${st.setting}: accuracy by question type (95% CI)`, `Per-type accuracy for ${st.setting}`, {
    height: { step: 16 * Math.max(1, systems.length) + 8 },
    data: { values: points },
    encoding: {
      y: { field: 'type', type: 'nominal', sort: st.types, title: null },
      yOffset: { field: 'system', type: 'nominal', sort: systems },
    },
    layer: [
      {
        mark: { type: 'rule' },
        encoding: { x: { field: 'low', type: 'quantitative', title: 'accuracy (%)', scale: { domain: [0, 100] } }, x2: { field: 'high' } },
      },
      {
        mark: { type: 'point', filled: true, size: 70 },
        encoding: {
          x: { field: 'value', type: 'quantitative' },
          shape: { field: 'system', type: 'nominal', sort: systems, scale: { range: SHAPES }, title: 'system', legend: legendFor(systems) },
          color: { field: 'system', type: 'nominal', sort: systems, title: 'system', legend: legendFor(systems) },
          tooltip: [{ field: 'system' }, { field: 'type' }, { field: 'value', title: 'accuracy %' }, { field: 'n' }],
        },
      },
    ],
  });
}

/**
 * Where answers are lost: gold evidence never retrieved, retrieved but the answer still wrong,
 * retrieved and right. Each segment carries its share as text, so colour is not needed to read it.
 */
export function coverageChart(f: FamilyView): Spec | null {
  const rows = f.stats.coverage.filter((c) => c.coverage !== null);
  if (rows.length === 0) return null;
  const judged = rows.some((c) => c.utilization !== null);
  const parts: Array<Record<string, unknown>> = [];
  for (const c of rows) {
    const cov = c.coverage!;
    const segs: Array<[string, number]> =
      judged && c.utilization !== null
        ? [
            ['never retrieved', 1 - cov],
            ['retrieved, not used', cov * (1 - c.utilization)],
            ['retrieved and used', cov * c.utilization],
          ]
        : [
            ['never retrieved', 1 - cov],
            ['retrieved (not judged)', cov],
          ];
    let start = 0;
    for (const [part, share] of segs) {
      parts.push({
        system: c.system,
        part,
        share: pct(share),
        start: pct(start),
        end: pct(start + share),
        mid: pct(start + share / 2),
        label: share >= 0.17 ? `${SHORT[part]} ${pct(share)!.toFixed(1)}%` : share >= 0.06 ? `${pct(share)!.toFixed(1)}%` : '',
      });
      start += share;
    }
  }
  const domain = judged ? ['never retrieved', 'retrieved, not used', 'retrieved and used'] : ['never retrieved', 'retrieved (not judged)'];
  const range = judged ? ['#c0392b', '#e6a23c', '#2e7d32'] : ['#c0392b', '#7a9cc6'];
  return base(
    `${f.stats.setting}: where answers are lost (questions with gold evidence)`,
    `Coverage by utilization for ${f.stats.setting}`,
    {
      height: stepFor(
        rows.map((r) => r.system),
        30,
      ),
      data: { values: parts },
      encoding: {
        y: { field: 'system', type: 'nominal', title: null, sort: rows.map((r) => r.system), axis: uncut(rows.map((r) => r.system)) },
      },
      layer: [
        {
          mark: { type: 'bar', stroke: 'white', strokeWidth: 1 },
          encoding: {
            x: { field: 'start', type: 'quantitative', title: 'share of questions with gold evidence (%)', scale: { domain: [0, 100] } },
            x2: { field: 'end' },
            color: { field: 'part', type: 'nominal', scale: { domain, range }, title: null },
            tooltip: [{ field: 'system' }, { field: 'part' }, { field: 'share', title: '%' }],
          },
        },
        {
          mark: { type: 'text', color: 'black', align: 'center', fontWeight: 'bold' },
          encoding: { x: { field: 'mid', type: 'quantitative' }, text: { field: 'label' } },
        },
      ],
    },
  );
}

const SHORT: Record<string, string> = {
  'never retrieved': 'missed',
  'retrieved, not used': 'not used',
  'retrieved and used': 'used',
  'retrieved (not judged)': 'retrieved',
};

/** Coverage and utilization per system with their bootstrap intervals. */
export function coverageIntervalsChart(f: FamilyView): Spec | null {
  const pts: Array<Record<string, unknown>> = [];
  for (const c of f.stats.coverage) {
    if (c.coverage !== null)
      pts.push({
        system: c.system,
        measure: 'coverage',
        value: pct(c.coverage),
        low: pct(c.coverage_ci_low),
        high: pct(c.coverage_ci_high),
        n: c.n,
      });
    if (c.utilization !== null)
      pts.push({
        system: c.system,
        measure: 'utilization',
        value: pct(c.utilization),
        low: pct(c.utilization_ci_low),
        high: pct(c.utilization_ci_high),
        n: c.covered_scored,
      });
  }
  if (pts.length === 0) return null;
  const measures = ['coverage', 'utilization'].filter((m) => pts.some((p) => p.measure === m));
  return base(
    `${f.stats.setting}: coverage and utilization (95% bootstrap CI)`,
    `Coverage and utilization intervals for ${f.stats.setting}`,
    {
      height: stepFor(
        f.stats.coverage.map((c) => c.system),
        30,
      ),
      data: { values: pts },
      encoding: {
        y: {
          field: 'system',
          type: 'nominal',
          title: null,
          sort: f.stats.coverage.map((c) => c.system),
          axis: uncut(f.stats.coverage.map((c) => c.system)),
        },
        yOffset: { field: 'measure', type: 'nominal', sort: ['coverage', 'utilization'] },
      },
      layer: [
        {
          mark: 'rule',
          encoding: { x: { field: 'low', type: 'quantitative', title: '%', scale: { domain: [0, 100] } }, x2: { field: 'high' } },
        },
        {
          mark: { type: 'point', filled: true, size: 80 },
          encoding: {
            x: { field: 'value', type: 'quantitative' },
            shape: { field: 'measure', type: 'nominal', scale: { domain: measures, range: ['square', 'triangle-up'] } },
            color: { field: 'measure', type: 'nominal', scale: { domain: measures, range: ['#1f5fa8', '#2e7d32'] } },
            tooltip: [{ field: 'system' }, { field: 'measure' }, { field: 'value' }, { field: 'low' }, { field: 'high' }, { field: 'n' }],
          },
        },
        {
          mark: { type: 'text', align: 'left', dx: 8 },
          encoding: { x: { field: 'value', type: 'quantitative' }, text: { field: 'value', format: '.1f' } },
        },
      ],
    },
  );
}
