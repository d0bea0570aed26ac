/**
 * `rawrag run beam --reader ...` end to end through a loopback OpenAI-compatible server: the
 * reader gets the official RAG prompt, the multi-request judge asks once per rubric item (and the
 * equivalence classifier for event ordering) three times, and the summary applies the official
 * aggregation. The server is a protocol peer with deterministic replies:
 *   reader: event-ordering questions are answered with their rubric items, first two swapped;
 *           every other question with "Four hours.";
 *   judge:  every rubric item scores 0.5; the equivalence classifier says YES for identical snippets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, type RecordedRequest } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { orderingScore } from '../../src/benchmarks/beam/ordering.js';

const CONV = join(ROOT, 'tests/fixtures/beam/100K/5');
const probing = JSON.parse(readFileSync(join(CONV, 'probing_questions/probing_questions.json'), 'utf8'));
const ordering: Array<{ question: string; rubric: string[] }> = probing.event_ordering;
const swapped = (r: string[]) => [r[1]!, r[0]!, ...r.slice(2)];
const rubricQuestions = Object.entries(probing)
  .filter(([a]) => a !== 'event_ordering')
  .flatMap(([, qs]) => qs as Array<{ question: string; rubric: string[] }>);
// Every non-ordering answer is the same text, so a judge prompt is identified by (question, item)
// when <question> is filled, and by the item alone when it stays literal (official defect).
const distinctFixed = new Set(rubricQuestions.flatMap((q) => q.rubric.map((r) => `${q.question}\u0000${r}`))).size;
const distinctOfficial = new Set(rubricQuestions.flatMap((q) => q.rubric)).size;

function chat(body: any): string {
  const msgs = body.messages as Array<{ role: string; content: string }>;
  const text = msgs.map((m) => m.content).join('\n');
  if (text.includes('You are a binary classifier.')) {
    const m = /First snippet: ([\s\S]*) \n\n {23}Second snippet: ([\s\S]*)\n {20}$/.exec(msgs[1]!.content)!;
    return m[1] === m[2] ? 'YES' : 'NO';
  }
  if (text.includes('RUBRIC CRITERION (what to check)')) return '{"score": 0.5, "reason": "partly"}';
  const q = /QUESTION:\n([\s\S]*?)\n\nANSWER REQUIREMENTS:/.exec(text)?.[1];
  const eo = ordering.find((o) => o.question === q);
  return eo ? swapped(eo.rubric).join('\n') : 'Four hours.';
}

const env = { OPENAI_API_KEY: 'sk-test-beam', RAWRAG_RETRY_BASE_MS: '5', OPENAI_BASE_URL: undefined, RAWRAG_CACHE_DIR: undefined };

describe('rawrag run beam with a reader and the 3x multi-request judge (loopback API)', () => {
  const api = new FakeApi({ chat });
  const runs: Record<string, { code: number; summary: any; items: any[]; requests: RecordedRequest[] }> = {};

  beforeAll(async () => {
    await api.start();
    for (const variant of ['fixed', 'official'] as const) {
      const out = join(tempDir('rawrag-beam-judged-'), 'run');
      const before = api.requests.length;
      const r = await rawragInProcess(
        [
          'run',
          'beam',
          '--data',
          CONV,
          '--reader',
          'gpt-4o-mini',
          '--json',
          '--out',
          out,
          '--reader-base-url',
          `${api.url}/v1`,
          '--judge-base-url',
          `${api.url}/v1`,
          '--cache-dir',
          tempDir(),
          '--no-progress',
          // The official rubric is the default; the corrected one is asked for.
          ...(variant === 'fixed' ? ['-B', 'beam-rubric=corrected'] : []),
        ],
        env,
      );
      if (r.code !== 0) throw new Error(`rawrag failed (${r.code}): ${r.stderr}`);
      runs[variant] = {
        code: r.code,
        summary: JSON.parse(r.stdout),
        items: readFileSync(join(out, 'items.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
        requests: api.requests.slice(before),
      };
    }
  }, 240_000);
  afterAll(() => api.close());

  it('sends the official RAG prompt to the reader and one judge request per rubric item and run', () => {
    const { requests } = runs.fixed!;
    const reader = requests.filter((r) =>
      JSON.stringify(r.body.messages).includes('You are an assistant that MUST answer questions using ONLY'),
    );
    expect(reader).toHaveLength(20);
    expect(reader.every((r) => r.body.model === 'gpt-4o-mini' && r.body.temperature === 0)).toBe(true);
    // answer_generation.py sends no max_tokens: neither does rawrag (summaries and orderings are not cut).
    expect(reader.every((r) => !('max_tokens' in r.body))).toBe(true);
    const judge = requests.filter((r) => JSON.stringify(r.body.messages).includes('RUBRIC CRITERION (what to check)'));
    expect(judge).toHaveLength(distinctFixed * 3);
    expect(judge.every((r) => r.body.model === 'gpt-4.1-mini' && r.body.temperature === 0)).toBe(true);
    expect(judge.every((r) => !r.body.messages[0].content.includes('(what the user asked): <question>\n'))).toBe(true);
  });

  it('scores nine abilities as rubric means and event ordering by tau_norm, 3 runs each', () => {
    const { items, summary } = runs.fixed!;
    expect(items.every((i) => i.error === null)).toBe(true);
    for (const i of items) {
      expect(i.details.judge.votes).toHaveLength(3);
      const want =
        i.type === 'event_ordering'
          ? orderingScore(ordering[Number(i.id.split(':')[2])]!.rubric, swapped(ordering[Number(i.id.split(':')[2])]!.rubric)).tau_norm
          : 0.5;
      expect(i.score, i.id).toBeCloseTo(want, 12);
    }
    const eo = items.filter((i) => i.type === 'event_ordering').sort((x, y) => x.id.localeCompare(y.id));
    expect(eo[0].id).toBe('100K/5:event_ordering:0');
    expect(eo[0].details.judge.runs[0].details).toMatchObject({ precision: 1, recall: 1, f1: 1, matched_to: [1, 0, 2, 3, 4, 5] });
    const eoMean = eo.reduce((s: number, i: any) => s + i.score, 0) / 2;
    const b = summary.benchmark_summary;
    expect(b.headline['100K']).toBeCloseTo((9 * 0.5 + eoMean) / 10, 12);
    expect(b.sizes['100K'].headline_corrected_rubric).toBeCloseTo((9 * 0.5 + eoMean) / 10, 12);
    expect(b.sizes['100K'].headline_official_rubric).toBeCloseTo(eoMean / 10, 12);
    expect(b.scoring.variant).toBe('corrected');
  });

  it('by default (the official rubric): the literal <question> reaches the judge and 0.5 truncates to 0', () => {
    const { items, summary, requests } = runs.official!;
    const judge = requests.filter((r) => JSON.stringify(r.body.messages).includes('RUBRIC CRITERION (what to check)'));
    // Questions sharing a rubric item now send the same prompt (sent once); none came from the fixed run.
    expect(distinctOfficial).toBeLessThan(distinctFixed);
    expect(judge).toHaveLength(distinctOfficial * 3);
    expect(judge.every((r) => r.body.messages[0].content.includes('- QUESTION (what the user asked): <question>\n'))).toBe(true);
    expect(items.filter((i) => i.type !== 'event_ordering').every((i) => i.score === 0)).toBe(true);
    expect(summary.benchmark_summary.scoring.variant).toBe('official');
    expect(summary.benchmark_summary.headline['100K']).toBeCloseTo(
      runs.fixed!.summary.benchmark_summary.sizes['100K'].headline_official_rubric,
      12,
    );
    // The corrected rubric from the same replies is beside it.
    expect(summary.benchmark_summary.sizes['100K'].headline_corrected_rubric).toBeGreaterThan(summary.benchmark_summary.headline['100K']);
  });
});
