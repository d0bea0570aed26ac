/**
 * `rawrag run personamem` end to end through the real CLI: offline (coverage only), then a reader
 * through a loopback OpenAI-compatible server under both multiple-choice protocols.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const DATA = join(ROOT, 'tests/fixtures/personamem');
const ENV = { OPENAI_API_KEY: 'sk-test-personamem', OPENAI_BASE_URL: undefined, RAWRAG_CACHE_DIR: undefined, RAWRAG_RETRY_BASE_MS: '5' };

describe('rawrag run personamem (offline, local retriever)', () => {
  const out = join(tempDir(), 'run');
  let r: CliResult;
  beforeAll(async () => {
    r = await rawragInProcess(['run', 'personamem', '--data', DATA, '--out', out, '--no-progress']);
  });

  it('runs the 8 rows over 2 persona histories with coverage per preference type', async () => {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('RAW-RAG/local on personamem — 8 questions, 0 errors');
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.by_type.map((t: { type: string }) => t.type)).toEqual([
      'stereotypical_pref',
      'anti_stereotypical_pref',
      'neutral_preferences',
      'therapy_background',
      'health_and_medical_conditions',
      'ask_to_forget',
      'sensitive_info',
    ]);
    expect(summary.overall.coverage.n).toBe(8);
    expect(summary.benchmark_summary.protocol).toBe('verl');
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.dataset.version).toBe('HF bowen-upenn/PersonaMem-v2 benchmark/text/benchmark.csv; 32k histories; mcq protocol verl');
  });

  it('fails loudly, naming the file, on a CSV path that does not exist', async () => {
    const bad = await rawragInProcess([
      'run',
      'personamem',
      '--data',
      join(DATA, 'missing.csv'),
      '--out',
      join(tempDir(), 'x'),
      '--no-progress',
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('missing.csv');
  });
});

/** Reader replies by query: a fixed letter per row (row 7 gives no letter at all). */
const VERL_REPLIES: Record<string, string> = {
  'Can you suggest a dinner recipe for tonight?': '<think>vegetarian</think>\n\\boxed{d}',
  "I'm writing to my manager about a deadline slip, can you draft it?": '<think>x</think> \\boxed{a}',
  'Help me plan a trip from Boston to New York next month.': '<think>train</think>\nFinal answer: \\boxed{b}',
  'Any ideas for a weekend activity? I want something "fun".': '$\\boxed{A}$',
  'What should I mention to my new physiotherapist about my history?': 'Answer: b',
  'Suggest a dessert I can bring to the potluck.': 'The answer is c',
  'Draft a short bio for my volunteering profile.': '\\boxed{a}',
  'What birthday gift should I get for my daughter?': 'A telescope would be lovely!',
};

function reader(body: { messages: Array<{ role: string; content: string }> }): string {
  const users = body.messages.filter((m) => m.role === 'user').map((m) => m.content);
  for (const [q, reply] of Object.entries(VERL_REPLIES)) if (users.some((u) => u.startsWith(q))) return reply;
  return 'no idea';
}

describe('rawrag run personamem --reader through a loopback API', () => {
  const api = new FakeApi({ chat: reader });
  const verlOut = join(tempDir(), 'verl');
  const frontierApi = new FakeApi({ chat: () => 'Thinking it over.\nFinal Answer: D' });
  const frontierOut = join(tempDir(), 'frontier');
  let verl: { code: number; stdout: string; stderr: string };
  let frontier: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    await api.start();
    await frontierApi.start();
    const common = ['--data', DATA, '--reader', 'gpt-4o-mini', '--cache-dir', tempDir('rawrag-cache-'), '--no-progress', '--json'];
    verl = await rawragInProcess(['run', 'personamem', ...common, '--out', verlOut, '--reader-base-url', `${api.url}/v1`], ENV);
    frontier = await rawragInProcess(
      ['run', 'personamem', ...common, '--out', frontierOut, '-B', 'mcq-protocol=frontier', '--reader-base-url', `${frontierApi.url}/v1`],
      ENV,
    );
  }, 120_000);
  afterAll(async () => {
    await api.close();
    await frontierApi.close();
  });

  it('scores the letter read from each reply; accuracy overall and per preference type, no judge call', async () => {
    expect(verl.code, verl.stderr).toBe(0);
    const s = JSON.parse(verl.stdout);
    const b = s.benchmark_summary;
    expect(b.overall).toMatchObject({ n: 8, correct: 4, accuracy: 0.5 });
    const acc = Object.fromEntries(Object.entries(b.by_pref_type as Record<string, { accuracy: number }>).map(([k, v]) => [k, v.accuracy]));
    expect(acc).toEqual({
      stereotypical_pref: 0.5,
      anti_stereotypical_pref: 1,
      neutral_preferences: 0,
      therapy_background: 1,
      health_and_medical_conditions: 1,
      ask_to_forget: 0,
      sensitive_info: 0,
    });
    expect(b.by_who.others.accuracy).toBe(0);
    expect(b.by_who.self.correct).toBe(4);
    expect(b.no_letter).toBe(1);
    expect(s.overall.accuracy).toBe(0.5);
    expect(api.count('/v1/chat/completions')).toBe(8); // readers only
  });

  it('sends the verl layout: two system messages, history, then the query with (a)-(d) options', async () => {
    const req = api.byPath('/v1/chat/completions')[0]!.body;
    expect(req.temperature).toBe(0);
    // rag/inference_rag.py: max_tokens 1024 (the <think> reasoning must fit before the letter).
    expect(api.byPath('/v1/chat/completions').every((x) => x.body.max_tokens === 1024)).toBe(true);
    expect(req.messages[0].role).toBe('system');
    expect(req.messages[1].content).toMatch(/^The following are relevant excerpts/);
    const last = req.messages.at(-1);
    expect(last.role).toBe('user');
    expect(last.content).toMatch(/\n\(a\) .*\n\(b\) .*\n\(c\) .*\n\(d\) /);
    expect(
      req.messages.some((m: { content: string }) =>
        m.content.includes('You are an AI assistant helping a user with the following persona'),
      ),
    ).toBe(false);
  });

  it('runs the frontier protocol when asked, and records it', async () => {
    expect(frontier.code, frontier.stderr).toBe(0);
    const s = JSON.parse(frontier.stdout);
    expect(s.benchmark_summary.protocol).toBe('frontier');
    expect(s.benchmark_summary.overall).toMatchObject({ n: 8, correct: 4 }); // rows whose correct option landed on D
    const manifest = JSON.parse(readFileSync(join(frontierOut, 'manifest.json'), 'utf8'));
    expect(manifest.config.options).toEqual({ mcqProtocol: 'frontier' });
    expect(manifest.dataset.version).toContain('mcq protocol frontier');
    const req = frontierApi.byPath('/v1/chat/completions')[0]!.body;
    expect(req.messages.at(-1).role).toBe('system');
    // inference.py sends no max_tokens.
    expect(frontierApi.byPath('/v1/chat/completions').every((x) => !('max_tokens' in x.body))).toBe(true);
    expect(req.messages.at(-1).content).toMatch(/^Please choose the best answer from the following options:\n\nA\. /);
  });
});
