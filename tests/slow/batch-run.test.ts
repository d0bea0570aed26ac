/**
 * `rawrag run locomo --retriever openai --reader gpt-4o-mini --batch` against the loopback
 * Files/Batches peer (which also serves embeddings, rerank and chat): the batch run gives the
 * interactive run's items from a handful of batch jobs at batch prices; --no-wait resumes; a
 * kill -9 while a batch is being created never leads to a second submission.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeBatchApi } from '../helpers/fake-batch-api.js';
import { readerQuestion, endpointArgs } from '../helpers/fake-api.js';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { decidedById, runItemLines } from '../helpers/decided-items.js';
import { halfKnownReader } from '../helpers/half-known-reader.js';
import { killAtCreate } from '../helpers/kill-at-create.js';

const LIMIT = 30;
/** Judge requests: 3 per answer, and 3 more for each of the 4 questions whose gold the LoCoMo errata correct (judged under both golds). */
const JUDGE = 3 * (LIMIT + 4);
const { selected, oracle } = await halfKnownReader(LIMIT);

const env = {
  OPENAI_API_KEY: 'sk-test-BATCHRUN',
  COHERE_API_KEY: 'co-test-BATCHRUN',
  RAWRAG_RETRY_BASE_MS: '5',
  RAWRAG_BATCH_POLL_MS: '5',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};

function args(api: FakeBatchApi, cache: string, out: string, ...extra: string[]): string[] {
  return [
    'run',
    'locomo',
    '--retriever',
    'openai',
    '--reader',
    'gpt-4o-mini',
    '--limit',
    String(LIMIT),
    ...endpointArgs(api),
    '--cache-dir',
    cache,
    '--out',
    out,
    '--no-progress',
    ...extra,
  ];
}

