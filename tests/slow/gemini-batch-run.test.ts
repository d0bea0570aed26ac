/**
 * `rawrag run locomo --reader gemini-2.5-flash --judge gemini-2.5-flash --batch` against a loopback
 * peer answering as Gemini's OpenAI-compatible layer does (routes under /v1beta/openai, resource-name
 * ids `files/…` and `batches/…`, no batch list, no metadata kept): every request goes out in batch
 * jobs through the OpenAI SDK, the items are the interactive run's at half the price, and a kill -9
 * while a batch is being created stops the next run with a clear message instead of submitting the
 * part a second time (that API cannot list batches to find the first), until the user says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeBatchApi, GEMINI_FLAVOR } from '../helpers/fake-batch-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { decidedById, runItemLines } from '../helpers/decided-items.js';
import { halfKnownReader } from '../helpers/half-known-reader.js';
import { killAtCreate } from '../helpers/kill-at-create.js';

const LIMIT = 10;
const { oracle } = await halfKnownReader(LIMIT);

const KEY = 'gm-test-GEMINIBATCH';
const env = { GEMINI_API_KEY: KEY, RAWRAG_RETRY_BASE_MS: '5', RAWRAG_BATCH_POLL_MS: '5', RAWRAG_CACHE_DIR: undefined };

function args(cache: string, out: string, ...extra: string[]): string[] {
  return ['run', 'locomo', '--reader', 'gemini-2.5-flash', '--judge', 'gemini-2.5-flash', '--limit', String(LIMIT)].concat(
    ['--cache-dir', cache, '--out', out, '--no-progress'],
    extra,
  );
}

describe('rawrag run --batch with a Gemini reader and judge (the OpenAI-compatible Batch API)', () => {
  const api = new FakeBatchApi({ chat: oracle }, GEMINI_FLAVOR);
  const batchOut = join(tempDir(), 'batch');
  const liveOut = join(tempDir(), 'live');
  let batch: { code: number; stdout: string; stderr: string };
  let live: { code: number; stdout: string; stderr: string };
  let e: Record<string, string | undefined>;

  beforeAll(async () => {
    await api.start();
    api.scriptFor = () => ({ validatingPolls: 1, linesPerPoll: 4 });
    e = { ...env, GEMINI_BASE_URL: api.base };
    batch = await rawragInProcess(args(tempDir('rawrag-cache-'), batchOut, '--batch'), e);
    live = await rawragInProcess(args(tempDir('rawrag-cache-'), liveOut), e);
  }, 180_000);
  afterAll(() => api.close());

  it('sends every reader and judge request in two batch jobs under /v1beta/openai, none one by one', () => {
    expect(batch.code, batch.stderr).toBe(0);
    expect(batch.stderr).toMatch(/batch batches\/\d+ submitted: part 1, 10 requests \(10 reader\), gemini-2\.5-flash/);
    expect(batch.stderr).toMatch(/batch batches\/\d+ \(part 1, 10 requests, gemini-2\.5-flash\): in_progress 4\/10 done/);
    expect(api.count('POST /v1/batches')).toBe(2);
    expect(api.count('GET /v1/batches')).toBe(0); // never listed: the layer has no list
    const b = [...api.batches.values()][0]!;
    expect(b.id).toMatch(/^batches\/\d+$/);
    expect(b.input_file_id).toMatch(/^files\/\d+$/);
    expect(b.completion_window).toBe('24h');
    expect(b.endpoint).toBe('/v1/chat/completions');
    expect([...api.authorizations]).toEqual([`Bearer ${KEY}`]);
    expect(runItemLines(batchOut)).toHaveLength(LIMIT);
    expect(batch.stdout).toMatch(/replies from batches: reader 10, judge \d+; cost at batch prices \$0\.\d{4}/);
  });

  it('gives exactly the items of the interactive run, at half its price', () => {
    expect(live.code, live.stderr).toBe(0);
    expect(decidedById(runItemLines(batchOut))).toEqual(decidedById(runItemLines(liveOut)));
    expect(runItemLines(batchOut).filter((i) => i.score === 1).length).toBe(LIMIT / 2);
    const b = JSON.parse(readFileSync(join(batchOut, 'summary.json'), 'utf8'));
    const l = JSON.parse(readFileSync(join(liveOut, 'summary.json'), 'utf8'));
    const liveChat = l.usage.reader.cost_usd_spent + l.usage.judge.cost_usd_spent;
    expect(liveChat).toBeGreaterThan(0);
    expect(b.batch.cost_usd).toBeCloseTo(liveChat / 2, 10);
    const state = JSON.parse(readFileSync(join(batchOut, 'batches.json'), 'utf8'));
    expect(state.parts.map((p: any) => p.batch_api)).toEqual(['openai-nolist', 'openai-nolist']);
  });

  it('a create whose reply is lost (connection dropped) is not retried: the run stops, one batch exists', async () => {
    const out = join(tempDir(), 'dropped');
    const before = api.batches.size;
    const creates = api.count('POST /v1/batches');
    api.scriptFor = (n) => (n === before ? { dropCreateReply: true } : {});
    const r = await rawragInProcess(args(tempDir('rawrag-cache-'), out, '--batch', '--seed', '4'), e);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/a batch create was sent at .* and its reply never came/);
    expect(api.count('POST /v1/batches')).toBe(creates + 1); // the retry layer did not send it again
    expect(api.batches.size).toBe(before + 1);
    const state = JSON.parse(readFileSync(join(out, 'batches.json'), 'utf8'));
    expect(state.parts[0]).toMatchObject({ batch_id: null, batch_api: 'openai-nolist' });
    expect(state.parts[0].create_sent_at).not.toBeNull();
  });

  it('kill -9 while a batch is being created: the next run stops with a clear message, never creating it twice; the user can resend', async () => {
    const out = join(tempDir(), 'killed');
    const cache = tempDir('rawrag-cache-');
    const before = api.batches.size;
    api.scriptFor = (n) => (n === before ? { hangCreateReply: true } : {});
    await killAtCreate(args(cache, out, '--batch', '--seed', '2'), e, () => api.batches.size);
    const state = JSON.parse(readFileSync(join(out, 'batches.json'), 'utf8'));
    expect(state.parts[0].batch_id).toBeNull();
    expect(state.parts[0].create_sent_at).not.toBeNull();

    const again = await rawragInProcess(args(cache, out, '--batch', '--seed', '2'), e);
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/a batch create was sent at .* and its reply never came; this provider's batch API cannot list batches/);
    expect(again.stderr).toMatch(
      /RAWRAG_BATCH_RESEND_UNCONFIRMED=1 to submit the part anew\nbatches.json keeps every submitted job: that part is not submitted again until you say so/,
    );
    expect(api.batches.size).toBe(before + 1); // not created a second time

    const resent = await rawragInProcess(args(cache, out, '--batch', '--seed', '2'), { ...e, RAWRAG_BATCH_RESEND_UNCONFIRMED: '1' });
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.stderr).toMatch(/was never confirmed; submitting it anew/);
    expect(decidedById(runItemLines(out))).toEqual(decidedById(runItemLines(liveOut)));
  });
});
