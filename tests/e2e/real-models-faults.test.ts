/**
 * Faults on the wire: 429 with Retry-After, 5xx, replies slower than the timeout, malformed JSON
 * and dropped connections are retried by the one retry layer and never scored as wrong answers;
 * calls that finally fail become item errors (scrubbed of keys) that --retry-errors redoes.
 * Also: full-context, the qwen3 (vLLM) retriever, and the fall-back to local without keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, isJudgeRequest, readerQuestion, type RecordedRequest, endpointArgs } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const KEY = 'sk-test-FAULTSECRET0123456789';
const env = {
  OPENAI_API_KEY: KEY,
  COHERE_API_KEY: 'co-test-FAULTCOHERE0123',
  RAWRAG_RETRY_BASE_MS: '5',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};
const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });

function args(api: FakeApi, extra: string[]): string[] {
  return ['run', 'locomo', '--reader', 'gpt-4o-mini', '--json', '--no-progress', ...endpointArgs(api), ...extra];
}

function items(dir: string): any[] {
  return readFileSync(join(dir, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('transient faults are retried, never scored', () => {
  const api = new FakeApi();
  let r: { code: number; stdout: string; stderr: string };
  const out = join(tempDir(), 'run');
  beforeAll(async () => {
    await api.start();
    const chat = (x: RecordedRequest) => x.path === '/v1/chat/completions';
    api.inject({ kind: 'status', status: 429, headers: { 'retry-after': '0' }, match: (x) => x.path === '/v1/embeddings' });
    api.inject({ kind: 'status', status: 503, headers: { 'retry-after-ms': '10' }, match: (x) => x.path === '/v2/rerank', times: 2 });
    api.inject({ kind: 'status', status: 500, match: chat, times: 2 });
    api.inject({ kind: 'slow', delayMs: 6000, match: chat });
    api.inject({ kind: 'malformed', match: chat });
    api.inject({ kind: 'reset', match: chat });
    api.inject({ kind: 'status', status: 429, headers: { 'retry-after': '0' }, match: isJudgeRequest, times: 3 });
    r = await rawragInProcess(
      args(api, ['--retriever', 'openai', '--limit', '6', '--timeout', '2', '--cache-dir', tempDir(), '--out', out]),
      env,
    );
  }, 120_000);
  afterAll(() => api.close());

  it('completes with every item scored and no errors', () => {
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.errors).toBe(0);
    expect(s.overall.scored).toBe(6);
    // The default fake reader knows nothing: every answer is wrong, and none of the faults changed that.
    expect(s.overall.accuracy).toBe(0);
    for (const it of items(out)) expect(it.details.judge.votes).toEqual([0, 0, 0]);
  });

  it('each fault cost a retry: the server saw the failed tries and the successful ones', () => {
    const faulted = api.requests.filter((x) => x.fault !== null);
    expect(faulted.map((x) => x.fault).sort()).toEqual(
      [
        'malformed',
        'reset',
        'slow',
        'status 429',
        'status 429',
        'status 429',
        'status 429',
        'status 500',
        'status 500',
        'status 503',
        'status 503',
      ].sort(),
    );
    const s = JSON.parse(r.stdout);
    const retries = ['embed', 'rerank', 'reader', 'judge'].reduce((n, role) => n + (s.usage[role]?.retries ?? 0), 0);
    // At least one retry per fault (a loaded machine may time out a few more).
    expect(retries).toBeGreaterThanOrEqual(faulted.length);
    const ok = api.byPath('/v1/chat/completions').filter((x) => x.fault === null);
    expect(new Set(ok.filter((x) => !isJudgeRequest(x)).map((x) => readerQuestion(x.body))).size).toBe(6);
    expect(ok.filter(isJudgeRequest).length).toBeGreaterThanOrEqual(18);
  });
});

describe('calls that finally fail are item errors, counted apart and redone by --retry-errors', () => {
  const api = new FakeApi();
  const out = join(tempDir(), 'run');
  const cache = tempDir();
  const failQ = ds.questions[1]!.text;
  const keyQ = ds.questions[2]!.text;
  let first: { code: number; stdout: string; stderr: string };
  let retry: { code: number; stdout: string; stderr: string };
  let firstItems = '';
  let firstManifest = '';
  beforeAll(async () => {
    await api.start();
    // The judge of one question always fails; the reader of another is refused with an error that echoes the key.
    api.inject({
      kind: 'status',
      status: 500,
      times: Infinity,
      match: (x) => isJudgeRequest(x) && JSON.stringify(x.body).includes(JSON.stringify(failQ).slice(1, -1)),
    });
    api.inject({
      kind: 'status',
      status: 401,
      times: Infinity,
      match: (x) => x.path === '/v1/chat/completions' && readerQuestion(x.body) === keyQ,
      body: (x) =>
        JSON.stringify({
          error: {
            message: `Incorrect API key provided: ${String(x.headers.authorization).replace('Bearer ', '')}`,
            type: 'invalid_request_error',
          },
        }),
    });
    first = await rawragInProcess(
      args(api, ['--retriever', 'openai', '--limit', '5', '--max-retries', '2', '--cache-dir', cache, '--out', out]),
      env,
    );
    firstItems = readFileSync(join(out, 'items.jsonl'), 'utf8');
    firstManifest = readFileSync(join(out, 'manifest.json'), 'utf8');
    api.faults = [];
    retry = await rawragInProcess(
      args(api, ['--retriever', 'openai', '--limit', '5', '--max-retries', '2', '--cache-dir', cache, '--out', out, '--retry-errors']),
      env,
    );
  }, 120_000);
  afterAll(() => api.close());

  it('records the failures as errors, not wrong answers; the exit code says so and names the retry command', () => {
    // --max-error-rate defaults to 0: any failed item makes the exit code 4.
    expect(first.code).toBe(4);
    expect(first.stderr).toMatch(
      /2 of 5 items failed \(40\.0%, allowed 0\.0%\), for 2 reasons:[\s\S]*redo them with:\n  rawrag run locomo .*--retry-errors --out /,
    );
    const s = JSON.parse(first.stdout);
    expect(s.n).toBe(5);
    expect(s.errors).toBe(2);
    expect(s.overall.scored).toBe(3);
    const byQ = new Map(
      firstItems
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .map((i) => [i.question, i]),
    );
    const judgeFail = byQ.get(failQ);
    expect(judgeFail.error.stage).toBe('judge');
    expect(judgeFail.error.message).toMatch(/HTTP 500.*after 3 tries/);
    expect(judgeFail.score).toBeNull();
    const keyFail = byQ.get(keyQ);
    expect(keyFail.error.stage).toBe('read');
    expect(keyFail.error.message).toMatch(/HTTP 401/);
    // 401 is not retried.
    expect(api.requests.filter((x) => x.fault === 'status 401')).toHaveLength(1);
  });

  it('never lets the key through an error message', () => {
    const all = firstItems + first.stdout + first.stderr + firstManifest + retry.stdout + readFileSync(join(out, 'items.jsonl'), 'utf8');
    expect(all).toContain('[key]');
    expect(all).not.toContain(KEY);
    expect(all).not.toContain('FAULTSECRET');
  });

  it('--retry-errors redoes only the failed items', () => {
    expect(retry.code).toBe(0);
    const s = JSON.parse(retry.stdout);
    expect(s.errors).toBe(0);
    expect(s.overall.scored).toBe(5);
    const retried = api.requests.filter((x) => x.fault === null && x.path === '/v1/chat/completions');
    // Second run: reader for the 401 question (1) + its 3 judge runs + 3 judge runs of the failed judge (reader cached).
    const firstRunOk = 3 * 4 + 1; // three clean items, plus the reader of the judge-failed one
    // conv-26:q2's gold is corrected by the LoCoMo errata: its answer is judged under both golds (3 more).
    expect(retried).toHaveLength(firstRunOk + 7 + 3);
    expect(items(out)).toHaveLength(5);
  });
});

describe('other retrievers through the loopback API', () => {
  const api = new FakeApi();
  beforeAll(async () => {
    await api.start();
  });
  afterAll(() => api.close());

  it('full-context: the reader sees the whole conversation, in order, and nothing is retrieved', async () => {
    const out = join(tempDir(), 'fc');
    const r = await rawragInProcess(
      args(api, ['--retriever', 'full-context', '--limit', '2', '--cache-dir', tempDir(), '--out', out]),
      env,
    );
    expect(r.code).toBe(0);
    const conv = ds.episodes[0]!;
    const readers = api.byPath('/v1/chat/completions').filter((x) => readerQuestion(x.body) !== null);
    expect(readers).toHaveLength(2);
    const user = readers[0]!.body.messages[1].content as string;
    const first = user.indexOf(conv.turns[0]!.text);
    const last = user.indexOf(conv.turns.at(-1)!.text);
    expect(first).toBeGreaterThan(0);
    expect(last).toBeGreaterThan(first);
    expect(api.count('/v1/embeddings') + api.count('/v2/rerank')).toBe(0);
    const it0 = items(out)[0];
    expect(it0.evidence_turns).toHaveLength(conv.turns.length);
    expect(JSON.parse(r.stdout).system).toBe('RAW-RAG/full-context');
  });

  it('qwen3: instruction-formatted queries, plain documents, vLLM /v1/rerank with top_n 15 over 128 candidates', async () => {
    const before = api.count();
    // vLLM serves rerank under its /v1 base (unlike Cohere, whose SDK appends /v2/rerank itself).
    const qwenArgs = args(api, [
      '--retriever',
      'qwen3',
      '--window',
      '128',
      '--limit',
      '3',
      '--cache-dir',
      tempDir(),
      '--out',
      join(tempDir(), 'q'),
    ]);
    qwenArgs[qwenArgs.indexOf('--rerank-base-url') + 1] = `${api.url}/v1`;
    const r = await rawragInProcess(qwenArgs, env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).system).toBe('RAW-RAG/vllm:qwen3-embedding-4b+vllm:qwen3-reranker-4b');
    const fresh = api.requests.slice(before);
    const embeds = fresh.filter((x) => x.path === '/v1/embeddings');
    expect(embeds.every((e) => e.body.model === 'Qwen/Qwen3-Embedding-4B' && e.body.encoding_format === 'float')).toBe(true);
    const inputs = embeds.flatMap((e) => e.body.input as string[]);
    const q = ds.questions[0]!.text;
    expect(inputs).toContain(`Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:${q}`);
    expect(inputs.filter((t) => t.startsWith('Instruct:'))).toHaveLength(3);
    const reranks = fresh.filter((x) => x.path === '/v1/rerank');
    expect(reranks).toHaveLength(3);
    for (const x of reranks) {
      expect(x.body.top_n).toBe(15);
      expect(x.body.documents).toHaveLength(128);
    }
    // The reranker sees the question itself, without the embedding instruction.
    expect(new Set(reranks.map((x) => x.body.query))).toEqual(new Set(ds.questions.slice(0, 3).map((x) => x.text)));
  });

  it('without keys or endpoints, openai falls back to local under --fallback local, and says so', async () => {
    const out = join(tempDir(), 'fb');
    const r = await rawragInProcess(
      ['run', 'locomo', '--retriever', 'openai', '--limit', '2', '--no-progress', '--out', out, '--fallback', 'local'],
      {
        OPENAI_API_KEY: undefined,
        COHERE_API_KEY: undefined,
        OPENAI_BASE_URL: undefined,
        COHERE_BASE_URL: undefined,
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /note: retriever 'openai' unavailable \(.*OPENAI_API_KEY.*COHERE_API_KEY.*\): fell back to the local retriever/,
    );
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(m.system).toBe('RAW-RAG/local');
    expect(m.retriever.notes[0]).toMatch(/fell back to the local retriever/);
  });

  it('a reader without a key stops the run before anything is written', async () => {
    const out = join(tempDir(), 'nokey');
    const r = await rawragInProcess(['run', 'locomo', '--reader', 'gpt-4o-mini', '--limit', '2', '--no-progress', '--out', out], {
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/reader model 'gpt-4o-mini' needs OPENAI_API_KEY/);
  });
});
