/** The report's charts of ablations and of runs: variant series, coverage at k, cost and time. */
import type { AblationView, RunView } from './data.js';
import { base, legendFor, pct, SHAPES, stepFor, uncut, clamp01, type Spec } from './chart-base.js';

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
