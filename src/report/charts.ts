/**
 * The report's charts as Vega-Lite specifications (data inlined); the page renders them with the
 * bundled Vega. Every series is told apart by shape or a text label as well as by colour, so the
 * charts read in greyscale and on paper.
 */
import type { AblationView, FamilyView, RunView } from './data.js';

type Spec = Record<string, unknown>;

const WIDTH = 560;
const FONT = { font: 'system-ui, sans-serif', labelFont: 'system-ui, sans-serif', titleFont: 'system-ui, sans-serif' };
const CONFIG = {
  axis: { labelFont: FONT.labelFont, titleFont: FONT.titleFont, labelFontSize: 12, titleFontSize: 12, labelLimit: 340 },
  legend: {
    labelFont: FONT.labelFont,
    titleFont: FONT.titleFont,
    labelFontSize: 12,
    titleFontSize: 12,
    orient: 'bottom',
    direction: 'horizontal',
    labelLimit: 420,
    columns: 2,
  },
  axisQuantitative: { tickCount: 8, labelOverlap: true },
  text: { font: FONT.font, fontSize: 11 },
  view: { stroke: null },
};
const SHAPES = ['circle', 'square', 'triangle-up', 'diamond', 'cross', 'triangle-down', 'wedge', 'stroke'];

/** Characters per line of a wrapped axis label (12 px type: about 250 px), and of a legend label. */
const AXIS_LINE = 36;
const LEGEND_LINE = 56;

/**
 * A long name as lines of at most `width` characters, broken after `/ + : , ·` or a space, or
 * before `[` (a `--name` label); a part longer than a line is cut into lines. Short names: one line.
 */
export function wrapLabel(s: string, width = AXIS_LINE): string[] {
  if (s.length <= width) return [s];
  const parts = s.split(/(?<=[/+:,·\s])|(?=\[)/);
  const lines: string[] = [];
  let line = '';
  for (let part of parts) {
    while (part.length > width) {
      if (line) lines.push(line.trimEnd());
      lines.push(part.slice(0, width));
      part = part.slice(width);
      line = '';
    }
    if (line && (line + part).trimEnd().length > width) {
      lines.push(line.trimEnd());
      line = '';
    }
    line += part;
  }
  if (line.trim()) lines.push(line.trimEnd());
  return lines;
}

/** A band tall enough for the most lines any of these labels wraps to (at least `min` pixels). */
function stepFor(values: string[], min: number): { step: number } {
  return { step: Math.max(min, 14 * Math.max(1, ...values.map((v) => wrapLabel(v).length)) + 8) };
}

/** A legend of these labels, none cut off; one column when some are long. */
function legendFor(values: string[]): Spec {
  return { ...uncut(values, LEGEND_LINE), ...(values.some((v) => v.length > 40) ? { columns: 1 } : {}) };
}

/**
 * Labels that are never cut off: no length limit, and each long value written on several lines
 * (a Vega label expression that returns an array draws one line per element). For an axis or a
 * legend whose labels are `values`.
 */
function uncut(values: Iterable<string>, width = AXIS_LINE): Spec {
  const lines: Record<string, string[]> = {};
  for (const v of values) {
    const wrapped = wrapLabel(v, width);
    if (wrapped.length > 1) lines[v] = wrapped;
  }
  return { labelLimit: 0, ...(Object.keys(lines).length ? { labelExpr: `(${JSON.stringify(lines)})[datum.value] || datum.label` } : {}) };
}

function base(title: string, description: string, extra: Spec): Spec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, anchor: 'start', fontSize: 14 },
    description,
    config: CONFIG,
    width: WIDTH,
    ...extra,
  };
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const pct = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10000) / 100);

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

/** Swept numeric knobs, in the order they are preferred as the x axis. */
const KNOBS: Array<{ field: string; title: string; log: boolean }> = [
  { field: 'k', title: 'k (evidence windows kept, log scale)', log: true },
  { field: 'window', title: 'window size (cl100k tokens, log scale)', log: true },
  { field: 'candidates', title: 'first-stage candidates (log scale)', log: true },
];

