/**
 * `rawrag run longmemeval --reader ...` end to end through a loopback OpenAI-compatible server:
 * the reader gets the official prompt (history sessions as JSON, then `Current Date:`), the
 * official judge prompt is sent 3 times per answer to gpt-4o-2024-08-06 by default, and the
 * summary reports the official scores. The server is a protocol peer with deterministic replies:
 *   reader: the gold answer (read back from the sample) except for 01493427 ("no idea") and
 *           the abstention question ("I don't know; you never mentioned it.");
 *   judge:  "Yes." when the model response contains the correct answer, or admits not knowing
 *           for the unanswerable template; "No." otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const ORACLE = resolve(ROOT, 'tests/fixtures/longmemeval/longmemeval_oracle.sample.json');
const raw: Array<{ question_id: string; question: string; answer: string | number; question_date: string }> = JSON.parse(
  readFileSync(ORACLE, 'utf8'),
);

function chat(body: any): string {
  const text: string = body.messages.map((m: { content: string }) => m.content).join('\n');
  if (text.startsWith('I will give you an unanswerable question')) {
    return /Model Response: [^\n]*don't know/.test(text) ? 'Yes.' : 'No.';
  }
  if (text.startsWith('I will give you a question, a correct answer') || text.startsWith('I will give you a question, a rubric')) {
    const gold = /\n\n(?:Correct Answer|Rubric): ([\s\S]*?)\n\nModel Response: /.exec(text)![1]!;
    const response = /\n\nModel Response: ([\s\S]*?)\n\n(Is the model response correct\?)/.exec(text)![1]!;
    return response.includes(gold) ? 'Yes.' : 'No.';
  }
  const q = raw.find((r) => text.includes(`\nQuestion: ${r.question}\nAnswer (step by step):`))!;
  if (q.question_id.includes('_abs')) return "I don't know; you never mentioned it.";
  if (q.question_id === '01493427') return 'no idea';
  return `Step 1: look. Final answer: ${String(q.answer)}`;
}

const env = { OPENAI_API_KEY: 'sk-test-lme', RAWRAG_RETRY_BASE_MS: '5', OPENAI_BASE_URL: undefined, RAWRAG_CACHE_DIR: undefined };

describe('rawrag run longmemeval with a reader and the official judge (loopback API)', () => {
  const api = new FakeApi({ chat });
  let result: { code: number; stdout: string; stderr: string };
  let out = '';

  beforeAll(async () => {
    await api.start();
    out = join(tempDir('rawrag-lme-judged-'), 'run');
    result = await rawragInProcess(
      [
        'run',
        'longmemeval',
        '--data',
        ORACLE,
        '--reader',
        'gpt-4.1-mini',
        '--out',
        out,
        '--reader-base-url',
        `${api.url}/v1`,
        '--judge-base-url',
        `${api.url}/v1`,
        '--cache-dir',
        tempDir(),
        '--no-progress',
      ],
      env,
    );
  }, 120_000);
  afterAll(() => api.close());

  it('sends the official reader prompt and judges each answer 3 times with gpt-4o-2024-08-06', () => {
    expect(result.stderr + result.stdout).not.toMatch(/internal error/);
    expect(result.code).toBe(0);
    const chats = api.byPath('/v1/chat/completions').map((r) => r.body);
    const readerReqs = chats.filter((b) => b.model === 'gpt-4.1-mini');
    const judgeReqs = chats.filter((b) => b.model === 'gpt-4o-2024-08-06');
    expect(readerReqs).toHaveLength(7);
    expect(judgeReqs).toHaveLength(21);
    const kuQuestion = raw.find((r) => r.question_id === '01493427')!.question;
    const ku = readerReqs.find((b) => b.messages[0].content.includes(`\nQuestion: ${kuQuestion}\n`))!;
    expect(ku.max_tokens).toBe(800); // the official chain-of-note budget
    expect(ku.temperature).toBe(0);
    expect(ku.messages).toHaveLength(1);
    expect(ku.messages[0].role).toBe('user');
    expect(ku.messages[0].content).toMatch(
      /^I will give you several history chats between you and a user\. Please answer the question based on the relevant chat history\. Answer the question step by step/,
    );
    expect(ku.messages[0].content).toMatch(
      /\n### Session 1:\nSession Date: \d{4}\/\d{2}\/\d{2} \(\w{3}\) \d{2}:\d{2}\nSession Content:\n\n\[\{"role": "(user|assistant)", "content": "/,
    );
    expect(ku.messages[0].content).toContain('\n\nCurrent Date: 2023/12/20 (Wed) 22:41\nQuestion: ');
    expect(judgeReqs.every((b) => b.messages.length === 1 && b.messages[0].role === 'user')).toBe(true);
    // evaluate_qa.py's budget for the yes/no verdict.
    expect(judgeReqs.map((b) => b.max_tokens)).toEqual(judgeReqs.map(() => 10));
  });

  it('-B reading=direct sends the direct budget (run_generation.py: 500)', async () => {
    const direct = new FakeApi();
    await direct.start();
    try {
      const r = await rawragInProcess(
        [
          'run',
          'longmemeval',
          '--data',
          ORACLE,
          '--reader',
          'gpt-4.1-mini',
          '-B',
          'reading=direct',
          '--limit',
          '1',
          '--judge-runs',
          '1',
          '--out',
          join(tempDir(), 'run'),
          '--reader-base-url',
          `${direct.url}/v1`,
          '--judge-base-url',
          `${direct.url}/v1`,
          '--cache-dir',
          tempDir(),
          '--no-progress',
        ],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const readers = direct
        .byPath('/v1/chat/completions')
        .map((x) => x.body)
        .filter((b) => b.model === 'gpt-4.1-mini');
      expect(readers).toHaveLength(1);
      expect(readers[0].max_tokens).toBe(500);
    } finally {
      await direct.close();
    }
  }, 120_000);

  it('reports the official scores', () => {
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    // The human report states each judge run's accuracy beside their mean ± SD.
    const jr = summary.overall.judge_runs;
    expect(jr.runs).toBe(3);
    expect(result.stdout).toContain(
      `judge runs (overall accuracy of each of the 3 runs): ${jr.accuracy.map((a: number) => (100 * a).toFixed(2)).join(' / ')} %; mean ${(100 * jr.mean).toFixed(2)} ± ${(100 * jr.sd).toFixed(2)} (sample SD over runs)`,
    );
    const bs = summary.benchmark_summary;
    expect(bs.judged).toBe(7);
    expect(bs.overall).toEqual({ n: 7, accuracy: 6 / 7 });
    expect(bs.abstention).toEqual({ n: 1, accuracy: 1 });
    expect(bs.by_type['knowledge-update']).toEqual({ n: 1, accuracy: 0 });
    expect(bs.task_averaged.n).toBe(6);
    expect(bs.task_averaged.accuracy).toBeCloseTo(5 / 6, 12);
    expect(result.stdout).toMatch(/LongMemEval accuracy \(official judge prompts; 7 judged\)/);
    expect(result.stdout).toMatch(/\| task-averaged +\| +6 types \| +83\.33 \|/);
  });

  it('keeps the per-type table readable with a reader: metrics at depth k pivoted into their own table', () => {
    const lines = result.stdout.split('\n');
    const typeHeader = lines.find((l) => l.startsWith('| type '))!;
    // type, n, (n with evidence,) coverage all/any, accuracy: no metric@k column (there were 36).
    expect(typeHeader).not.toContain('@');
    expect(typeHeader.split('|').length - 2).toBeLessThanOrEqual(7);
    const at = lines.indexOf('Metrics at depth k, per question type (%):');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^\| metric +\| type +\| +@1 \| +@3 \| +@5 \| +@10 \| +@30 \| +@50 \|$/);
    // Each row is one metric of one type, its values those of summary.json by_type.
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const rows = lines.slice(at + 3).filter((l, i, all) => all.slice(0, i + 1).every((x) => x.startsWith('| ')));
    expect(rows.length).toBeGreaterThan(6);
    for (const row of rows) {
      const [metric, type, ...cells] = row
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      const figures = type === 'overall' ? summary.overall : summary.by_type.find((t: { type: string }) => t.type === type);
      const want = [1, 3, 5, 10, 30, 50].map((k) => figures.metrics[`${metric}@${k}`]);
      expect(cells, `${metric} ${type}`).toEqual(want.map((v) => (v === null || v === undefined ? '—' : (100 * v).toFixed(2))));
    }
  });
});
