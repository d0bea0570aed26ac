/**
 * `rawrag batch status|collect DIR` against the loopback Files/Batches peer: batches submitted
 * from deferred requests are polled and collected by the real CLI into the run's cache, with the
 * key sent as a bearer token and never written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderSession } from '../../src/providers/session.js';
import { chatModel } from '../../src/providers/clients.js';
import { DeferCollector } from '../../src/providers/batch/defer.js';
import { BatchJobs } from '../../src/providers/batch/jobs.js';
import { FakeBatchApi } from '../helpers/fake-batch-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const KEY = 'sk-test-BATCHSECRET0123456789';
const env = {
  OPENAI_API_KEY: KEY,
  OPENAI_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
  RAWRAG_RETRY_BASE_MS: '5',
  RAWRAG_BATCH_POLL_MS: '5',
};
const QUESTIONS = Array.from({ length: 12 }, (_, i) => `Question number ${i}?`);
const ask = (q: string) => ({ messages: [{ role: 'user' as const, content: q }], temperature: 0, maxTokens: 32, jsonMode: false });

describe('rawrag batch status / collect', () => {
  const api = new FakeBatchApi({ chat: (b) => `reply to ${b.messages.at(-1).content}` });
  const cacheDir = tempDir('rawrag-cache-');
  const runDir = tempDir('rawrag-run-');

  beforeAll(async () => {
    await api.start();
    api.scriptFor = () => ({ validatingPolls: 2, linesPerPoll: 5 });
    const s = new ProviderSession({ cacheDir, baseUrls: { reader: `${api.url}/v1` }, env: { OPENAI_API_KEY: KEY } });
    const sink = new DeferCollector();
    s.transport.defer = sink;
    const m = chatModel(s, 'reader', 'gpt-4o-mini');
    await Promise.allSettled(QUESTIONS.map((q) => m.complete(ask(q), 0)));
    await new BatchJobs({ dir: runDir, runId: 'e2e-run', session: s, log: () => {} }).submit(sink.requests());
    s.close();
  });
  afterAll(() => api.close());

  it('status asks the provider and prints one row per batch', async () => {
    const r = await rawragInProcess(['batch', 'status', runDir], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^batch batch_\d+ \(part 1, 12 requests, gpt-4o-mini\): validating\n$/);
    expect(r.stdout).toMatch(/\| part \| batch\s+\| model\s+\| requests\s+\| status/);
    expect(r.stdout).toMatch(/\|\s+1 \| batch_\d+\s+\| gpt-4o-mini \| 12 reader \| validating \|/);
    const offline = await rawragInProcess(['batch', 'status', runDir, '--offline'], env);
    expect(offline.stdout).toMatch(/validating/);
    expect(api.count('GET /v1/batches/id')).toBe(1);
  });

  it('collect --wait polls to the end and fills the run cache; costs are at batch prices; the key is sent, never written', async () => {
    const r = await rawragInProcess(['batch', 'collect', runDir, '--wait'], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/: in_progress 5\/12 done/);
    expect(r.stderr).toMatch(/: completed 12\/12 done/);
    expect(r.stdout).toMatch(/collected 12 replies into the response cache; 0 requests failed/);
    expect(r.stdout).toMatch(/cost of this collection at batch prices: \$0\.\d{4} \(reader 12 replies \$0\.\d{4}\)/);
    expect(r.stdout).toMatch(/all batches collected/);
    expect(api.chat.requests.filter((q) => q.headers['x-fake-batch']).length).toBe(12);
    const s = new ProviderSession({ cacheDir, baseUrls: { reader: `${api.url}/v1` }, env: {} });
    const replies = await Promise.all(QUESTIONS.map((q) => chatModel(s, 'reader', 'gpt-4o-mini').complete(ask(q), 0)));
    expect(replies.every((x) => x.cached && x.batch)).toBe(true);
    expect(replies[3]!.text).toBe('reply to Question number 3?');
    expect(api.interactiveChats()).toBe(0);
    s.close();
    const written = ['batches.json', ...readdirSync(join(runDir, 'batches')).map((f) => join('batches', f))]
      .map((f) => readFileSync(join(runDir, f), 'utf8'))
      .join('\n');
    expect(written).not.toContain(KEY);
    expect([...api.authorizations]).toEqual([`Bearer ${KEY}`]);
    const again = await rawragInProcess(['batch', 'collect', runDir], env);
    expect(again.stdout).toMatch(/collected 0 replies/);
  });

  it('a folder without batch jobs is bad input (exit 2, naming batches.json)', async () => {
    const r = await rawragInProcess(['batch', 'status', tempDir()], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/batches\.json: no batch jobs here/);
  });
});

describe('rawrag batch and the run directory lock', () => {
  it('collect is refused while another process holds the run (exit 2); status shows the recorded state', async () => {
    const { BatchStore } = await import('../../src/providers/batch/state.js');
    const { writeFileSync } = await import('node:fs');
    const { hostname } = await import('node:os');
    const dir = tempDir('rawrag-run-');
    new BatchStore(dir).save({ format: 'rawrag.batches/1', run_id: 'r', cache_dir: tempDir(), parts: [], failures: {} });
    // The test process itself stands for the other writer (alive, same host).
    writeFileSync(
      join(dir, '.rawrag.lock'),
      JSON.stringify({ pid: process.pid, host: hostname(), started_at: new Date().toISOString(), command: 'run locomo --batch' }) + '\n',
    );
    const c = await rawragInProcess(['batch', 'collect', dir], env);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/this run directory is in use by pid \d+ .*run locomo --batch/);
    const s = await rawragInProcess(['batch', 'status', dir], env);
    expect(s.code).toBe(0);
    expect(s.stderr).toMatch(/note: .*in use by pid .*: showing the recorded state/);
  });
});
