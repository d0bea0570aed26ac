/**
 * `rawrag judge`: outside answers through the same pipeline as `rawrag run`, against a loopback
 * OpenAI-compatible judge. The judge requests are the very requests `run` sends for the same
 * answer; the run directory is stats-ready, resumable, and its failures are redone by --retry-errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, defaultChat, isJudgeRequest, readerQuestion } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const picked = [...ds.questions.slice(0, 4), ...ds.questions.filter((q) => q.episode === 'conv-30').slice(0, 2)];
const env = {
  OPENAI_API_KEY: 'sk-test-JUDGESECRET0123456789',
  OPENAI_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
  RAWRAG_MODELS: undefined,
  RAWRAG_RETRY_BASE_MS: '5',
};

/** Even positions answer with the gold, odd ones do not; the first two give their gold evidence, the third half of it. */
function answerLines(): string {
  return (
    picked
      .map((q, i) => {
        const line: Record<string, unknown> = { id: q.id, answer: i % 2 === 0 ? `It was ${q.gold}.` : 'No idea.' };
        if (i < 2) line.evidence = q.evidence;
        if (i === 2) line.evidence = q.evidence.slice(0, 1).concat(['D1:1']);
        return JSON.stringify(line);
      })
      .join('\n') + '\n'
  );
}