/** The variant's knobs other than the x axis: one series (shape) per combination. */
export function ablationSeries(r: Record<string, unknown>, x = 'k'): string {
  const parts = [
    x === 'k' ? null : `k ${r.k}`,
    x === 'window' ? null : `window ${r.window}`,
    x === 'candidates' ? null : `cand ${r.candidates}`,
    r.rerank ? 'rerank' : 'no rerank',
    r.expand ? 'expand' : 'no expand',
    typeof r.config === 'string' && r.config ? r.config : typeof r.memory === 'string' && r.memory ? r.memory : null,
  ];
  return parts.filter(Boolean).join(' · ');
}

/**
 * The metric against the swept knob (k when k varies, else window size or candidates; the variant
 * itself when only switches vary), one line per setting of the other knobs. The interval is the
 * reference's value plus the paired 95% interval of the difference. Each point is labelled with
 * its cost (evidence tokens and time).
 */
export function ablationChart(a: AblationView): Spec | null {
  const ref = a.rows.find((r) => r.is_default);
  const metric = a.metric === 'accuracy' ? 'accuracy' : 'coverage';
  const refValue = ref ? (ref[metric] as number | null) : null;
  const rows = a.rows.filter((r) => typeof r[metric] === 'number');
  if (rows.length === 0) return null;
  const knob = KNOBS.find((k) => new Set(rows.map((r) => r[k.field])).size > 1) ?? null;
  const xField = knob?.field ?? 'variant';
  const pts = rows.map((r) => {
    const d = r.delta as number | null;
    const lo = r.ci_low as number | null;
    const hi = r.ci_high as number | null;
    return {
      variant: r.variant,
      series: ablationSeries(r, xField),
      k: r.k,
      window: r.window,
      candidates: r.candidates,
      value: pct(r[metric] as number),
      // A share cannot leave [0, 1], whatever the shifted difference interval says.
      low: refValue !== null && lo !== null && d !== null ? pct(clamp01(refValue + lo)) : null,
      high: refValue !== null && hi !== null && d !== null ? pct(clamp01(refValue + hi)) : null,
      tokens: r.evidence_tokens,
      work_s: workSeconds(r),
      label: `${Math.round((r.evidence_tokens as number | null) ?? 0).toLocaleString('en-US')} tok · ${workSeconds(r).toFixed(1)} s work`,
    };
  });
  let x: Spec;
  if (knob) {
    const xs = pts.map((p) => Number(p[knob.field as 'k']));
    x = {
      field: knob.field,
      type: 'quantitative',
      scale: { type: 'log', domain: [Math.min(...xs) / 1.5, Math.max(...xs) * 1.5], nice: false },
      axis: { values: [...new Set(xs)].sort((p, q) => p - q) },
      title: knob.title,
    };
  } else {
    x = { field: 'variant', type: 'nominal', title: 'variant', axis: { labelAngle: 0 } };
  }
  const against = knob ? knob.field : 'variant';
  return base(
    `${a.benchmark} ablation (${a.retriever}): ${metric} against ${against} — cost beside each point`,
    `Ablation chart for ${a.label}`,
    {
      height: 280,
      data: { values: pts },
      encoding: { x },
      layer: [
        ...(knob
          ? [
              {
                mark: { type: 'line', strokeDash: [4, 3] },
                encoding: {
                  y: { field: 'value', type: 'quantitative', title: `${metric} (%)`, scale: { zero: false } },
                  detail: { field: 'series' },
                },
              },
            ]
          : []),
        {
          mark: { type: 'rule' },
          encoding: { y: { field: 'low', type: 'quantitative', title: `${metric} (%)`, scale: { zero: false } }, y2: { field: 'high' } },
        },
        {
          mark: { type: 'point', filled: true, size: 80 },
          encoding: {
            y: { field: 'value', type: 'quantitative' },
            shape: { field: 'series', type: 'nominal', scale: { range: SHAPES }, title: 'variant' },
            color: { field: 'series', type: 'nominal', title: 'variant' },
            tooltip: [
              { field: 'variant' },
              { field: 'k' },
              { field: 'window' },
              { field: 'candidates' },
              { field: 'value', title: `${metric} %` },
              { field: 'low' },
              { field: 'high' },
              { field: 'tokens', title: 'evidence tokens' },
              { field: 'work_s', title: 'summed work s' },
            ],
          },
        },
        {
          mark: { type: 'text', align: 'left', dx: 7, dy: 10, fontSize: 10 },
          encoding: { y: { field: 'value', type: 'quantitative' }, text: { field: 'label' } },
        },
      ],
    },
  );
}