describe('rawrag run --batch', () => {
  const api = new FakeBatchApi({ chat: oracle });
  const batchOut = join(tempDir(), 'batch');
  const liveOut = join(tempDir(), 'live');
  let batch: { code: number; stdout: string; stderr: string };
  let live: { code: number; stdout: string; stderr: string };
  let batchesOfRun = 0;
  let batchChats = 0;

  beforeAll(async () => {
    await api.start();
    api.scriptFor = () => ({ validatingPolls: 2, linesPerPoll: 40 });
    batch = await rawragInProcess(args(api, tempDir('rawrag-cache-'), batchOut, '--batch'), env);
    batchesOfRun = api.batches.size;
    batchChats = api.chat.requests.filter((r) => r.path === '/v1/chat/completions').length;
    live = await rawragInProcess(args(api, tempDir('rawrag-cache-'), liveOut), env);
  }, 180_000);
  afterAll(() => api.close());

  it('completes every item from two batch jobs (readers, then 3 judge runs each), sending no chat request interactively', () => {
    expect(batch.code).toBe(0);
    expect(batch.stderr).toMatch(/pass 1: 30 requests go out as batch jobs \(30 reader\)/);
    expect(batch.stderr).toMatch(/pass 2: 102 requests go out as batch jobs \(102 judge\)/);
    expect(batch.stderr).toMatch(
      /batch batch_\d+ \(part 1, 30 requests, gpt-4o-mini\): validating\n.*: in_progress 0\/30 done\n.*: finalizing 30\/30 done\n.*: completed 30\/30 done\n/,
    );
    expect(batch.stderr).toMatch(/\(part 2, 102 requests, gpt-4o-mini\): in_progress 40\/102 done/);
    expect(batchesOfRun).toBe(2);
    expect(batchChats).toBe(30 + JUDGE);
    expect(api.chat.requests.filter((r) => r.path === '/v1/chat/completions' && !r.headers['x-fake-batch']).length).toBe(LIMIT + JUDGE); // all from the interactive run
    expect(runItemLines(batchOut)).toHaveLength(LIMIT);
    expect(batch.stdout).toMatch(/RAW-RAG\/openai:text-embedding-3-small\+cohere:rerank-v3.5 on locomo — 30 questions, 0 errors/);
    expect(batch.stdout).toMatch(
      /replies from batches: reader 30, judge 102; cost at batch prices \$0\.\d{4} \(interactive prices: \$0\.\d{4}\)/,
    );
  });

  it('gives exactly the items of the interactive run', () => {
    expect(live.code).toBe(0);
    expect(decidedById(runItemLines(batchOut))).toEqual(decidedById(runItemLines(liveOut)));
    expect(runItemLines(batchOut).filter((i) => i.score === 1).length).toBe(LIMIT / 2);
  });

  it('costs half: summary.json holds the batch jobs and their cost at batch prices', () => {
    const b = JSON.parse(readFileSync(join(batchOut, 'summary.json'), 'utf8'));
    const l = JSON.parse(readFileSync(join(liveOut, 'summary.json'), 'utf8'));
    expect(b.batch.jobs).toBe(2);
    expect(b.batch.usage.reader.replies).toBe(30);
    expect(b.batch.usage.judge.replies).toBe(JUDGE);
    const liveChat = l.usage.reader.cost_usd_spent + l.usage.judge.cost_usd_spent;
    expect(b.batch.cost_usd_interactive).toBeCloseTo(liveChat, 10);
    expect(b.batch.cost_usd).toBeCloseTo(liveChat / 2, 10);
    // The final pass read every reply from the cache, priced at batch prices.
    expect(b.usage.reader.cache_hits).toBe(30);
    expect(b.usage.reader.requests).toBe(0);
    expect(b.usage.reader.cost_usd_total).toBeCloseTo(l.usage.reader.cost_usd_spent / 2, 10);
    // Per item too: details.usage prices batch replies at batch prices.
    const liveItems = new Map(runItemLines(liveOut).map((i) => [i.id, i]));
    for (const i of runItemLines(batchOut).slice(0, 5)) {
      const li = liveItems.get(i.id);
      expect(i.details.usage.reader.cost_usd).toBeCloseTo(li.details.usage.reader.cost_usd / 2, 12);
      expect(i.details.usage.judge.cost_usd).toBeCloseTo(li.details.usage.judge.cost_usd / 2, 12);
    }
  });

  it('--no-wait exits after submitting; running the command again goes on, never submitting twice', async () => {
    const out = join(tempDir(), 'nowait');
    const cache = tempDir('rawrag-cache-');
    const before = api.batches.size;
    api.scriptFor = () => ({ validatingPolls: 1 });
    // Another seed: another run id, so this run cannot adopt the batches of the run above.
    const first = await rawragInProcess(args(api, cache, out, '--batch', '--no-wait', '--seed', '1'), env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/1 batch jobs running/);
    expect(first.stdout).toMatch(/resume: rawrag run locomo .*--batch --no-wait/);
    expect(runItemLines(out)).toHaveLength(0);
    expect(api.batches.size).toBe(before + 1);
    let last = first;
    for (let i = 0; i < 12 && !/questions, 0 errors/.test(last.stdout); i++)
      last = await rawragInProcess(args(api, cache, out, '--batch', '--no-wait', '--seed', '1'), env);
    expect(last.code).toBe(0);
    expect(last.stdout).toMatch(/30 questions, 0 errors/);
    expect(api.batches.size).toBe(before + 2);
    expect(decidedById(runItemLines(out))).toEqual(decidedById(runItemLines(liveOut)));
    const status = await rawragInProcess(['batch', 'status', out], env);
    expect(status.stdout.match(/\| completed \| +\d+\/\d+ \|/g)).toHaveLength(2);
  });

  it('kill -9 while a batch is being created, then run again: the batch is found by its metadata, not submitted twice', async () => {
    const out = join(tempDir(), 'killed');
    const cache = tempDir('rawrag-cache-');
    const before = api.batches.size;
    api.scriptFor = (n) => (n === before ? { hangCreateReply: true } : {});
    await killAtCreate(args(api, cache, out, '--batch', '--seed', '2'), env, () => api.batches.size);
    const state = JSON.parse(readFileSync(join(out, 'batches.json'), 'utf8'));
    expect(state.parts[0].batch_id).toBeNull();
    const again = await rawragInProcess(args(api, cache, out, '--batch', '--seed', '2'), env);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/found on the provider \(already submitted\), adopted/);
    expect(api.batches.size).toBe(before + 2); // the adopted reader batch + the judge batch
    expect(decidedById(runItemLines(out))).toEqual(decidedById(runItemLines(liveOut)));
  });

  it('a request that fails inside a batch becomes an item error; --batch --retry-errors sends it again', async () => {
    const out = join(tempDir(), 'errors');
    const cache = tempDir('rawrag-cache-');
    const victim = selected[4]!.text;
    api.scriptFor = () => ({});
    api.chat.inject({
      kind: 'status',
      status: 400,
      times: 1,
      match: (r) => r.path === '/v1/chat/completions' && readerQuestion(r.body) === victim && Boolean(r.headers['x-fake-batch']),
    });
    const first = await rawragInProcess(args(api, cache, out, '--batch', '--seed', '3'), env);
    expect(first.code).toBe(4); // an item failed (--max-error-rate 0)
    expect(first.stdout).toMatch(/30 questions, 1 errors/);
    expect(first.stdout).toMatch(/1 requests failed inside batches \(item errors\); rawrag run .* --retry-errors sends them again/);
    const bad = runItemLines(out).filter((i) => i.error);
    expect(bad.map((i) => i.question)).toEqual([victim]);
    expect(bad[0].error).toEqual({
      stage: 'read',
      message: expect.stringMatching(/reader request to gpt-4o-mini failed in a batch job: HTTP 400: injected 400/),
    });
    const before = api.batches.size;
    const retry = await rawragInProcess(args(api, cache, out, '--batch', '--seed', '3', '--retry-errors'), env);
    expect(retry.code).toBe(0);
    expect(retry.stdout).toMatch(/30 questions, 0 errors/);
    expect(retry.stderr).toMatch(/pass 1: 1 requests go out as batch jobs \(1 reader\)/);
    expect(api.batches.size).toBe(before + 2); // the reader request, then its 3 judge runs
    expect(decidedById(runItemLines(out))).toEqual(decidedById(runItemLines(liveOut)));
  });

  it('--batch-embeddings: the windows and questions are embedded by a batch job too; same items, no interactive embedding', async () => {
    const out = join(tempDir(), 'embed');
    const before = api.batches.size;
    const embedsBefore = api.chat.requests.filter((r) => r.path === '/v1/embeddings').length;
    api.scriptFor = () => ({});
    const r = await rawragInProcess(args(api, tempDir('rawrag-cache-'), out, '--batch-embeddings', '--seed', '4'), env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/30 questions, 0 errors/);
    const m = /pass 1: (\d+) requests go out as batch jobs \(\1 embed\)/.exec(r.stderr)!;
    expect(m).not.toBeNull();
    expect(r.stderr).toMatch(/pass 2: 30 requests go out as batch jobs \(30 reader\)/);
    expect(api.batches.size).toBe(before + 3);
    const embeds = api.chat.requests.filter((q) => q.path === '/v1/embeddings').slice(embedsBefore);
    expect(embeds.every((q) => q.headers['x-fake-batch'])).toBe(true);
    expect(embeds).toHaveLength(Number(m[1]));
    expect(new Set(embeds.map((q) => q.body.input)).size).toBe(embeds.length);
    expect(decidedById(runItemLines(out))).toEqual(decidedById(runItemLines(liveOut)));
    expect(r.stdout).toMatch(/replies from batches: embed \d+, reader 30, judge 102/);
  });

  it('a provider refusing the batch: a clear error (exit 5), nothing lost; the same command later goes on', async () => {
    const out = join(tempDir(), 'refused');
    const cache = tempDir('rawrag-cache-');
    api.scriptFor = () => ({});
    api.rejectCreate = 'Batch API is not available for this organization';
    const r = await rawragInProcess(args(api, cache, out, '--batch', '--seed', '5'), env);
    api.rejectCreate = null;
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      /rawrag: batch API: reader request to gpt-4o-mini \(batch API\) failed \(HTTP 400\): 400 Batch API is not available for this organization\nbatches.json keeps every submitted job: run the same command again to go on/,
    );
    expect(r.stderr).not.toMatch(/internal error/);
    const again = await rawragInProcess(args(api, cache, out, '--batch', '--seed', '5'), env);
    expect(again.code).toBe(0);
    expect(decidedById(runItemLines(out))).toEqual(decidedById(runItemLines(liveOut)));
  });

  it('Ctrl-C while waiting for batches: the command leaves at once, saying how to resume; the jobs go on', async () => {
    const out = join(tempDir(), 'sigint');
    const before = api.batches.size;
    const polls = api.count('GET /v1/batches/id');
    api.scriptFor = () => ({ validatingPolls: 100_000 });
    const child = spawn(process.execPath, [BIN, ...args(api, tempDir('rawrag-cache-'), out, '--batch', '--seed', '6')], {
      cwd: ROOT,
      env: { ...process.env, ...env, RAWRAG_BATCH_POLL_MS: '20' } as NodeJS.ProcessEnv,
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    for (let i = 0; i < 400 && api.count('GET /v1/batches/id') < polls + 3; i++) await new Promise((r) => setTimeout(r, 50));
    expect(api.batches.size).toBe(before + 1);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/1 batch jobs running/);
    expect(stdout).toMatch(/resume: rawrag run locomo .*--batch --seed 6 --out /);
    expect(JSON.parse(readFileSync(join(out, 'batches.json'), 'utf8')).parts[0].status).toBe('validating');
  });

  it('--dry-run --batch shows both prices', async () => {
    const r = await rawragInProcess(['run', 'locomo', '--retriever', 'openai', '--reader', 'gpt-4o-mini', '--dry-run', '--batch'], {
      ...env,
      OPENAI_API_KEY: undefined,
      COHERE_API_KEY: undefined,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\| est\. cost \| est\. cost --batch \|/);
    const m = /estimated total: \$([\d.]+); with --batch \$([\d.]+)/.exec(r.stdout)!;
    expect(Number(m[2])).toBeLessThan(Number(m[1]));
  });

  it('a reader without a batch API is refused before anything runs (exit 2)', async () => {
    const out = join(tempDir(), 'ds');
    const r = await rawragInProcess([...args(api, tempDir(), out, '--batch'), '--reader', 'deepseek-chat'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/models\.yaml: models\.deepseek-chat: reader model 'deepseek-chat' has no batch API/);
    expect(existsSync(out)).toBe(false);
  });
});
