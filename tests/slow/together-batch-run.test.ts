/**
 * `rawrag run locomo --reader/--judge <a Together model> --batch` against a loopback peer answering
 * as Together's Files and Batch API does, crossed through the together-ai SDK: every request goes
 * out in Together batch jobs (`batch-api` file of `{custom_id, body}` lines, `{job}` replies,
 * upper-case statuses), the items are the interactive run's at the batch prices of the user's
 * --models file, a model without batch prices is refused with a clear message, and a kill -9 while
 * a job is being created is followed by adopting that job (found by its input file), not a second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeTogetherBatches } from '../helpers/fake-together-batches.js';
import { readerQuestion } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { decidedById, runItemLines } from '../helpers/decided-items.js';
import { halfKnownReader } from '../helpers/half-known-reader.js';
import { killAtCreate } from '../helpers/kill-at-create.js';

const LIMIT = 10;
const MODEL = 'meta-llama/Llama-3.3-70B-Instruct-Turbo';
const { selected, oracle } = await halfKnownReader(LIMIT);

const KEY = 'tg-test-TOGETHERBATCH';
const models = join(tempDir(), 'models.yaml');
writeFileSync(
  models,
  [
    'models:',
    `  ${MODEL}:`,
    '    kind: chat',
    '    protocol: openai',
    '    provider: together',
    '    keyEnv: TOGETHER_API_KEY',
    '    baseUrlEnv: TOGETHER_BASE_URL',
    '    baseUrl: https://api.together.xyz/v1',
    '    prices: { input: 0.88, output: 0.88 }',
    '    batchPrices: { input: 0.44, output: 0.44 }',
    '',
  ].join('\n'),
);
const env = { TOGETHER_API_KEY: KEY, RAWRAG_RETRY_BASE_MS: '5', RAWRAG_BATCH_POLL_MS: '5', RAWRAG_CACHE_DIR: undefined };

function args(cache: string, out: string, ...extra: string[]): string[] {
  return ['run', 'locomo', '--reader', MODEL, '--judge', MODEL, '--models', models, '--limit', String(LIMIT)].concat(
    ['--cache-dir', cache, '--out', out, '--no-progress'],
    extra,
  );
}

describe('rawrag run --batch with a Together reader and judge (Together Batch API, together-ai SDK)', () => {
  const api = new FakeTogetherBatches({ chat: oracle });
  const batchOut = join(tempDir(), 'batch');
  const liveOut = join(tempDir(), 'live');
  let batch: { code: number; stdout: string; stderr: string };
  let live: { code: number; stdout: string; stderr: string };
  let e: Record<string, string | undefined>;
  let interactiveInBatchRun = 0;

  beforeAll(async () => {
    await api.start();
    api.perPoll = 4;
    e = { ...env, TOGETHER_BASE_URL: api.base };
    batch = await rawragInProcess(args(tempDir('rawrag-cache-'), batchOut, '--batch'), e);
    interactiveInBatchRun = api.interactive();
    live = await rawragInProcess(args(tempDir('rawrag-cache-'), liveOut), e);
  }, 180_000);
  afterAll(() => api.close());

  it('sends every reader and judge request in two Together batch jobs, none one by one', () => {
    expect(batch.code, batch.stderr).toBe(0);
    expect(batch.stderr).toMatch(/batch 00000\d+-b000-\S+ submitted: part 1, 10 requests \(10 reader\)/);
    expect(batch.stderr).toMatch(/\(part 1, 10 requests, meta-llama\/Llama-3\.3-70B-Instruct-Turbo\): in_progress 4\/10 done/);
    expect(interactiveInBatchRun).toBe(0);
    expect(api.count('POST /v1/batches')).toBe(2);
    expect(api.count('PUT upload')).toBe(2);
    const files = [...api.files.values()].filter((f) => /^rawrag-/.test(f.filename));
    expect(files.map((f) => f.purpose)).toEqual(['batch-api', 'batch-api']);
    for (const f of files)
      for (const l of f
        .text!.trim()
        .split('\n')
        .map((x) => JSON.parse(x))) {
        expect(Object.keys(l).sort()).toEqual(['body', 'custom_id']);
        expect(l.custom_id).toMatch(/^[0-9a-f]{64}$/);
      }
    expect([...api.keys]).toEqual([`Bearer ${KEY}`]);
    expect(runItemLines(batchOut)).toHaveLength(LIMIT);
  });

  it('gives exactly the items of the interactive run, at the batch prices of the --models file', () => {
    expect(live.code, live.stderr).toBe(0);
    expect(decidedById(runItemLines(batchOut))).toEqual(decidedById(runItemLines(liveOut)));
    expect(runItemLines(batchOut).filter((i) => i.score === 1).length).toBe(LIMIT / 2);
    const b = JSON.parse(readFileSync(join(batchOut, 'summary.json'), 'utf8'));
    const l = JSON.parse(readFileSync(join(liveOut, 'summary.json'), 'utf8'));
    const liveChat = l.usage.reader.cost_usd_spent + l.usage.judge.cost_usd_spent;
    expect(liveChat).toBeGreaterThan(0);
    expect(b.batch.cost_usd).toBeCloseTo(liveChat / 2, 10);
    const state = JSON.parse(readFileSync(join(batchOut, 'batches.json'), 'utf8'));
    expect(state.parts.map((p: any) => [p.batch_api, p.status])).toEqual([
      ['together', 'completed'],
      ['together', 'completed'],
    ]);
  });

  it('a request that fails inside a Together job (its error file) becomes an item error; --retry-errors sends it again', async () => {
    const out = join(tempDir(), 'errors');
    const cache = tempDir('rawrag-cache-');
    const victim = selected[4]!.text;
    api.chat.inject({
      kind: 'status',
      status: 400,
      times: 1,
      match: (r) => r.path === '/v1/chat/completions' && readerQuestion(r.body) === victim && Boolean(r.headers['x-fake-batch']),
    });
    const first = await rawragInProcess(args(cache, out, '--batch', '--seed', '3'), e);
    expect(first.code).toBe(4);
    expect(first.stdout).toMatch(/10 questions, 1 errors/);
    const bad = runItemLines(out).filter((i) => i.error);
    expect(bad.map((i) => i.question)).toEqual([victim]);
    expect(bad[0].error.message).toMatch(/failed in a batch job: .*injected 400/);
    const retry = await rawragInProcess(args(cache, out, '--batch', '--seed', '3', '--retry-errors'), e);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stderr).toMatch(/pass 1: 1 requests go out as batch jobs \(1 reader\)/);
    expect(decidedById(runItemLines(out))).toEqual(decidedById(runItemLines(liveOut)));
    // `rawrag batch status` asks Together for each job again (through the same backend).
    const status = await rawragInProcess(['batch', 'status', out], e);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout.split('\n').filter((l) => /\| \d{8}-b000-\S+ .*\| completed \|/.test(l))).toHaveLength(4);
  });

  it('a Together model the registry does not list is refused with --batch: its batch prices are unknown', async () => {
    const r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--reader',
        'together/Qwen/Qwen2.5-7B-Instruct-Turbo',
        '--judge',
        MODEL,
        '--models',
        models,
        '--limit',
        '2',
        '--out',
        join(tempDir(), 'x'),
        '--batch',
      ],
      e,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /reader model 'together\/Qwen\/Qwen2\.5-7B-Instruct-Turbo' is not listed in the model registry, so its batch prices are unknown: list it with batchPrices in your --models file/,
    );
  });

  it('kill -9 while a job is being created, then run again: the job made from the part file is adopted, not created twice', async () => {
    const out = join(tempDir(), 'killed');
    const cache = tempDir('rawrag-cache-');
    const before = api.jobs.size;
    api.hangCreate = true;
    await killAtCreate(args(cache, out, '--batch', '--seed', '2'), e, () => api.jobs.size);
    api.hangCreate = false;
    const state = JSON.parse(readFileSync(join(out, 'batches.json'), 'utf8'));
    expect(state.parts[0].batch_id).toBeNull();
    expect(state.parts[0].input_file_id).not.toBeNull();
    const hung = [...api.jobs.keys()].at(-1)!;
    const again = await rawragInProcess(args(cache, out, '--batch', '--seed', '2'), e);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`batch ${hung} found on the provider (already submitted), adopted: part 1, ${LIMIT} requests`);
    expect(again.stderr.match(/adopted/g)).toHaveLength(1);
    expect(api.jobs.size).toBe(before + 2); // the adopted reader job + the judge job
    expect(decidedById(runItemLines(out))).toEqual(decidedById(runItemLines(liveOut)));
  });
});