/**
 * Coverage at depth k from each run's summary.json (the same ranking cut at k = 1, 5, 15, 60 ...):
 * how much deeper retrieval would have helped, for free, per system.
 */
export function coverageAtKChart(setting: string, runs: RunView[]): Spec | null {
  const pts: Array<Record<string, unknown>> = [];
  const inSetting = runs.filter((r) => r.setting === setting);
  const names = distinctRunNames(inSetting);
  for (const [i, r] of inSetting.entries()) {
    for (const [k, c] of Object.entries(r.coverage_at_k)) if (c !== null) pts.push({ system: names[i], k: Number(k), value: pct(c) });
  }
  if (pts.length === 0) return null;
  const systems = [...new Set(pts.map((p) => p.system as string))];
  const ks = pts.map((p) => p.k as number);
  return base(`${setting}: coverage at depth k (same ranking, cut at k)`, `Coverage at k for ${setting}`, {
    height: 220,
    data: { values: pts },
    encoding: {
      x: {
        field: 'k',
        type: 'quantitative',
        scale: { type: 'log', domain: [Math.min(...ks) / 1.5, Math.max(...ks) * 1.5], nice: false },
        axis: { values: [...new Set(ks)].sort((p, q) => p - q) },
        title: 'k (windows kept, log scale)',
      },
      y: { field: 'value', type: 'quantitative', title: 'coverage: all gold evidence shown (%)', scale: { domain: [0, 100] } },
    },
    layer: [
      {
        mark: { type: 'line' },
        encoding: { color: { field: 'system', type: 'nominal', sort: systems, title: 'run', legend: legendFor(systems) } },
      },
      {
        mark: { type: 'point', filled: true, size: 60 },
        encoding: {
          shape: { field: 'system', type: 'nominal', sort: systems, scale: { range: SHAPES }, title: 'run', legend: legendFor(systems) },
          color: { field: 'system', type: 'nominal', sort: systems, title: 'run', legend: legendFor(systems) },
          tooltip: [{ field: 'system' }, { field: 'k' }, { field: 'value', title: 'coverage %' }],
        },
      },
      // Values as text only while they stay legible.
      ...(systems.length <= 3
        ? [{ mark: { type: 'text', dy: -10, fontSize: 10 }, encoding: { text: { field: 'value', format: '.1f' } } }]
        : []),
    ],
  });
}

/** An ablation row's summed work in seconds (`work_s`; ablation.json files before it: `time_s`, the same figure). */
export function workSeconds(r: Record<string, unknown>): number {
  return Number(r.work_s ?? r.time_s ?? 0);
}

/**
 * Per run, two bars on one axis: the wall-clock time, and the summed work split by stage
 * (load, ingest, retrieve, read + judge). Per-question times add up over the questions in flight
 * at once, so the work bar can be longer than the wall bar; both are labelled so.
 */
