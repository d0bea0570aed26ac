/**
 * Issue 42, item 1: a 200 that breaks the API's promise — an empty body, `null`, a rerank index out
 * of range, an embeddings list one short — is retried like a 5xx, beside 429s, 500s and JSON cut
 * off mid-reply. 25 % of all tries of every provider request get one of these faults (decided by a
 * hash of the request and its try number, not by timing), through the loopback server, and a run
 * of 300 LoCoMo questions (embeddings, rerank, reader, judge) ends with 0 failed items in one pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, endpointArgs, type RecordedRequest } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const env = {
  OPENAI_API_KEY: 'sk-test-faults0123456789',
  COHERE_API_KEY: 'co-test-faults0123',
  RAWRAG_RETRY_BASE_MS: '1',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
};
const RATE = 0.25;
const KINDS = ['429', '500', 'malformed', 'empty', 'null', 'invalid'] as const;
const SEED = 'issue-42';

function faultPlan(): (r: RecordedRequest) => (typeof KINDS)[number] | null {
  const tries = new Map<string, number>();
  const decided = new WeakMap<RecordedRequest, (typeof KINDS)[number] | null>();
  return (r) => {
    if (decided.has(r)) return decided.get(r)!;
    const key = createHash('sha1')
      .update(r.path + JSON.stringify(r.body))
      .digest('hex');
    const n = tries.get(key) ?? 0;
    tries.set(key, n + 1);
    const h = createHash('sha1').update(`${SEED}:${key}:${n}`).digest();
    const kind = h.readUInt32LE(0) / 2 ** 32 < RATE ? KINDS[h[4]! % KINDS.length]! : null;
    decided.set(r, kind);
    return kind;
  };
}

describe('25 % mixed faults, invalid 200 replies among them: 300 LoCoMo questions, one pass', () => {
  const api = new FakeApi();
  const out = join(tempDir(), 'run');
  let r: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    await api.start();
    const plan = faultPlan();
    api.inject({ kind: 'status', status: 429, headers: { 'retry-after-ms': '1' }, times: Infinity, match: (x) => plan(x) === '429' });
    api.inject({ kind: 'status', status: 500, times: Infinity, match: (x) => plan(x) === '500' });
    for (const kind of ['malformed', 'empty', 'null', 'invalid'] as const)
      api.inject({ kind, times: Infinity, match: (x) => plan(x) === kind });
    r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--limit',
        '300',
        '--retriever',
        'openai',
        '--reader',
        'gpt-4o-mini',
        '--json',
        '--no-progress',
        ...endpointArgs(api),
        '--cache-dir',
        tempDir(),
        '--out',
        out,
      ],
      env,
    );
  }, 600_000);
  afterAll(() => api.close());

  it('rerank and chat got every kind of fault, about 25 % of their tries', () => {
    for (const path of ['/v2/rerank', '/v1/chat/completions']) {
      const reqs = api.byPath(path);
      const faulted = reqs.filter((x) => x.fault !== null);
      expect(faulted.length / reqs.length).toBeGreaterThan(RATE - 0.05);
      expect(faulted.length / reqs.length).toBeLessThan(RATE + 0.05);
      expect(new Set(faulted.map((x) => x.fault))).toEqual(new Set(['status 429', 'status 500', 'malformed', 'empty', 'null', 'invalid']));
    }
    expect(api.byPath('/v1/embeddings').length).toBeGreaterThan(0);
  });

  it('ends with 0 failed items', () => {
    const failed = readFileSync(join(out, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((i) => i.error !== null);
    expect([...new Set(failed.map((i) => `${i.error.stage}: ${i.error.message}`))]).toEqual([]);
    expect(r.stderr).not.toMatch(/failed|error/i);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.n).toBe(300);
    expect(s.errors).toBe(0);
    const items = readFileSync(join(out, 'items.jsonl'), 'utf8').trim().split('\n');
    expect(items).toHaveLength(300);
    expect(items.map((l) => JSON.parse(l)).filter((i) => i.error !== null)).toEqual([]);
  });
});
