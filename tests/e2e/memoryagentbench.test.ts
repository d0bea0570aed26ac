/**
 * MemoryAgentBench end to end through the real CLI:
 * - offline (no keys) on the shared real row and on the constructed rows of every source;
 * - with a reader and the official judges against a loopback OpenAI-protocol server whose replies
 *   are fixed per question, so every per-source, per-competency and Overall figure is known.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const FIX = join(ROOT, 'tests', 'fixtures', 'memoryagentbench');
const SAMPLE = join(FIX, 'Conflict_Resolution.sample.json');
const CONSTRUCTED = join(FIX, 'constructed');

const readJsonl = (f: string) =>
  readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const readJson = (f: string) => JSON.parse(readFileSync(f, 'utf8'));

describe('rawrag run memoryagentbench, offline', () => {
  test('the shared row: one chunk per numbered fact, answer-in-evidence per item and summarised', async () => {
    const out = join(tempDir(), 'run');
    const r = await rawragInProcess(['run', 'memoryagentbench', '--data', SAMPLE, '-B', 'subset=all', '--out', out, '--no-progress']);
    expect(r.stderr).toMatch(/partial Conflict_Resolution input/);
    expect(r.code).toBe(0);
    const items = readJsonl(join(out, 'items.jsonl'));
    expect(items).toHaveLength(100);
    for (const it of items) {
      expect(it.retrieved).toHaveLength(15);
      for (const c of it.retrieved) {
        // chunk <episode>#N holds exactly fact N
        expect(c.turns).toEqual([`fact-${c.chunk.split('#')[1]}`]);
      }
      expect([0, 1]).toContain(it.metrics.answer_in_evidence);
    }
    const s = readJson(join(out, 'summary.json')).benchmark_summary;
    const hits = items.filter((i: any) => i.metrics.answer_in_evidence === 1).length;
    expect(s.sources[0]).toMatchObject({ source: 'factconsolidation_sh_6k', competency: 'CR', n: 100, answer_in_evidence: hits });
    expect(s.competencies).toEqual([expect.objectContaining({ competency: 'CR', answer_in_evidence: hits })]);
    expect(s.overall.competencies_with_evidence).toBe(1);
    const manifest = readJson(join(out, 'manifest.json'));
    expect(manifest.policy).toMatchObject({ serialisation: 'plain', expandToTurns: false });
  });

  test('the default paper subset on the 6k sample says how to select it', async () => {
    const r = await rawragInProcess(['run', 'memoryagentbench', '--data', SAMPLE, '--out', join(tempDir(), 'x'), '--no-progress']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no question selected .*-B subset=all or -B sources/);
  });

  test('constructed rows of every source: all four competencies and an Overall', async () => {
    const out = join(tempDir(), 'run');
    const r = await rawragInProcess(['run', 'memoryagentbench', '--data', CONSTRUCTED, '--out', out, '--no-progress', '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout).benchmark_summary;
    expect(s.competencies.map((c: any) => c.competency)).toEqual(['AR', 'TTL', 'LRU', 'CR']);
    expect(s.overall.competencies_with_evidence).toBe(4);
    expect(typeof s.overall.answer_in_evidence).toBe('number');
    const items = readJsonl(join(out, 'items.jsonl'));
    expect(items).toHaveLength(15);
    // window sources: evidence = chunks, not expanded turns
    const ruler = items.find((i: any) => i.type === 'ruler_qa1_197K');
    expect(ruler.evidence_turns.length).toBeGreaterThan(0);
    expect(items.find((i: any) => i.type === 'factconsolidation_sh_262k').retrieved).toHaveLength(5);
  });
});

// ---- with a reader and the official judges (loopback API) ----

const READER_REPLIES: Array<[RegExp, string]> = [
  [/What region in France did the Normans/, 'Normandy'],
  [/Where was Super Bowl 50 played/, 'Paris'],
  [/name of the greyhound/, 'Biscuit'],
  [/Below is a list of possible subsequent events/, 'Mara climbed the spiral stairs'],
  [/Question:I cannot find my new card/, '7'],
  [/Question:the shop declined my card/, 'label: 43'],
  [/Here is the conversation: User: I want a mind-bending/, '1. The Matrix\n2. Inception'],
  [/Now summarize the book\./, 'Eleanor arrives at the house. She leaves at dawn.'],
  [/Who killed Lord Ashby/, 'C. The Brandt couple'],
  [/How was the window opened/, '{"answer": "B. From the outside"}'],
  [/Knowledge Pool, What is the capital of Freedonia/, 'Answer: Sylvania City'],
  [/Knowledge Pool, Who is the author of Dune/, 'Frank Herbert'],
];

function oracle(body: any): string {
  const user: string = body.messages.map((m: any) => m.content).join('\n');
  if (user.includes('Answer yes or no only.')) return /Model Response: Biscuit\n/.test(user) ? 'yes' : 'no';
  if (user.startsWith('Please act as an impartial judge and evaluate the fluency')) return 'Fine. {"fluency": 1}';
  if (user.includes('evaluate the summary using the rubric') && user.includes('Key points:\n1. Eleanor'))
    return '{"supported_key_points": [1, 2, 3], "recall": 3}';
  if (user.includes('Expert summary: <start of summary>[')) return 'Output: {"precision": 1, "sentence_count": 2}';
  for (const [re, reply] of READER_REPLIES) if (re.test(user)) return reply;
  return "I don't know";
}

describe('rawrag run memoryagentbench --reader through a loopback API', () => {
  const api = new FakeApi({ chat: oracle });
  const out = join(tempDir(), 'run');
  let r: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    await api.start();
    r = await rawragInProcess(
      [
        'run',
        'memoryagentbench',
        '--data',
        CONSTRUCTED,
        '--reader',
        'gpt-4o-mini',
        '--judge',
        'gpt-4o-mini',
        '--out',
        out,
        '--json',
        '--reader-base-url',
        `${api.url}/v1`,
        '--judge-base-url',
        `${api.url}/v1`,
        '--cache-dir',
        tempDir('rawrag-cache-'),
        '--no-progress',
      ],
      { OPENAI_API_KEY: 'sk-test-MAB0123456789', RAWRAG_RETRY_BASE_MS: '5', OPENAI_BASE_URL: undefined, RAWRAG_CACHE_DIR: undefined },
    );
  });
  afterAll(async () => {
    await api.close();
  });

  test('ablate reports the Δ and Holm p that rawrag stats reports for the same folders (competency macro)', async () => {
    // A server of its own: the other tests count this describe's requests.
    const own = await new FakeApi({ chat: oracle }).start();
    const ab = join(tempDir(), 'ab');
    const env = {
      OPENAI_API_KEY: 'sk-test-MAB0123456789',
      RAWRAG_RETRY_BASE_MS: '5',
      OPENAI_BASE_URL: undefined,
      RAWRAG_CACHE_DIR: undefined,
    };
    const common = [
      '--data',
      CONSTRUCTED,
      '--reader',
      'gpt-4o-mini',
      '--judge',
      'gpt-4o-mini',
      '--reader-base-url',
      `${own.url}/v1`,
      '--judge-base-url',
      `${own.url}/v1`,
    ];
    const a = await rawragInProcess(
      [
        'ablate',
        'memoryagentbench',
        ...common,
        '--k',
        '1',
        '--resamples',
        '2000',
        '--out',
        ab,
        '--no-progress',
        '--no-report',
        '--cache-dir',
        tempDir('rawrag-cache-'),
      ],
      env,
    );
    expect(a.code, a.stderr.slice(-2000)).toBe(0);
    const table = JSON.parse(readFileSync(join(ab, 'ablation.json'), 'utf8')).table;
    const k1 = table.find((row: { variant: string }) => row.variant === 'k=1');
    const st = await rawragInProcess(['stats', ab, '--resamples', '2000', '--json', '--no-report', '--out', join(tempDir(), 'stats')], env);
    expect(st.code, st.stderr).toBe(0);
    const fam = JSON.parse(st.stdout).families[0];
    expect(fam.aggregation.overall).toBe('macro');
    const pair = fam.pairwise.find((p: { system_a: string; system_b: string }) => [p.system_a, p.system_b].includes(k1.system));
    expect(k1.delta).toBeCloseTo((pair.system_a === k1.system ? 1 : -1) * pair.delta, 12);
    expect(k1.p_holm).toBeCloseTo(pair.p_bootstrap_holm, 12);
    const ref = table.find((row: { is_default: boolean }) => row.is_default);
    expect(ref.accuracy).toBeCloseTo(
      fam.leaderboard.find((row: { system: string }) => row.system === ref.system).columns.overall.accuracy,
      12,
    );
    await own.close();
  }, 120_000);

  test('runs, with the official prompts on the wire', async () => {
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stderr).not.toMatch(/error:/);
    const chats = api.byPath('/v1/chat/completions').map((x) => x.body);
    const readers = chats.filter((b) => b.messages[0].role === 'system');
    expect(readers).toHaveLength(15);
    expect(readers[0].messages[0].content).toBe(
      'You are a helpful assistant that can read the context and memorize it for future retrieval.',
    );
    // The official reader budget per source (data YAML generation_max_length).
    const budget = (marker: string) => [...new Set(readers.filter((b) => b.messages[1].content.includes(marker)).map((b) => b.max_tokens))];
    expect(budget('The event that happens next is:')).toEqual([40]);
    expect(budget('Answer the question based on the memorized documents.')).toEqual([50]);
    expect(budget('Now summarize the book.')).toEqual([1200]);
    expect(readers.every((b) => /^Memory 1:\n/.test(b.messages[1].content))).toBe(true);
    // 3 LongMemEval questions x 3 runs; 1 summary x 3 runs x 3 prompts
    const yesNo = chats.filter((b) => b.messages[0].content.includes('Answer yes or no only.'));
    expect(yesNo).toHaveLength(9);
    // longmem_qa_evaluate.py's budget for the verdict; the summary judges send none.
    expect(yesNo.map((b) => b.max_tokens)).toEqual(yesNo.map(() => 10));
    expect(
      chats.filter((b) => b.messages[0].content.startsWith('Please act as an impartial judge')).every((b) => b.max_tokens === undefined),
    ).toBe(true);
    expect(chats.filter((b) => b.messages[0].content.startsWith('Please act as an impartial judge'))).toHaveLength(9);
  });

  test('per-source official scores, task, competency and Overall', async () => {
    const s = JSON.parse(r.stdout).benchmark_summary;
    const score = Object.fromEntries(s.sources.map((x: any) => [x.source, x.score]));
    expect(score['ruler_qa1_197K']).toBe(50);
    expect(score['longmemeval_s*']).toBeCloseTo(100 / 3, 10);
    expect(score['eventqa_full']).toBe(100);
    expect(score['icl_banking77_5900shot_balance']).toBe(50);
    expect(score['recsys_redial_full']).toBe(50);
    expect(score['infbench_sum_eng_shots2']).toBeCloseTo((100 * 2) / 3, 10);
    expect(score['detective_qa']).toBe(50);
    expect(score['factconsolidation_sh_262k']).toBe(50);
    expect(score['factconsolidation_mh_262k']).toBe(0);
    const comp = Object.fromEntries(s.competencies.map((c: any) => [c.competency, c.score]));
    expect(comp.AR).toBeCloseTo((50 + 100 / 3 + 100) / 3, 10);
    expect(comp.TTL).toBe(50);
    expect(comp.LRU).toBeCloseTo((200 / 3 + 50) / 2, 10);
    expect(comp.CR).toBe(25);
    expect(s.overall.score).toBeCloseTo((comp.AR + comp.TTL + comp.LRU + comp.CR) / 4, 10);
    expect(s.overall.competencies_with_score).toBe(4);
  });

  test('items keep the official metric and the judge votes', async () => {
    const items = readJsonl(join(out, 'items.jsonl'));
    // Items are written as they finish (episodes overlap): compare in id order.
    const icl = items.filter((i: any) => i.type === 'icl_banking77_5900shot_balance').sort((a: any, b: any) => a.id.localeCompare(b.id));
    expect(icl.map((i: any) => [i.answer, i.metrics.official, i.score])).toEqual([
      ['7', 1, 1],
      ['label: 43', 0, 0],
    ]);
    const lme = items.find((i: any) => i.answer === 'Biscuit');
    expect(lme.details.judge.votes).toEqual([1, 1, 1]);
    const sum = items.find((i: any) => i.type === 'infbench_sum_eng_shots2');
    expect(sum.details.judge.runs[0].details).toMatchObject({ fluency: 1, recall: 3, keypoints: 3, precision: 1, sentence_count: 2 });
  });
});
