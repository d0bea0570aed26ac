/**
 * `rawrag run locomo --reader claude-haiku-4-5 --judge claude-haiku-4-5 --batch` against the
 * loopback Anthropic Message Batches peer (which also serves the interactive /v1/messages): the
 * requests go out as Message Batches (none one by one), the items are the interactive run's, the
 * cost is at batch prices (half), and a kill -9 while a batch is being created is not followed by
 * a second submission (the batch is adopted from the provider's list).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeMessageBatches } from '../helpers/fake-message-batches.js';
import { readerQuestion } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { decidedById, runItemLines } from '../helpers/decided-items.js';
import { halfKnownReader } from '../helpers/half-known-reader.js';
import { killAtCreate } from '../helpers/kill-at-create.js';

const LIMIT = 12;
const { selected, oracle } = await halfKnownReader(LIMIT);

const KEY = 'sk-ant-test-MSGBATCH';
const env = {
  ANTHROPIC_API_KEY: KEY,
  RAWRAG_RETRY_BASE_MS: '5',
  RAWRAG_BATCH_POLL_MS: '5',
  RAWRAG_CACHE_DIR: undefined,
};

function args(cache: string, out: string, ...extra: string[]): string[] {
  return ['run', 'locomo', '--reader', 'claude-haiku-4-5', '--judge', 'claude-haiku-4-5', '--limit', String(LIMIT)].concat(
    ['--cache-dir', cache, '--out', out, '--no-progress'],
    extra,
  );
}

describe('rawrag run --batch with an Anthropic reader and judge (Message Batches)', () => {
  const api = new FakeMessageBatches({ chat: oracle });
  const batchOut = join(tempDir(), 'batch');
  const liveOut = join(tempDir(), 'live');
  let batch: { code: number; stdout: string; stderr: string };
  let live: { code: number; stdout: string; stderr: string };
  let interactiveInBatchRun = 0;
  let liveRequests = 0;

  beforeAll(async () => {
    await api.start();
    api.perPoll = 5;
    const e = { ...env, ANTHROPIC_BASE_URL: api.url };
    batch = await rawragInProcess(args(tempDir('rawrag-cache-'), batchOut, '--batch'), e);
    interactiveInBatchRun = api.interactive();
    live = await rawragInProcess(args(tempDir('rawrag-cache-'), liveOut), e);
    liveRequests = api.interactive() - interactiveInBatchRun;
  }, 180_000);
  afterAll(() => api.close());

  it('sends every reader and judge request inside two Message Batches, none one by one', () => {
    expect(batch.code, batch.stderr).toBe(0);
    expect(batch.stderr).toMatch(new RegExp(`pass 1: ${LIMIT} requests go out as batch jobs \\(${LIMIT} reader\\)`));
    expect(batch.stderr).toMatch(/batch msgbatch_0001 submitted: part 1, 12 requests \(12 reader\), claude-haiku-4-5/);
    expect(batch.stderr).toMatch(/batch msgbatch_0001 \(part 1, 12 requests, claude-haiku-4-5\): in_progress 5\/12 done/);
    expect(batch.stderr).toMatch(/batch msgbatch_0002 collected: \d+ replies into the cache, 0 failed/);
    expect(api.count('POST /v1/messages/batches')).toBe(2);
    expect(interactiveInBatchRun).toBe(0);
    const inBatches = [...api.batches.values()].reduce((s, b) => s + b.requests.length, 0);
    expect(liveRequests).toBe(inBatches); // the interactive run sent the same requests one by one
    expect([...api.keys]).toEqual([KEY]);
    expect(runItemLines(batchOut)).toHaveLength(LIMIT);
    expect(batch.stdout).toMatch(/replies from batches: reader 12, judge \d+; cost at batch prices \$0\.\d{4}/);
  });

  it('batch params are the interactive request bodies; custom_ids are the cache keys', () => {
    const interactive = new Set(
      api.chat.requests.filter((r) => r.path === '/v1/messages' && !r.headers['x-fake-batch']).map((r) => JSON.stringify(r.body)),
    );
    const reqs = [...api.batches.values()].flatMap((b) => b.requests);
    for (const r of reqs) {
      expect(interactive.has(JSON.stringify(r.params))).toBe(true);
      expect(r.custom_id).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('gives exactly the items of the interactive run', () => {
    expect(live.code, live.stderr).toBe(0);
    expect(decidedById(runItemLines(batchOut))).toEqual(decidedById(runItemLines(liveOut)));
    expect(runItemLines(batchOut).filter((i) => i.score === 1).length).toBe(LIMIT / 2);
  });

  it('costs half: summary.json holds the batch jobs and their cost at batch prices', () => {
    const b = JSON.parse(readFileSync(join(batchOut, 'summary.json'), 'utf8'));
    const l = JSON.parse(readFileSync(join(liveOut, 'summary.json'), 'utf8'));
    expect(b.batch.jobs).toBe(2);
    expect(b.batch.usage.reader.replies).toBe(LIMIT);
    const liveChat = l.usage.reader.cost_usd_spent + l.usage.judge.cost_usd_spent;
    expect(liveChat).toBeGreaterThan(0);
    expect(b.batch.cost_usd_interactive).toBeCloseTo(liveChat, 10);
    expect(b.batch.cost_usd).toBeCloseTo(liveChat / 2, 10);
    expect(b.usage.reader.requests).toBe(0);
    expect(b.usage.reader.cost_usd_total).toBeCloseTo(l.usage.reader.cost_usd_spent / 2, 10);
  });

  it('a request errored inside a Message Batch becomes an item error; --retry-errors sends it again; batch status reads the jobs', async () => {
    const out = join(tempDir(), 'errors');
    const cache = tempDir('rawrag-cache-');
    const e = { ...env, ANTHROPIC_BASE_URL: api.url };
    const victim = selected[4]!.text;
    api.chat.inject({
      kind: 'status',
      status: 400,
      times: 1,
      match: (r) => r.path === '/v1/messages' && readerQuestion(r.body) === victim && Boolean(r.headers['x-fake-batch']),
    });
    const first = await rawragInProcess(args(cache, out, '--batch', '--seed', '3'), e);
    expect(first.code).toBe(4);
    expect(first.stdout).toMatch(/12 questions, 1 errors/);
    const bad = runItemLines(out).filter((i) => i.error);
    expect(bad.map((i) => i.question)).toEqual([victim]);
    expect(bad[0].error.message).toMatch(/reader request to claude-haiku-4-5 failed in a batch job: invalid_request_error: injected 400/);
    const before = api.batches.size;
    const retry = await rawragInProcess(args(cache, out, '--batch', '--seed', '3', '--retry-errors'), e);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stderr).toMatch(/pass 1: 1 requests go out as batch jobs \(1 reader\)/);
    expect(api.batches.size).toBe(before + 2); // the reader request, then its judge runs
    expect(decidedById(runItemLines(out))).toEqual(decidedById(runItemLines(liveOut)));
    const status = await rawragInProcess(['batch', 'status', out], e);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout.match(/\| msgbatch_\d+ +\| claude-haiku-4-5 \|.*\| completed \|/g)).toHaveLength(4);
  });

  it('kill -9 while a batch is being created, then run again: the batch is adopted from the list, not submitted twice', async () => {
    const out = join(tempDir(), 'killed');
    const cache = tempDir('rawrag-cache-');
    const before = api.batches.size;
    api.hangCreate = true;
    await killAtCreate(args(cache, out, '--batch', '--seed', '2'), { ...env, ANTHROPIC_BASE_URL: api.url }, () => api.batches.size);
    api.hangCreate = false;
    const state = JSON.parse(readFileSync(join(out, 'batches.json'), 'utf8'));
    expect(state.parts[0].batch_id).toBeNull();
    expect(state.parts[0].create_sent_at).not.toBeNull();
    const hung = [...api.batches.keys()].at(-1)!;
    const again = await rawragInProcess(args(cache, out, '--batch', '--seed', '2'), { ...env, ANTHROPIC_BASE_URL: api.url });
    expect(again.code, again.stderr).toBe(0);
    // The hung create's batch, not the earlier run's batch of the same size; the judge part is created, not adopted.
    expect(again.stderr).toContain(`batch ${hung} found on the provider (already submitted), adopted: part 1, ${LIMIT} requests`);
    expect(again.stderr.match(/adopted/g)).toHaveLength(1);
    expect(api.batches.size).toBe(before + 2); // the adopted reader batch + the judge batch
    expect(decidedById(runItemLines(out))).toEqual(decidedById(runItemLines(liveOut)));
  });
});