describe('rawrag judge ANSWERS.jsonl --benchmark locomo', () => {
  // The reader of the comparison run answers the first question with the same text the file gives.
  const api = new FakeApi({ chat: (b) => (readerQuestion(b) === picked[0]!.text ? `It was ${picked[0]!.gold}.` : defaultChat(b)) });
  const dir = tempDir();
  const answers = join(dir, 'answers.jsonl');
  const cache = join(dir, 'cache');
  const args = (out: string, extra: string[] = []) => [
    'judge',
    answers,
    '--benchmark',
    'locomo',
    '--system',
    'my-memory',
    '--setting',
    'locomo/gpt-4o-mini',
    '--judge-base-url',
    `${api.url}/v1`,
    '--cache-dir',
    cache,
    '--no-progress',
    '--out',
    join(dir, out),
    ...extra,
  ];
  // items.jsonl is in completion order (questions run concurrently): read back in the answers' order.
  const items = (out: string) => {
    const byId = new Map(
      readFileSync(join(dir, out, 'items.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((i) => [i.id, i]),
    );
    return picked.map((q) => byId.get(q.id)).filter(Boolean);
  };

  beforeAll(async () => {
    await api.start();
    writeFileSync(answers, answerLines());
  });
  afterAll(() => api.close());

  it('judges each answer 3x with the official judge, records coverage of the given evidence, and writes a stats-ready run', async () => {
    const r = await rawragInProcess(args('j', ['--name', 'mem v2']), env);
    expect(r.stderr).toContain(`selected the 6 questions listed in ${answers}`);
    expect(r.stdout).toMatch(/^my-memory \[mem v2\] on locomo — 6 questions/);
    expect(r.code).toBe(0);
    const judged = api.byPath('/v1/chat/completions').filter((x) => isJudgeRequest(x));
    // 6 answers x 3 runs, plus conv-26:q2 (its gold is corrected by the LoCoMo errata) x 3 under the other gold.
    expect(judged).toHaveLength(21);
    expect(api.count('/v1/chat/completions')).toBe(21); // no reader call
    const manifest = JSON.parse(readFileSync(join(dir, 'j', 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      system: 'my-memory',
      name: 'mem v2',
      benchmark: 'locomo',
      setting: 'locomo/gpt-4o-mini',
      status: 'complete',
    });
    const its = items('j');
    expect(its).toHaveLength(6);
    expect(its.map((i) => i.score)).toEqual([1, 0, 1, 0, 1, 0]);
    expect(its[0].details.judge.votes).toEqual([1, 1, 1]);
    expect(its[0].answer).toBe(`It was ${picked[0]!.gold}.`);
    expect(typeof its[0].metrics.f1).toBe('number');
    expect(its[0].coverage).toEqual({ all: true, any: true });
    expect(its[2].coverage.any).toBe(true);
    expect(its[3].coverage).toBeNull();
    const summary = JSON.parse(readFileSync(join(dir, 'j', 'summary.json'), 'utf8'));
    expect(summary.overall.accuracy).toBe(0.5);
    expect(summary.judge).toMatchObject({ model: 'gpt-4o-mini', runs: 3 });
    expect(summary.provenance.by_role.judge.replies_fresh).toBe(21);
    expect(r.stdout).toMatch(/my-memory \[mem v2\] on locomo — 6 questions, 0 errors/);
    const stats = await rawragInProcess(['stats', join(dir, 'j'), '--out', join(dir, 'stats')], env);
    expect(stats.code).toBe(0);
    expect(stats.stdout).toContain('my-memory');

    // Same command again: resumed, nothing sent.
    const again = await rawragInProcess(args('j'), env);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/resuming .*: 6 of 6 questions already done/);
    expect(api.count('/v1/chat/completions')).toBe(21);
  });

  it('sends the judge exactly what `rawrag run` sends for the same answer', async () => {
    const before = api.requests.length;
    const r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--retriever',
        'local-lexical',
        '--limit',
        '1',
        '--reader',
        'gpt-4o-mini',
        '--reader-base-url',
        `${api.url}/v1`,
        '--judge-base-url',
        `${api.url}/v1`,
        '--cache-dir',
        tempDir(),
        '--no-progress',
        '--out',
        join(dir, 'run'),
      ],
      env,
    );
    expect(r.code).toBe(0);
    const fromRun = api.requests
      .slice(before)
      .filter((x) => isJudgeRequest(x))
      .map((x) => x.body);
    const fromJudge = api.requests
      .slice(0, 21)
      .filter((x) => x.body.messages[0].content.includes(picked[0]!.text))
      .map((x) => x.body);
    expect(fromRun).toHaveLength(3);
    expect(fromJudge).toHaveLength(3);
    expect(fromJudge).toEqual(fromRun);
  });

  it('--dry-run prices the real answers and writes nothing; unknown ids are an input error with lines', async () => {
    const d = await rawragInProcess(['judge', answers, '--benchmark', 'locomo', '--dry-run', '--out', join(dir, 'dry')], {
      ...env,
      OPENAI_API_KEY: undefined,
    });
    expect(d.code).toBe(0);
    expect(d.stdout).toMatch(/\| judge \| gpt-4o-mini \| +21 \|/);
    expect(d.stdout).toContain('nothing was sent and no run directory was written');
    expect(existsSync(join(dir, 'dry'))).toBe(false);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify({ id: picked[0]!.id, answer: 'x' })}\n${JSON.stringify({ id: 'conv-26:q9999', answer: 'y' })}\n`);
    const b = await rawragInProcess(['judge', bad, '--benchmark', 'locomo', '--out', join(dir, 'bad')], env);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(`${bad}: line 2: 1 id is not a question of locomo: 'conv-26:q9999' (line 2)`);
    writeFileSync(bad, `{"id": "${picked[0]!.id}"}\n`);
    const c = await rawragInProcess(['judge', bad, '--benchmark', 'locomo'], env);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain(`${bad}: line 1: "answer" of '${picked[0]!.id}' must be a string`);
    expect(existsSync(join(dir, 'bad'))).toBe(false);
  });

  it('a failed judge request is an item error (exit 4 with the command to run); --retry-errors redoes it', async () => {
    api.inject({ kind: 'status', status: 400, times: 1, match: (x) => isJudgeRequest(x) });
    const first = await rawragInProcess(args('f', ['--cache-dir', tempDir()]), env);
    expect(first.code).toBe(4);
    expect(first.stderr).toMatch(/1 of 6 items failed .*--retry-errors --out /s);
    const retry = await rawragInProcess(args('f', ['--cache-dir', tempDir(), '--retry-errors']), env);
    expect(retry.code).toBe(0);
    expect(items('f').filter((i) => i.error)).toHaveLength(0);
  });
});
