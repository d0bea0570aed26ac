// The report's cost and time section: every role the CLI prints a cost for (embed and rerank too,
// the agentic memory system's extraction), wall time and summed work side by side and labelled,
// the --name label beside the system, and the explorer's size cap.
import { describe, expect, it } from 'vitest';
import { buildReportData, usageOf, totalCost } from '../../../src/report/data.js';
import type { ReportInputs, RunInput } from '../../../src/report/collect.js';
import { renderPage } from '../../../src/report/html.js';
import { timeChart } from '../../../src/report/charts.js';
import { analyse } from '../../../src/stats/compute-tables.js';
import type { Dataset } from '../../../src/core/schema.js';

const turn = (id: string, text: string) => ({ id, session: 's1', date: '1 May 2023', speaker: 'Ann', text, captions: [] });

function run(opts: {
  system: string;
  n: number;
  name?: string;
  summary?: Record<string, unknown> | null;
  timings?: Record<string, number>;
  turnsPerItem?: number;
}): RunInput {
  const items = Array.from({ length: opts.n }, (_, i) => ({
    id: `conv-1:q${i}`,
    benchmark: 'locomo',
    episode: 'conv-1',
    type: 'single-hop',
    question: `Question ${i}?`,
    gold: 'Tom',
    gold_evidence: [`D1:${i}`],
    evidence_turns: Array.from({ length: opts.turnsPerItem ?? 2 }, (_, t) => `D1:${(i + t) % 400}`),
    coverage: { all: true, any: true },
    answer: 'Tom',
    score: 1,
    details: {
      judge: {
        model: 'gpt-4o-mini',
        votes: [1, 1, 1],
        runs: [1, 1, 1].map(() => ({ verdict: 1, raw: `{"label": "CORRECT", "q": ${i}}` })),
      },
      usage: {
        reader: { prompt_tokens: 1000, completion_tokens: 10, cost_usd: 0.00016, requests: 1, cache_hits: 0 },
        judge: { prompt_tokens: 300, completion_tokens: 30, cost_usd: 0.0001, requests: 3, cache_hits: 0 },
      },
    },
    error: null,
  }));
  const dir = `/x/${opts.system}`;
  return {
    dir,
    label: `runs/${opts.system.replace(/\W/g, '-')}`,
    items,
    summary: opts.summary ?? null,
    manifest: {
      system: opts.system,
      ...(opts.name ? { name: opts.name } : {}),
      config: { benchmark: 'locomo', reader: { model: 'gpt-4o-mini' }, judge: { model: 'gpt-4o-mini' } },
      policy: { serialisation: 'message' },
      timings: opts.timings ?? {},
    },
    loaded: {
      dir,
      label: `runs/${opts.system.replace(/\W/g, '-')}`,
      system: opts.system,
      name: opts.name ?? null,
      reference: opts.system.startsWith('RAW-RAG'),
      source: null,
      benchmark: 'locomo',
      setting: 'locomo/gpt-4o-mini',
      status: 'complete',
      notes: [],
      items: items.map((i) => ({
        id: i.id,
        score: 1,
        type: i.type,
        coverage: true,
        votes: [1, 1, 1],
        episode: 'conv-1',
        meta: null,
        error: null,
      })),
    },
  };
}

const dataset: Dataset = {
  benchmark: 'locomo',
  episodes: [{ id: 'conv-1', turns: Array.from({ length: 400 }, (_, t) => turn(`D1:${t}`, `turn ${t} `.repeat(40))) }],
  questions: [],
  source: { path: 'x', sha256: '', bytes: 0, version: '' },
  warnings: [],
};

function inputsOf(runs: RunInput[]): ReportInputs {
  return {
    runs,
    stats: analyse(
      runs.map((r) => r.loaded),
      { resamples: 200, seed: 0, allPairs: false },
    ),
    statsSource: 'test',
    ablations: [],
    datasets: new Map(runs.map((r) => [r, dataset])),
    notes: [],
  };
}

