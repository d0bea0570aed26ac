import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderSession } from '../../../src/providers/session.js';
import { chatModel } from '../../../src/providers/clients.js';
import type { ChatRequest } from '../../../src/providers/chat.js';
import { ProviderError } from '../../../src/providers/errors.js';
import { DeferCollector, DeferredRequestError, type DeferredRequest } from '../../../src/providers/batch/defer.js';
import { BatchJobs } from '../../../src/providers/batch/jobs.js';
import { planParts, partHash } from '../../../src/providers/batch/parts.js';
import { FakeBatchApi } from '../../helpers/fake-batch-api.js';
import { tempDir } from '../../helpers/cli.js';

const servers: FakeBatchApi[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(): Promise<FakeBatchApi> {
  // Replies depend on the question, so a mixed-up key would show.
  const s = await new FakeBatchApi({ chat: (b) => `answer to: ${b.messages.at(-1).content}` }).start();
  servers.push(s);
  return s;
}

function session(api: FakeBatchApi, cacheDir: string, extra: { maxRetries?: number } = {}): ProviderSession {
  return new ProviderSession({
    cacheDir,
    baseUrls: { reader: `${api.url}/v1`, judge: `${api.url}/v1` },
    env: {},
    retry: { maxRetries: extra.maxRetries ?? 2, baseDelayMs: 1, maxDelayMs: 5 },
  });
}

const reader = (q: string): ChatRequest => ({
  messages: [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: q },
  ],
  temperature: 0,
  maxTokens: 64,
  jsonMode: false,
});
const judge = (q: string): ChatRequest => ({
  messages: [{ role: 'user', content: `grade ${q}` }],
  temperature: 0,
  maxTokens: 32,
  jsonMode: true,
});
const QUESTIONS = ['Where did Ann go?', 'When did Bob move?', 'What does Cy like?', 'Who is Di?', 'Why did Ed leave?'];

/** One pass in batch mode: every request is deferred (or fails if recorded as failed). */
async function deferPass(
  s: ProviderSession,
  failures?: Map<string, string>,
): Promise<{ sink: DeferCollector; outcomes: PromiseSettledResult<unknown>[] }> {
  const sink = new DeferCollector(failures);
  s.transport.defer = sink;
  const m = chatModel(s, 'reader', 'gpt-4o-mini');
  const outcomes = await Promise.allSettled(QUESTIONS.map((q) => m.complete(reader(q), 0)));
  s.transport.defer = undefined;
  return { sink, outcomes };
}

function jobs(s: ProviderSession, dir: string, log: string[] = []): BatchJobs {
  return new BatchJobs({ dir, runId: 'run-test', session: s, log: (l) => log.push(l), pollMs: { initial: 1, max: 4 } });
}

describe('deferral', () => {
  it('records each cache miss with its key and the exact body, sends nothing, and throws DeferredRequestError', async () => {
    const api = await server();
    const s = session(api, tempDir());
    const sink = new DeferCollector();
    s.transport.defer = sink;
    const m = chatModel(s, 'reader', 'gpt-4o-mini');
    const j = chatModel(s, 'judge', 'gpt-4o-mini');
    await expect(m.complete(reader('Q1'), 0)).rejects.toBeInstanceOf(DeferredRequestError);
    await expect(m.complete(reader('Q1'), 0)).rejects.toBeInstanceOf(DeferredRequestError);
    await Promise.allSettled([1, 2, 3].map((r) => j.complete(judge('Q1'), r)));
    expect(api.chat.requests).toHaveLength(0);
    expect(sink.size).toBe(4); // 1 reader (asked twice) + 3 judge replicates
    const reqs = sink.requests();
    expect(reqs.map((r) => r.role).sort()).toEqual(['judge', 'judge', 'judge', 'reader']);
    expect(reqs.map((r) => r.key)).toEqual([...reqs.map((r) => r.key)].sort());
    // The body is what an interactive call sends.
    const live = session(api, tempDir());
    await chatModel(live, 'reader', 'gpt-4o-mini').complete(reader('Q1'), 0);
    expect(reqs.find((r) => r.role === 'reader')!.body).toEqual(api.chat.requests[0]!.body);
    expect(reqs.find((r) => r.role === 'reader')!.baseUrl).toBe(`${api.url}/v1`);
    // Cache hits are served, not deferred.
    s.transport.defer = new DeferCollector();
    const l2 = session(api, live.cache.dir!);
    l2.transport.defer = new DeferCollector();
    expect((await chatModel(l2, 'reader', 'gpt-4o-mini').complete(reader('Q1'), 0)).cached).toBe(true);
    s.close();
    live.close();
    l2.close();
  });
});

