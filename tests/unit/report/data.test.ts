// The report's data blob: every string once, questions shared between systems, evidence text
// from the benchmark data, usage summed per role; and the page's inline-script escaping.
import { describe, expect, it } from 'vitest';
import { buildReportData } from '../../../src/report/data.js';
import type { ReportInputs, RunInput } from '../../../src/report/collect.js';
import { inlineSafe } from '../../../src/report/assets.js';
import { renderPage } from '../../../src/report/html.js';
import { analyse } from '../../../src/stats/compute-tables.js';
import type { Dataset } from '../../../src/core/schema.js';

const turn = (id: string, text: string) => ({ id, session: 's1', date: '1 May 2023', speaker: 'Ann', text, captions: [] });
const dataset: Dataset = {
  benchmark: 'locomo',
  episodes: [
    {
      id: 'conv-1',
      turns: [turn('D1:1', 'I adopted a cat.'), turn('D1:2', 'It is called </script><b>Tom</b>.'), turn('D1:3', 'We went hiking.')],
    },
  ],
  questions: [],
  source: { path: 'x', sha256: '', bytes: 0, version: '' },
  warnings: [],
};

function rawragRun(system: string, answer: (i: number) => string, votes: (i: number) => number[]): RunInput {
  const items = [0, 1, 2, 3].map((i) => ({
    id: `conv-1:q${i}`,
    benchmark: 'locomo',
    episode: 'conv-1',
    type: i % 2 ? 'temporal' : 'single-hop',
    question: `Question ${i}?`,
    gold: 'Tom',
    gold_evidence: ['D1:2'],
    evidence_turns: i === 3 ? ['D1:1', 'D1:3'] : ['D1:2', 'D1:1'],
    coverage: { all: i !== 3, any: i !== 3 },
    answer: answer(i),
    score: votes(i).reduce((a, b) => a + b, 0) / 3,
    details: {
      judge: {
        model: 'gpt-4o-mini',
        votes: votes(i),
        runs: votes(i).map((v) => ({ verdict: v, raw: v ? '{"label": "CORRECT"}' : '{"label": "WRONG"}' })),
      },
      usage: { reader: { prompt_tokens: 100, completion_tokens: 5, cost_usd: 0.001, requests: 1, cache_hits: 0 } },
    },
    error: null,
  }));
  return {
    dir: `/x/${system}`,
    label: system,
    items,
    summary: null,
    manifest: {
      system,
      config: { benchmark: 'locomo', reader: { model: 'gpt-4o-mini' }, judge: { model: 'gpt-4o-mini' } },
      policy: { serialisation: 'message' },
      timings: { ingest_ms: 10 },
    },
    loaded: {
      dir: `/x/${system}`,
      label: system,
      system,
      reference: system.startsWith('RAW-RAG/'),
      source: system.startsWith('RAW-RAG/') ? system.slice(8) : null,
      benchmark: 'locomo',
      setting: 'locomo/gpt-4o-mini',
      status: 'complete',
      notes: [],
      items: items.map((i) => ({
        id: i.id,
        score: i.score,
        type: i.type,
        coverage: i.coverage.all,
        votes: i.details.judge.votes,
        episode: 'conv-1',
        meta: null,
        error: null,
      })),
    },
  };
}

const a = rawragRun(
  'RAW-RAG/local',
  () => 'Tom',
  (i) => (i === 3 ? [0, 0, 1] : [1, 1, 1]),
);
const b = rawragRun(
  'RAW-RAG/openai',
  (i) => (i < 2 ? 'Tom' : 'no idea'),
  (i) => (i < 2 ? [1, 1, 1] : [0, 0, 0]),
);
// An external system: bare ids and scores, no text.
const ext: RunInput = {
  dir: '/x/ext',
  label: 'ext',
  summary: null,
  manifest: { system: 'Mem0' },
  items: [0, 1, 2, 3].map((i) => ({ id: `conv-1:q${i}`, score: i % 2, judge: [i % 2, i % 2, i % 2] })),
  loaded: {
    dir: '/x/ext',
    label: 'ext',
    reference: false,
    source: null,
    system: 'Mem0',
    benchmark: 'locomo',
    setting: 'locomo/gpt-4o-mini',
    status: null,
    notes: [],
    items: [0, 1, 2, 3].map((i) => ({
      id: `conv-1:q${i}`,
      score: i % 2,
      type: null,
      coverage: null,
      votes: [i % 2, i % 2, i % 2],
      episode: null,
      meta: null,
      error: null,
    })),
  },
};
const runs = [ext, a, b];
const inputs: ReportInputs = {
  runs,
  stats: analyse(
    runs.map((r) => r.loaded),
    { resamples: 500, seed: 0, allPairs: false },
  ),
  statsSource: 'test',
  ablations: [],
  datasets: new Map<RunInput, Dataset | null>([
    [a, dataset],
    [b, dataset],
    [ext, null],
  ]),
  notes: [],
};
const data = buildReportData(inputs, { version: '0', libraries: {} });

describe('report data', () => {
  it('stores every string once and each question once across systems', () => {
    expect(new Set(data.s).size).toBe(data.s.length);
    expect(data.questions).toHaveLength(4);
    expect(data.s.filter((x) => x === 'Question 1?')).toHaveLength(1);
    // All three runs point at the same question rows.
    for (const r of data.runs) expect(r.rows.map((row) => row[0]).sort()).toEqual([0, 1, 2, 3]);
  });

  it('fills question text from a rawrag run when an external run came first', () => {
    const q1 = data.questions.find((q) => data.s[q[1]] === 'conv-1:q1')!;
    expect(data.s[q1[3]]).toBe('Question 1?');
    expect(data.s[q1[2]]).toBe('temporal');
    expect(q1[5].map((t) => data.s[data.turns[2 * t]!])).toEqual(['D1:2']);
  });

  it('keeps the evidence as the reader saw it: serialised turns in the order shown, each turn text once', () => {
    const row = data.runs[1]!.rows.find((r) => data.s[data.questions[r[0]]![1]] === 'conv-1:q3')!;
    const shown = row[6].map((t) => [data.s[data.turns[2 * t]!], data.s[data.turns[2 * t + 1]!]]);
    expect(shown).toEqual([
      ['D1:1', '[1 May 2023] Ann: I adopted a cat.'],
      ['D1:3', '[1 May 2023] Ann: We went hiking.'],
    ]);
    expect(row[5]).toBe(0);
    expect(data.turns.length / 2).toBe(3);
    expect(data.runs[0]!.evidence_text).toBe(false);
    expect(data.runs[1]!.evidence_text).toBe(true);
  });

  it('keeps judge votes with their raw replies, and sums usage per role', () => {
    const row = data.runs[1]!.rows[3]!;
    expect(row[3]).toEqual([0, 0, 1]);
    expect(row[4].map((i) => data.s[i])).toEqual(['{"label": "WRONG"}', '{"label": "WRONG"}', '{"label": "CORRECT"}']);
    expect(data.runs[1]!.usage.reader).toEqual({ prompt_tokens: 400, completion_tokens: 20, cost_usd: 0.004, requests: 4, cache_hits: 0 });
    expect(data.runs[0]!.usage).toEqual({});
  });

  it('renders a page whose inline data cannot close its script element', () => {
    const html = renderPage(data);
    const blob = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(blob).not.toContain('</script');
    expect(JSON.parse(blob).s).toContain('[1 May 2023] Ann: It is called </script><b>Tom</b>.');
    expect(inlineSafe('a("</script>");\n//# sourceMappingURL=x.js.map\n')).toBe('a("<\\/script>");\n');
  });
});