// As summary.json writes it for `--retriever openai` (this process's usage per role; cost_usd_total = from scratch).
const openaiSummary = {
  overall: { accuracy: 1, scored: 4, coverage: { all: 1, any: 1 } },
  n: 4,
  errors: 0,
  usage: {
    embed: {
      models: ['text-embedding-3-small'],
      requests: 3,
      cache_hits: 1,
      retries: 0,
      prompt_tokens: 25_000,
      completion_tokens: 0,
      search_units: 0,
      cost_usd_spent: 0.0004,
      cost_usd_total: 0.0005,
    },
    rerank: {
      models: ['rerank-v3.5'],
      requests: 100,
      cache_hits: 0,
      retries: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      search_units: 100,
      cost_usd_spent: 0.2,
      cost_usd_total: 0.2,
    },
    reader: {
      models: ['gpt-4o-mini'],
      requests: 4,
      cache_hits: 0,
      retries: 0,
      prompt_tokens: 4000,
      completion_tokens: 40,
      cost_usd_spent: 0.00064,
      cost_usd_total: 0.00064,
    },
  },
};

describe('report cost', () => {
  it('states embed and rerank cost beside reader and judge, and the total over every role', () => {
    const r = run({ system: 'RAW-RAG/openai', n: 4, summary: openaiSummary });
    const usage = usageOf(r);
    expect(Object.keys(usage).sort()).toEqual(['embed', 'judge', 'reader', 'rerank']);
    expect(usage.rerank).toMatchObject({ cost_usd: 0.2, requests: 100, search_units: 100 });
    expect(usage.embed).toMatchObject({ cost_usd: 0.0005, prompt_tokens: 25_000, cache_hits: 1 });
    // Reader and judge come from the items (all resumes), not from this process's summary.
    expect(usage.reader!.cost_usd).toBeCloseTo(4 * 0.00016, 12);
    expect(totalCost(usage)).toBeCloseTo(0.2 + 0.0005 + 4 * 0.00016 + 4 * 0.0001, 12);
    const html = renderPage(buildReportData(inputsOf([r]), { version: '0', libraries: {} }));
    expect(html).toMatch(/data-role="rerank">.*<td>rerank<\/td>.*\$0\.2000/);
    expect(html).toMatch(/data-role="embed">.*\$0\.0005/);
    expect(html).toMatch(/data-role="total" class="total">.*\$0\.2015/);
  });

  it("shows an agentic memory system's extraction cost", () => {
    const r = run({
      system: 'agentic-memory/gpt-4o-mini',
      n: 2,
      summary: { memory: { ingest: { extraction_calls: 272, prompt_tokens: 500_000, completion_tokens: 90_000, cost_usd: 0.15 } } },
    });
    expect(usageOf(r).extract).toMatchObject({ requests: 272, cost_usd: 0.15 });
  });
});

