/**
 * `rawrag calibrate-judge locomo` against a loopback judge that is deliberately lenient with vague
 * answers (as the "be generous" prompt is reported to be): gold acceptance and the false-accept
 * rate per perturbation kind and question type, Cohen's kappa against labels, a run directory that
 * `rawrag stats` reads, resume, dry run. In-process (src/cli/main.ts run), no child process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, isJudgeRequest } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const env = {
  OPENAI_API_KEY: 'sk-test-CALIBRATE0123456789',
  OPENAI_BASE_URL: undefined,
  RAWRAG_MODELS: undefined,
  RAWRAG_RETRY_BASE_MS: '5',
};

/** CORRECT when the answer contains the gold, or when it is vague ("some time", "a few", "something to do with"). */
export function lenientJudge(body: any): string {
  const text: string = (body.messages as Array<{ content: string }>).map((m) => m.content).join('\n');
  const m = /Gold answer: (.*)\nGenerated answer: ([\s\S]*?)\n\nFirst, provide/.exec(text);
  if (!m) return "I don't know";
  const [gold, answer] = [m[1]!.toLowerCase().trim(), m[2]!.toLowerCase()];
  const vague = /some time|a few|something to do with|someone|somewhere|a friend/.test(answer);
  return JSON.stringify({ label: answer.includes(gold) || vague ? 'CORRECT' : 'WRONG' });
}

describe('rawrag calibrate-judge locomo', () => {
  const api = new FakeApi({ chat: lenientJudge });
  const dir = tempDir();
  const labels = join(dir, 'labels.jsonl');
  const out = join(dir, 'cal');
  const args = (extra: string[] = []) => [
    'calibrate-judge',
    'locomo',
    '--limit',
    '30',
    '--labels',
    labels,
    '--judge-base-url',
    `${api.url}/v1`,
    '--cache-dir',
    join(dir, 'cache'),
    '--no-progress',
    '--out',
    out,
    ...extra,
  ];

  beforeAll(async () => {
    await api.start();
    // conv-26:q0's gold is "7 May 2023"; the judge accepts the first two and rejects the third: kappa 1 against these labels.
    writeFileSync(
      labels,
      [
        { id: 'conv-26:q0', answer: 'On 7 May 2023.', label: 'CORRECT' },
        { id: 'conv-26:q0', answer: '8 May 2023', label: 'WRONG' },
        { id: 'conv-26:q1', answer: 'It was 2022', label: true },
        { id: 'conv-26:q2', answer: 'In June', label: 0 },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
  });
  afterAll(() => api.close());

  it('dry run: the probes and their judge calls and cost, nothing sent', async () => {
    const r = await rawragInProcess(args(['--dry-run']), env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/dry run: calibrate the judge on \d+ probes on locomo/);
    expect(r.stdout).toContain('nothing was sent');
    expect(api.count()).toBe(0);
    expect(existsSync(out)).toBe(false);
  });

  it('reports gold acceptance and false-accept rates per kind and question type, with kappa against the labels', async () => {
    const r = await rawragInProcess(args(['--json']), env);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    const f = JSON.parse(r.stdout);
    expect(f.questions).toBe(30);
    expect(f.judge).toMatchObject({ model: 'gpt-4o-mini', runs: 3, protocol: 'locomo-mem0-accuracy-v1' });
    // Every gold answer contains itself: all accepted.
    expect(f.overall.gold).toMatchObject({ n: 30, accepted: 30, rate: 1 });
    // Vague answers: the lenient judge takes them; specific-but-wrong ones mostly not.
    expect(f.overall.false_accept.vague.rate).toBeGreaterThan(0.8);
    expect(f.overall.false_accept.specific.rate).toBeLessThan(0.3);
    expect(f.overall.false_accept.specific.ci95.low).toBeLessThanOrEqual(f.overall.false_accept.specific.rate);
    expect(f.by_type.map((t: { type: string }) => t.type)).toEqual(['multi-hop', 'temporal', 'open-domain']);
    const temporal = f.by_type.find((t: { type: string }) => t.type === 'temporal');
    expect(temporal.false_accept.vague.n).toBeGreaterThan(0);
    expect(f.labels).toMatchObject({ n: 4, agreement: 1, kappa: 1 });
    // Without labels the margin comes from the probes (the worse wrong kind); with them, from the labelled answers.
    expect(f.trust_probes).toMatchObject({ basis: 'probes', worst_kind: 'vague' });
    expect(f.trust_probes.trusted_to).toBeCloseTo(f.overall.false_accept.vague.ci95.high, 10);
    expect(f.trust.basis).toBe('labels');
    expect(f.trust.trusted_to).toBeCloseTo(Math.max(f.labels.accepted_wrong.ci95.high, 1 - f.labels.accepted_correct.ci95.low), 10);
    // The judge exactly as run applies it: 3 requests per probe, json_object, temperature 0, the official prompt.
    const judged = api.byPath('/v1/chat/completions').filter(isJudgeRequest);
    const probes = readFileSync(join(out, 'items.jsonl'), 'utf8').trim().split('\n').length;
    expect(judged).toHaveLength(3 * probes);
    expect(judged[0]!.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0, response_format: { type: 'json_object' } });
    expect(JSON.stringify(judged[0]!.body.messages)).toContain('you should be generous with your grading');
    // The run directory: calibration.json beside summary.json (which holds the same figures).
    const written = JSON.parse(readFileSync(join(out, 'calibration.json'), 'utf8'));
    expect(written.overall).toEqual(f.overall);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).calibration.overall).toEqual(f.overall);
    const item = JSON.parse(readFileSync(join(out, 'items.jsonl'), 'utf8').split('\n')[0]!);
    expect(item.meta.calibration.kind).toMatch(/gold|specific|vague|label/);
  });

  it('the same command resumes (nothing sent); the text report names the trust margin; stats shows the calibration', async () => {
    const before = api.count();
    const r = await rawragInProcess(args(), env);
    expect(r.code).toBe(0);
    expect(api.count()).toBe(before);
    expect(r.stdout).toMatch(/Judge calibration on locomo: judge gpt-4o-mini x3/);
    expect(r.stdout).toMatch(/\| overall +\|/);
    expect(r.stdout).toMatch(/trust a score to ±\d+\.\d\d points/);
    const s = await rawragInProcess(['stats', out, '--out', join(dir, 'stats'), '--no-report'], env);
    expect(s.code).toBe(0);
    expect(s.stdout).toContain('## Judge calibration');
    expect(s.stdout).toMatch(/gold accepted 100\.00 %/);
    expect(JSON.parse(readFileSync(join(dir, 'stats', 'stats.json'), 'utf8')).judge_calibration).toHaveLength(1);
  });

  it('a label that is not CORRECT/WRONG is an input error naming the line; nothing is written', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"id": "conv-26:q0", "answer": "x", "label": "maybe"}\n');
    const r = await rawragInProcess(
      ['calibrate-judge', 'locomo', '--labels', bad, '--out', join(dir, 'bad'), '--judge-base-url', `${api.url}/v1`],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.jsonl.*line 1.*CORRECT or WRONG/);
    expect(existsSync(join(dir, 'bad'))).toBe(false);
  });
});