describe('batch jobs through the openai SDK', () => {
  it('submit + collect fill the cache with the interactive keys and replies; the next pass sends nothing; costs at batch prices', async () => {
    const api = await server();
    const cacheDir = tempDir();
    const runDir = tempDir();
    const s = session(api, cacheDir);
    const { sink } = await deferPass(s);
    expect(sink.size).toBe(QUESTIONS.length);
    const log: string[] = [];
    api.scriptFor = () => ({ validatingPolls: 2, linesPerPoll: 2 });
    const bj = jobs(s, runDir, log);
    const parts = await bj.submit(sink.requests());
    expect(parts).toHaveLength(1);
    expect(api.count('POST /v1/files')).toBe(1);
    expect(api.count('POST /v1/batches')).toBe(1);
    const created = [...api.batches.values()][0]!;
    expect(created.metadata).toEqual({
      rawrag_run: 'run-test',
      rawrag_part: '1',
      rawrag_hash: partHash(sink.requests().map((r) => r.key)),
    });
    expect(created.completion_window).toBe('24h');
    expect(created.lines.map((l) => l.custom_id)).toEqual(sink.requests().map((r) => r.key));
    const report = await bj.wait();
    expect(report).toMatchObject({ stored: 5, failed: 0, resubmitted: 0 });
    expect(log.some((l) => /: validating$/.test(l))).toBe(true);
    expect(log.some((l) => /: in_progress 2\/5 done$/.test(l))).toBe(true);
    expect(log.some((l) => /: finalizing 5\/5 done$/.test(l))).toBe(true);
    expect(log.some((l) => /: completed 5\/5 done$/.test(l))).toBe(true);
    // Cost of the collected replies at batch prices (half of gpt-4o-mini's), also kept in batches.json.
    const u = report.usage.reader!;
    expect(u.replies).toBe(5);
    expect(u.prompt_tokens).toBeGreaterThan(0);
    expect(u.cost_usd).toBeCloseTo((u.prompt_tokens * 0.075 + u.completion_tokens * 0.3) / 1e6, 12);
    expect(jobs(s, runDir).usage()).toEqual(report.usage);
    const state = JSON.parse(readFileSync(join(runDir, 'batches.json'), 'utf8'));
    expect(state.parts[0]).toMatchObject({ status: 'completed', batch_id: created.id, collected: { stored: 5, failed: 0 } });

    // The interactive pass over the same cache: every reply is a hit, nothing is sent.
    const chatBefore = api.interactiveChats();
    const s2 = session(api, cacheDir);
    const m2 = chatModel(s2, 'reader', 'gpt-4o-mini');
    const fromBatch = await Promise.all(QUESTIONS.map((q) => m2.complete(reader(q), 0)));
    expect(api.interactiveChats()).toBe(chatBefore);
    expect(fromBatch.every((r) => r.cached && r.batch)).toBe(true);
    const r2 = s2.usage.report().reader!;
    expect(r2.cost_usd_total).toBeCloseTo(u.cost_usd!, 12);
    // ... and the replies equal an interactive run's from an empty cache.
    const s3 = session(api, tempDir());
    const m3 = chatModel(s3, 'reader', 'gpt-4o-mini');
    const interactive = await Promise.all(QUESTIONS.map((q) => m3.complete(reader(q), 0)));
    expect(fromBatch.map((r) => [r.text, r.prompt_tokens, r.completion_tokens])).toEqual(
      interactive.map((r) => [r.text, r.prompt_tokens, r.completion_tokens]),
    );
    for (const x of [s, s2, s3]) x.close();
  });

  it('a create whose reply is lost (as after kill -9 between create and recording) is adopted, never submitted twice', async () => {
    const api = await server();
    const runDir = tempDir();
    const s = session(api, tempDir(), { maxRetries: 0 });
    const { sink } = await deferPass(s);
    api.scriptFor = (n) => ({ dropCreateReply: n === 0 });
    await expect(jobs(s, runDir).submit(sink.requests())).rejects.toThrow(ProviderError);
    const before = JSON.parse(readFileSync(join(runDir, 'batches.json'), 'utf8'));
    expect(before.parts[0]).toMatchObject({ status: 'prepared', batch_id: null });
    expect(api.batches.size).toBe(1);
    // A new process: it finds the batch by its metadata.
    const log: string[] = [];
    const again = jobs(s, runDir, log);
    await again.submit(sink.requests());
    expect(api.count('POST /v1/batches')).toBe(1);
    expect(api.count('POST /v1/files')).toBe(1);
    expect(again.parts[0]!.batch_id).toBe([...api.batches.keys()][0]);
    expect(log.join('\n')).toMatch(/adopted/);
    // Submitting the same pending requests again while the batch is live is a no-op too.
    await again.submit(sink.requests());
    expect(api.count('POST /v1/batches')).toBe(1);
    expect((await again.wait()).stored).toBe(5);
    s.close();
  });

  it('with retries on, a lost create reply is retried as a search first (one batch)', async () => {
    const api = await server();
    const s = session(api, tempDir(), { maxRetries: 3 });
    const { sink } = await deferPass(s);
    api.scriptFor = (n) => ({ dropCreateReply: n === 0 });
    const bj = jobs(s, tempDir());
    await bj.submit(sink.requests());
    expect(api.batches.size).toBe(1);
    expect(bj.parts[0]!.batch_id).toBe([...api.batches.keys()][0]);
    s.close();
  });

  it('an expired batch: its replies are kept and only its unfinished requests go out again', async () => {
    const api = await server();
    const s = session(api, tempDir());
    const { sink } = await deferPass(s);
    api.scriptFor = (n) => (n === 0 ? { expireAfter: 2 } : {});
    const log: string[] = [];
    const bj = jobs(s, tempDir(), log);
    await bj.submit(sink.requests());
    const report = await bj.wait();
    expect(report).toMatchObject({ stored: 5, failed: 0, resubmitted: 3 });
    const [first, second] = [...api.batches.values()];
    expect(first!.status).toBe('expired');
    expect(second!.lines.map((l) => l.custom_id)).toEqual(first!.lines.slice(2).map((l) => l.custom_id));
    // Each request ran exactly once inside a batch.
    const ran = api.chat.requests.filter((r) => r.headers['x-fake-batch']).map((r) => r.body.messages.at(-1).content);
    expect(ran.sort()).toEqual([...QUESTIONS].sort());
    expect(bj.parts[0]!.resubmitted_as).toEqual([bj.parts[1]!.hash]);
    expect(log.join('\n')).toMatch(/expired with 2 replies; resubmitting its 3 unfinished requests/);
    // Everything is in the cache now.
    const { sink: after } = await deferPass(s);
    expect(after.size).toBe(0);
    s.close();
  });

  it('an empty output file once (a download that came back empty) is downloaded again: every reply stored, nothing failed (issue 42)', async () => {
    const api = await server();
    const s = session(api, tempDir());
    const { sink } = await deferPass(s);
    api.emptyDownloads = 1;
    const bj = jobs(s, tempDir());
    await bj.submit(sink.requests());
    expect(await bj.wait()).toMatchObject({ stored: 5, failed: 0, resubmitted: 0 });
    expect(api.batches.size).toBe(1);
    expect(bj.failures().size).toBe(0);
    s.close();
  });

  it('a completed batch whose output file is empty for good: its requests are resubmitted, not failed; each failing part is resubmitted at most the retry limit (issue 42)', async () => {
    const api = await server();
    const s = session(api, tempDir());
    const { sink } = await deferPass(s);
    api.scriptFor = (n) => (n === 0 ? { emptyOutput: true } : {});
    const log: string[] = [];
    const bj = jobs(s, tempDir(), log);
    await bj.submit(sink.requests());
    expect(await bj.wait()).toMatchObject({ stored: 5, failed: 0, resubmitted: 5 });
    expect(api.batches.size).toBe(2);
    expect(bj.failures().size).toBe(0);
    expect(log.join('\n')).toMatch(/completed, but its output holds no result for 5 of 5 requests \(an invalid batch output\); resubmitting/);
    const { sink: after } = await deferPass(s);
    expect(after.size).toBe(0);

    // A provider whose every output is empty: resubmitted maxRetries (2) times, then recorded as failures, not looped on.
    const api2 = await server();
    const s2 = session(api2, tempDir());
    const { sink: sink2 } = await deferPass(s2);
    api2.scriptFor = () => ({ emptyOutput: true });
    const bj2 = jobs(s2, tempDir());
    await bj2.submit(sink2.requests());
    expect(await bj2.wait()).toMatchObject({ stored: 0, failed: 5, resubmitted: 10 });
    expect(api2.batches.size).toBe(3);
    expect([...bj2.failures().values()][0]).toMatch(/no result in batch/);
    s.close();
    s2.close();
  });

  it('per-request errors are recorded failures: the next pass makes them errors; after --retry-errors they are resubmitted', async () => {
    const api = await server();
    const s = session(api, tempDir());
    api.chat.inject({ kind: 'status', status: 400, times: 1, match: (r) => JSON.stringify(r.body).includes('Who is Di?') });
    const { sink } = await deferPass(s);
    const runDir = tempDir();
    const bj = jobs(s, runDir);
    await bj.submit(sink.requests());
    expect(await bj.wait()).toMatchObject({ stored: 4, failed: 1 });
    expect([...bj.failures().values()][0]).toMatch(/HTTP 400: injected 400/);
    // The pass: four cached, one item error, nothing deferred.
    const { sink: next, outcomes } = await deferPass(s, bj.failures());
    expect(next.size).toBe(0);
    const errors = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.reason).toBeInstanceOf(ProviderError);
    expect(String(errors[0]!.reason.message)).toMatch(/failed in a batch job: HTTP 400/);
    // --retry-errors: forgotten failures are deferred and sent again, in a new batch of one.
    const reopened = jobs(s, runDir);
    expect(reopened.clearFailures()).toBe(1);
    const { sink: retry } = await deferPass(s, reopened.failures());
    expect(retry.size).toBe(1);
    await reopened.submit(retry.requests());
    expect(await reopened.wait()).toMatchObject({ stored: 1, failed: 0 });
    expect(api.batches.size).toBe(2);
    const { outcomes: final } = await deferPass(s, reopened.failures());
    expect(final.every((o) => o.status === 'fulfilled')).toBe(true);
    s.close();
  });

  it('a failed or cancelled batch is reported and its requests recorded as failures', async () => {
    const api = await server();
    const s = session(api, tempDir());
    const { sink } = await deferPass(s);
    api.scriptFor = () => ({ fail: 'model gpt-4o-mini is not available for batch' });
    const log: string[] = [];
    const bj = jobs(s, tempDir(), log);
    await bj.submit(sink.requests());
    const r = await bj.wait();
    expect(r.lost).toHaveLength(1);
    expect(r.lost[0]).toMatch(/failed \(invalid_request: model gpt-4o-mini is not available for batch\): 5 of 5 requests not run/);
    expect(bj.failures().size).toBe(5);
    // A failed batch is never adopted: --retry-errors submits a new one.
    bj.clearFailures();
    api.scriptFor = () => ({ validatingPolls: 5 });
    await bj.submit(sink.requests());
    expect(api.batches.size).toBe(2);
    const second = bj.parts[1]!;
    const client = (await import('openai')).default;
    await new client({ apiKey: 'x', baseURL: `${api.url}/v1` }).batches.cancel(second.batch_id!);
    const r2 = await bj.wait();
    expect(r2.lost[0]).toMatch(/was cancelled: 5 of 5 requests not run/);
    s.close();
  });

  it('an unusable batch reply (an unreadable judge verdict) is dropped from the cache when its caller rejects it', async () => {
    const api = await server();
    const cacheDir = tempDir();
    const s = session(api, cacheDir);
    const sink = new DeferCollector();
    s.transport.defer = sink;
    const j = chatModel(s, 'judge', 'gpt-4o-mini');
    await expect(j.complete(judge('Q'), 1)).rejects.toBeInstanceOf(DeferredRequestError);
    const bj = jobs(s, tempDir());
    await bj.submit(sink.requests());
    await bj.wait();
    s.transport.defer = undefined;
    const reply = await j.complete(judge('Q'), 1, () => false);
    expect(reply).toMatchObject({ cached: true, batch: true });
    // Gone: the next call asks the server.
    const again = await j.complete(judge('Q'), 1);
    expect(again.cached).toBe(false);
    expect(api.interactiveChats()).toBe(1);
    s.close();
  });
});