export function timeChart(runs: RunView[]): Spec | null {
  const stages: Array<[string, string]> = [
    ['load_ms', 'load'],
    ['warmup_ms', 'warm-up'],
    ['ingest_ms', 'ingest'],
    ['retrieve_ms', 'retrieve (query)'],
    ['stages_ms', 'read + judge (query)'],
  ];
  const WALL = 'wall clock';
  const parts: Array<Record<string, unknown>> = [];
  /** Each bar's total, written after its end (a short bar cannot hold it). */
  const ends: Array<Record<string, unknown>> = [];
  const workOf = (r: RunView) => stages.reduce((s, [key]) => s + Math.max(0, r.timings[key] ?? 0), 0);
  // A segment is labelled when it is wide enough on the common axis (the longest bar sets it).
  const longest = Math.max(1, ...runs.map((r) => Math.max(workOf(r), wallOf(r).ms ?? 0)));
  const names = distinctRunNames(runs);
  for (const [i, r] of runs.entries()) {
    const run = names[i]!;
    const wall = wallOf(r);
    if (wall.ms !== null && wall.ms > 0) {
      const s = wall.ms / 1000;
      parts.push({ run, bar: 'wall', stage: WALL, seconds: Math.round(s * 100) / 100, start: 0, end: s, mid: s / 2, label: '' });
      ends.push({ run, bar: 'wall', end: s, label: `wall${wall.sweep ? ' (whole sweep)' : ''} ${s.toFixed(1)} s` });
    }
    let start = 0;
    for (const [key, stage] of stages) {
      const ms = r.timings[key];
      if (typeof ms !== 'number' || ms <= 0) continue;
      const s = ms / 1000;
      parts.push({
        run,
        bar: 'summed work',
        stage,
        seconds: Math.round(s * 100) / 100,
        start,
        end: start + s,
        mid: start + s / 2,
        label: ms / longest >= 0.14 ? `${stage.split(' (')[0]} ${s.toFixed(1)} s` : '',
      });
      start += s;
    }
    if (start > 0) ends.push({ run, bar: 'summed work', end: start, label: `work ${start.toFixed(1)} s` });
  }
  if (parts.length === 0) return null;
  // One band per run (its name, on as many lines as it needs), the wall bar above the summed-work bar.
  return base('Time per run: wall clock vs summed work', 'Wall-clock time, and the summed per-stage work (per-question times added up)', {
    height: stepFor(names, 40),
    data: { values: parts },
    encoding: {
      y: { field: 'run', type: 'nominal', title: null, sort: names, axis: uncut(names) },
      yOffset: { field: 'bar', type: 'nominal', sort: ['wall', 'summed work'] },
    },
    layer: [
      {
        mark: { type: 'bar', stroke: 'white' },
        encoding: {
          x: { field: 'start', type: 'quantitative', title: 'seconds' },
          x2: { field: 'end' },
          color: {
            field: 'stage',
            type: 'nominal',
            scale: {
              domain: [WALL, ...stages.map((s) => s[1])],
              range: ['#333333', '#9e9e9e', '#c7b299', '#1f5fa8', '#7a9cc6', '#e6a23c'],
            },
            title: null,
          },
          tooltip: [{ field: 'run' }, { field: 'stage' }, { field: 'seconds' }],
        },
      },
      {
        mark: { type: 'text', fontSize: 10, color: 'white' },
        encoding: { x: { field: 'mid', type: 'quantitative' }, text: { field: 'label' } },
      },
      {
        data: { values: ends },
        mark: { type: 'text', fontSize: 10, align: 'left', dx: 4 },
        encoding: { x: { field: 'end', type: 'quantitative' }, text: { field: 'label' } },
      },
    ],
  });
}

/**
 * How runs are named side by side (the time chart, coverage at k, the explorer): the system with
 * its `--name` label; where two runs would still read the same, their setting is added (two readers,
 * a data variant), and where that is not enough either, the run directory.
 */
export function distinctRunNames(runs: Array<{ system: string; name?: string | null; setting: string; label: string }>): string[] {
  const counts = (names: string[]) => names.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>());
  const named = runs.map((r) => (r.name ? `${r.system} [${r.name}]` : r.system));
  const byName = counts(named);
  const withSetting = named.map((n, i) => (byName.get(n)! > 1 ? `${n} · ${runs[i]!.setting}` : n));
  const bySetting = counts(withSetting);
  return withSetting.map((n, i) => (bySetting.get(n)! > 1 ? `${n} · ${runs[i]!.label}` : n));
}

/**
 * A run's wall-clock time: manifest `wall_ms` (this process), or for an ablation variant the whole
 * sweep's (`sweep_wall_ms`, shared by its variants). Older manifests: `total_ms` of a plain run
 * was its wall time; null when nothing says.
 */
export function wallOf(r: RunView): { ms: number | null; sweep: boolean } {
  const t = r.timings;
  if (typeof t.wall_ms === 'number') return { ms: t.wall_ms, sweep: false };
  if (typeof t.sweep_wall_ms === 'number') return { ms: t.sweep_wall_ms, sweep: true };
  return { ms: null, sweep: false };
}
