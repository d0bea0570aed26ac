/** The paired table, its Markdown/CSV forms, the SVG plot and the answer reuse, on constructed outcomes. */
import { describe, expect, it } from 'vitest';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { DEFAULT_POLICY } from '../../../src/core/policy.js';
import { summarise } from '../../../src/reader-judge/summary.js';
import type { ItemRecord } from '../../../src/core/item.js';
import type { Manifest } from '../../../src/run-files/manifest.js';
import { analyseAblation } from '../../../src/ablate/paired-table.js';
import type { VariantOutcome } from '../../../src/ablate/types.js';
import { ablationCsv, ablationMarkdown } from '../../../src/ablate/report.js';
import { ablationSvg, niceRange } from '../../../src/ablate/plot.js';
import { evidenceKey, reuseStages, stageDelta } from '../../../src/ablate/reuse.js';
import { planVariants } from '../../../src/ablate/variants.js';
import type { Evidence } from '../../../src/core/ingested-episode.js';

const base = RunConfigSchema.parse({ benchmark: 'locomo' });
const variants = planVariants(base, DEFAULT_POLICY, {
  k: [1, 60],
  window: [512],
  stride: null,
  candidates: [],
  noRerank: false,
  noExpand: false,
});
const N = 200;

/** RFC 4180 rows as objects keyed by the header (quoted fields may hold commas and doubled quotes). */
function parseCsv(text: string): Array<Record<string, string>> {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(field), (field = ''));
    else if (c === '\n') (row.push(field), rows.push(row), (row = []), (field = ''));
    else field += c;
  }
  const [header, ...body] = rows;
  return body.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}

function item(id: number, covered: boolean, score: number | null): ItemRecord {
  return {
    id: `q${id}`,
    benchmark: 'locomo',
    episode: 'e',
    type: 'single-hop',
    type_id: 4,
    question: '',
    question_date: null,
    gold: '',
    acceptable: [],
    gold_evidence: ['D1:1'],
    retrieved: [],
    evidence_turns: [],
    evidence_tokens: 100,
    coverage: { all: covered, any: covered },
    coverage_at_k: {},
    answer: null,
    score,
    metrics: {},
    details: {},
    timings: {},
    error: null,
  };
}

/** Coverage rate per variant: the reference 0.8, k=1 much lower, the rest equal to the reference. */
function outcomes(withScores: boolean): VariantOutcome[] {
  return variants.map((v) => {
    const rate = v.name === 'k=1' ? 0.4 : 0.8;
    const items = Array.from({ length: N }, (_, i) => item(i, i < rate * N, withScores ? (i < rate * N ? 1 : 0) : null));
    return {
      variant: v,
      adds: { indexBuilds: 0, windows: 0, windowTokens: 0, searches: 0, rerankCalls: 0, newEvidenceSets: 0, newEvidenceTokens: 0 },
      dir: `/x/${v.name}`,
      manifest: {
        system: v.isDefault ? 'RAW-RAG/local' : `RAW-RAG/local ${v.name}`,
        benchmark: 'locomo',
        setting: 'locomo/gpt-4o-mini',
        status: 'complete',
        config: v.cfg,
        config_hash: v.name,
        // Summed work charged to the variant, and the wall time of the whole (shared) sweep.
        timings: { work_ms: 1500, sweep_wall_ms: 600 },
      } as unknown as Manifest,
      summary: { ...summarise(items) },
      items,
    };
  });
}

describe('analyseAblation', () => {
  const table = analyseAblation(outcomes(false), { resamples: 2000, seed: 1 });

  it('compares coverage offline, pairing each variant with the reference per question', () => {
    expect(table.metric).toBe('coverage');
    const ref = table.rows.find((r) => r.is_default)!;
    expect([ref.delta, ref.p, ref.p_holm]).toEqual([null, null, null]);
    const k1 = table.rows.find((r) => r.variant === 'k=1')!;
    expect(k1.paired).toBe(N);
    expect(k1.delta).toBeCloseTo(-0.4, 12);
    expect(k1.ci_low!).toBeLessThan(k1.delta!);
    expect(k1.ci_high!).toBeLessThan(0);
    expect(k1.p_holm!).toBeLessThan(0.01);
    const same = table.rows.find((r) => r.variant === 'k=60')!;
    expect([same.delta, same.p]).toEqual([0, 1]);
  });

  it('Holm-adjusts over the variants (adjusted >= raw, capped at 1)', () => {
    for (const r of table.rows.filter((x) => !x.is_default)) {
      expect(r.p_holm!).toBeGreaterThanOrEqual(r.p!);
      expect(r.p_holm!).toBeLessThanOrEqual(1);
    }
    const k1 = table.rows.find((r) => r.variant === 'k=1')!;
    expect(k1.p_holm).toBeCloseTo(Math.min(1, k1.p! * (variants.length - 1)), 12);
  });

  it('compares accuracy once answers are judged', () => {
    const judged = analyseAblation(outcomes(true), { resamples: 500, seed: 1 });
    expect(judged.metric).toBe('accuracy');
    expect(judged.rows.find((r) => r.variant === 'k=1')!.accuracy).toBeCloseTo(0.4, 12);
  });

  it('prints Markdown with signed differences and writes a CSV with one row per variant', () => {
    const md = ablationMarkdown(table);
    expect(md).toMatch(/\| default \(reference\) \|/);
    expect(md).toMatch(/\| k=1 +\| +200 \| +40\.00 \| +-40\.00 \|/);
    const rows = parseCsv(ablationCsv(table));
    expect(rows.map((r) => r.variant)).toEqual(variants.map((v) => v.name));
    expect(Object.keys(rows[0]!)).toEqual(
      expect.arrayContaining(['variant', 'coverage', 'delta', 'ci_low', 'ci_high', 'p_holm', 'evidence_tokens', 'work_s', 'wall_s']),
    );
    expect(Object.keys(rows[0]!)).not.toContain('time_s');
    expect(Number(rows[1]!.delta)).toBeCloseTo(-0.4, 12);
    expect(rows[0]!.delta).toBe('');
  });

  it('labels summed work as work, never as wall time; a shared sweep has no per-variant wall time', () => {
    expect(table.rows.every((r) => r.work_s === 1.5 && r.wall_s === null)).toBe(true);
    const md = ablationMarkdown(table);
    expect(md.split('\n')[0]).toMatch(/\| work s \|$/);
    expect(md).not.toMatch(/time s|wall s/);
    // Variants that ran as plain runs (memory.* sweeps) have their own wall time: both columns.
    const plain = outcomes(false).map((o) => ({ ...o, manifest: { ...o.manifest, timings: { work_ms: 2400, wall_ms: 900 } } }));
    const t = analyseAblation(plain, { resamples: 200, seed: 1 });
    expect(t.rows[0]).toMatchObject({ work_s: 2.4, wall_s: 0.9 });
    expect(ablationMarkdown(t).split('\n')[0]).toMatch(/\| work s \| wall s \|$/);
  });
});