describe('batch parts', () => {
  const req = (key: string, model = 'gpt-4o-mini', size = 10): DeferredRequest => ({
    key,
    role: 'reader',
    model,
    baseUrl: 'http://h/v1',
    url: '/v1/chat/completions',
    body: { model, messages: [{ role: 'user', content: 'x'.repeat(size) }] },
    replicate: 0,
  });

  it('split at the request and byte limits, one model per part, the same parts whatever the input order', () => {
    const reqs = ['k5', 'k1', 'k3', 'k2', 'k4'].map((k) => req(k));
    const a = planParts(reqs, () => ({ requests: 2, bytes: 1e9 }));
    expect(a.map((p) => p.requests.map((r) => r.key))).toEqual([['k1', 'k2'], ['k3', 'k4'], ['k5']]);
    const b = planParts([...reqs].reverse(), () => ({ requests: 2, bytes: 1e9 }));
    expect(b.map((p) => p.hash)).toEqual(a.map((p) => p.hash));
    const lineBytes = a[0]!.bytes / 2;
    const byBytes = planParts(reqs, () => ({ requests: 100, bytes: lineBytes * 3 }));
    expect(byBytes.map((p) => p.requests.length)).toEqual([3, 2]);
    expect(byBytes.every((p) => p.bytes <= lineBytes * 3 && Buffer.byteLength(p.jsonl) === p.bytes)).toBe(true);
    const mixed = planParts([req('a', 'gpt-4o'), req('b', 'gpt-4o-mini'), req('c', 'gpt-4o')], () => ({ requests: 100, bytes: 1e9 }));
    expect(mixed.map((p) => [p.model, p.requests.length])).toEqual([
      ['gpt-4o', 2],
      ['gpt-4o-mini', 1],
    ]);
    expect(JSON.parse(mixed[0]!.jsonl.split('\n')[0]!)).toEqual({
      custom_id: 'a',
      method: 'POST',
      url: '/v1/chat/completions',
      body: req('a', 'gpt-4o').body,
    });
    expect(() => planParts([req('big', 'gpt-4o', 500)], () => ({ requests: 10, bytes: 100 }))).toThrow(/over the batch limit/);
  });

  it('a part never submitted whose requests now go in another part is superseded, not sent', async () => {
    const api = await server();
    const s = session(api, tempDir(), { maxRetries: 0 });
    const { sink } = await deferPass(s);
    const runDir = tempDir();
    api.rejectCreate = 'no batches today';
    await expect(jobs(s, runDir).submit(sink.requests())).rejects.toThrow(/no batches today/);
    api.rejectCreate = null;
    const bj = jobs(s, runDir);
    await bj.submit(sink.requests().slice(0, 3));
    expect(bj.parts.map((p) => [p.requests, p.status])).toEqual([
      [5, 'superseded'],
      [3, 'validating'],
    ]);
    expect(api.batches.size).toBe(1);
    await bj.submit(sink.requests().slice(0, 3));
    expect(api.batches.size).toBe(1);
    s.close();
  });

  it('batches.json and the part files are written before anything is uploaded', async () => {
    const api = await server();
    const s = session(api, tempDir(), { maxRetries: 0 });
    const { sink } = await deferPass(s);
    const runDir = tempDir();
    await api.close(); // nothing listens: the upload fails
    servers.length = 0;
    await expect(jobs(s, runDir).submit(sink.requests())).rejects.toThrow(ProviderError);
    const state = JSON.parse(readFileSync(join(runDir, 'batches.json'), 'utf8'));
    expect(state.parts).toHaveLength(1);
    expect(existsSync(join(runDir, 'batches', `${state.parts[0].hash}.jsonl`))).toBe(true);
    s.close();
  });
});