describe('report time', () => {
  // 8 questions in flight: their times add up to 12 s of work in a run that took 3.1 s.
  const timings = { load_ms: 100, ingest_ms: 900, retrieve_ms: 2000, stages_ms: 9000, work_ms: 12000, wall_ms: 3100, total_ms: 3100 };

  it('draws wall clock and summed work as separate, labelled bars', () => {
    const data = buildReportData(inputsOf([run({ system: 'RAW-RAG/openai', n: 4, timings })]), { version: '0', libraries: {} });
    const spec = timeChart(data.runs) as {
      data: { values: Array<Record<string, unknown>> };
      layer: Array<{ data?: { values: Array<Record<string, unknown>> } }>;
    };
    const wall = spec.data.values.filter((v) => v.stage === 'wall clock');
    expect(wall).toHaveLength(1);
    expect(wall[0]).toMatchObject({ run: 'RAW-RAG/openai', bar: 'wall', seconds: 3.1 });
    const work = spec.data.values.filter((v) => v.stage !== 'wall clock');
    expect(work.every((v) => v.bar === 'summed work' && v.run === 'RAW-RAG/openai')).toBe(true);
    expect(Math.max(...work.map((v) => v.end as number))).toBeCloseTo(12, 9);
    // Each bar's total after its end, however short the bar.
    const ends = spec.layer.find((l) => l.data)!.data!.values;
    expect(ends.map((e) => e.label)).toEqual(['wall 3.1 s', 'work 12.0 s']);
    const html = renderPage(data);
    expect(html).toMatch(/<td data-col="wall">3\.10<\/td><td data-col="work">12\.00<\/td>/);
  });

  it("an ablation variant's wall time is the whole sweep's, said so", () => {
    const r = run({
      system: 'RAW-RAG/local k=5',
      n: 2,
      timings: { load_ms: 10, ingest_ms: 20, retrieve_ms: 30, work_ms: 60, sweep_wall_ms: 400 },
    });
    const data = buildReportData(inputsOf([r]), { version: '0', libraries: {} });
    expect(renderPage(data)).toMatch(
      /<td data-col="wall">0\.40 <span class="muted small">\(sweep\)<\/span><\/td><td data-col="work">0\.06<\/td>/,
    );
  });
});

describe('run labels (--name)', () => {
  it('shows the label beside the system in the leaderboard, the explorer and the cost table', () => {
    const a = run({ system: 'RAW-RAG/local', n: 3, name: 'bm25-baseline' });
    const b = run({ system: 'RAW-RAG/openai', n: 3 });
    const data = buildReportData(inputsOf([a, b]), { version: '0', libraries: {} });
    expect(data.families[0]!.stats.leaderboard.map((r) => r.system).sort()).toEqual(['RAW-RAG/local [bm25-baseline]', 'RAW-RAG/openai']);
    expect(data.runs[0]!.name).toBe('bm25-baseline');
    const html = renderPage(data);
    expect(html).toContain('RAW-RAG/local <span class="run-name">[bm25-baseline]</span>');
    expect(html).toContain('"system":"RAW-RAG/local [bm25-baseline]"');
  });
});

describe('explorer size cap', () => {
  it('embeds per-question detail up to the budget, keeps every outcome, and says so on the page', () => {
    const runs = [run({ system: 'RAW-RAG/local', n: 300, turnsPerItem: 20 }), run({ system: 'RAW-RAG/openai', n: 300, turnsPerItem: 20 })];
    const full = buildReportData(inputsOf(runs), { version: '0', libraries: {} });
    expect(full.runs.every((r) => r.detailed === 300)).toBe(true);
    const fullSize = JSON.stringify(full).length;
    const capped = buildReportData(inputsOf(runs), { version: '0', libraries: {}, detailBudget: 40_000 });
    const size = JSON.stringify(capped).length;
    expect(size).toBeLessThan(fullSize / 2);
    // Both runs keep detail for their first questions (round robin), none for the rest.
    for (const r of capped.runs) {
      expect(r.detailed).toBeGreaterThan(0);
      expect(r.detailed).toBeLessThan(300);
      expect(r.rows.slice(0, r.detailed).every((row) => row[8] === 1 && row[6].length === 20 && row[4].length === 3)).toBe(true);
      expect(r.rows.slice(r.detailed).every((row) => row[8] === 0 && row[6].length === 0 && row[4].length === 0)).toBe(true);
      // Outcomes, answers and votes stay for every item: filters and counts are exact.
      expect(r.rows.every((row) => row[2] === 1 && row[3]!.length === 3 && capped.s[row[1]] === 'Tom')).toBe(true);
    }
    expect(Math.abs(capped.runs[0]!.detailed - capped.runs[1]!.detailed)).toBeLessThanOrEqual(1);
    const html = renderPage(capped);
    expect(html).toMatch(/id="explorer-cap">.*evidence text and judge replies are embedded for \d+ of 600 items/);
    expect(renderPage(full)).not.toContain('explorer-cap');
  });
});
