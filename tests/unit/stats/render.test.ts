import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/stats/compute-tables.js';
import type { LoadedRun, StatItem } from '../../../src/stats/load.js';
import { formatP, leaderboardCsv, omnibusCsv, pairwiseCsv, renderReport, stars } from '../../../src/stats/render.js';

const item = (id: string, score: number | null, coverage: boolean | null = null): StatItem => ({
  id,
  score,
  type: 't',
  coverage,
  votes: null,
  episode: null,
  meta: null,
  error: null,
});
const run = (system: string, items: StatItem[]): LoadedRun => ({
  dir: system,
  label: system,
  reference: system.startsWith('RAW-RAG/'),
  source: null,
  system,
  benchmark: 'locomo',
  setting: 's',
  status: 'complete',
  items,
  notes: [],
});

describe('render', () => {
  it('significance stars and p formatting', () => {
    expect([stars(0.0004), stars(0.004), stars(0.04), stars(0.06)]).toEqual(['***', '**', '*', '']);
    expect([formatP(0.01234), formatP(2e-5), formatP(null)]).toEqual(['0.0123', '2.0e-5', '—']);
  });
  it('marks a significantly worse system and writes the CSV columns', () => {
    const n = 60;
    const base = Array.from({ length: n }, (_, i) => item(`q${i}`, i < 54 ? 1 : 0));
    const weak = Array.from({ length: n }, (_, i) => item(`q${i}`, i < 20 ? 1 : 0));
    const report = analyse([run('Weak', weak), run('RAW-RAG/x', base)], { resamples: 1000, seed: 0, allPairs: false });
    const md = renderReport(report);
    expect(md).toMatch(/\| +1 \| RAW-RAG\/x .*baseline \|/);
    expect(md).toMatch(/\| +2 \| Weak .*-56\.67\*\*\*† \|/);
    expect(md).toContain('Holm-adjusted exact McNemar');
    expect(pairwiseCsv(report).split('\n')[0]).toBe(
      'benchmark,setting,system_a,system_b,n,excluded,delta,ci_low,ci_high,p_bootstrap,mcnemar_b,mcnemar_c,p_mcnemar,p_holm,p_bootstrap_holm,' +
        'p_method,p_bootstrap_bound,log10_p_mcnemar,log10_p_holm,resamples,seed,judge',
    );
    expect(omnibusCsv(report).split('\n')[1]).toMatch(/^locomo,s,RAW-RAG\/x \| Weak,2,60,/);
    expect(leaderboardCsv(report)).toContain('locomo,s,1,RAW-RAG/x,overall,aggregate,60,0.9,');
  });
  it('offline runs are ordered by coverage', () => {
    const a = Array.from({ length: 10 }, (_, i) => item(`q${i}`, null, i < 3));
    const b = Array.from({ length: 10 }, (_, i) => item(`q${i}`, null, i < 8));
    const f = analyse([run('RAW-RAG/a', a), run('RAW-RAG/b', b)], { resamples: 200, seed: 0, allPairs: true }).families[0]!;
    expect(f.leaderboard.map((r) => r.system)).toEqual(['RAW-RAG/b', 'RAW-RAG/a']);
    expect(f.pairwise).toEqual([]);
    expect(f.coverage_pairwise.find((c) => c.measure === 'coverage')!.delta).toBeCloseTo(0.5, 12);
  });
});