describe('ablationSvg', () => {
  it('draws one line per window size on a log k axis, marks the reference and labels the axes', () => {
    const table = analyseAblation(outcomes(false), { resamples: 200, seed: 1 });
    const svg = ablationSvg(table, 'a <title> & more');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('a &lt;title&gt; &amp; more');
    expect(svg.match(/<polyline /g)).toHaveLength(2); // window 256: k=1,15,60; window 512: k=1,15,60
    expect(svg).toContain('k = evidence windows kept (log scale)');
    expect(svg).toContain('coverage: all gold turns shown (%)');
    expect(svg).toContain('>window 256<');
    expect(svg).toContain('>window 512<');
    expect(svg).toContain('>default<');
    // Log axis: the tick for k=15 sits nearer to k=60 than to k=1 in proportion log(15)/log(60).
    const x = (k: number) => Number(new RegExp(`<text x="([\\d.]+)" y="[\\d.]+" text-anchor="middle">${k}</text>`).exec(svg)![1]);
    expect((x(15) - x(1)) / (x(60) - x(1))).toBeCloseTo(Math.log(15) / Math.log(60), 2);
    expect(ablationSvg(analyseAblation(outcomes(true), { resamples: 200, seed: 1 }), 't')).toContain('accuracy (%)');
  });

  it('picks round y ranges inside 0-100', () => {
    expect(niceRange([54.1, 82.7, 99.1])).toEqual([50, 100, 10]);
    expect(niceRange([40, 40])).toEqual([39.4, 40.6, 0.2]);
    const [lo, hi] = niceRange([0.5, 99.9]);
    expect([lo, hi]).toEqual([0, 100]);
  });
});

describe('answer reuse across variants', () => {
  it('keys evidence by what the reader sees and copies only what the stages produced', () => {
    const ev: Evidence = {
      turnIndices: [3, 1],
      turnIds: ['D1:4', 'D1:2'],
      blocks: [
        { text: 'x', turns: [3], kind: 'history' },
        { text: 'y', turns: [1], kind: 'history' },
      ],
      tokens: 9,
    };
    const policy = { expandToTurns: true, order: 'rank' as const };
    expect(evidenceKey(ev, { retrieved: [] }, policy, '256/224')).toBe(evidenceKey({ ...ev }, { retrieved: [] }, policy, '512/480'));
    expect(evidenceKey(ev, { retrieved: [] }, policy, '256/224')).not.toBe(
      evidenceKey({ ...ev, turnIds: ['D1:2', 'D1:4'] }, { retrieved: [] }, policy, '256/224'),
    );
    const raw = { expandToTurns: false, order: 'rank' as const };
    const r = { retrieved: [{ chunk: 'e#2' }, { chunk: 'e#1' }] } as unknown as ItemRecord;
    expect(evidenceKey(ev, r, raw, '256/224')).not.toBe(evidenceKey(ev, r, raw, '512/480'));

    const first = item(1, true, null);
    first.metrics.recall_at_50 = 1; // from the ranking: not the stages'
    const before = structuredClone({ metrics: first.metrics, details: first.details });
    Object.assign(first, { answer: '7 May 2023', score: 2 / 3 });
    first.metrics.f1 = 0.5;
    first.details.judge = { votes: [1, 1, 0] };
    const delta = stageDelta(before, first);
    expect(delta).toEqual({ answer: '7 May 2023', score: 2 / 3, metrics: { f1: 0.5 }, details: { judge: { votes: [1, 1, 0] } } });
    const twin = item(1, true, null);
    twin.metrics.recall_at_50 = 0;
    reuseStages(twin, delta, 'k=30');
    expect(twin).toMatchObject({
      answer: '7 May 2023',
      score: 2 / 3,
      metrics: { f1: 0.5, recall_at_50: 0 },
      details: { judge: { votes: [1, 1, 0] }, ablate_reused_from: 'k=30' },
    });
  });
});
