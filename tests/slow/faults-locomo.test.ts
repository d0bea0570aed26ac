/**
 * A bad day at the providers (issue 32): 20 % of all requests to the embeddings, rerank, reader and
 * judge endpoints fail — 429 with Retry-After, 500, or a 200 whose JSON is cut off mid-reply — and
 * a whole LoCoMo run (1,540 questions, reader and judge) still ends with 0 failed items in one pass,
 * without --retry-errors. Each try of each request is faulted independently (decided by a hash of
 * the request and its try number, so the faults do not depend on timing); the default retry budget
 * makes a request fail for good with probability 0.2^9.
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
const RATE = 0.2;
const KINDS = ['429', '500', 'malformed'] as const;
const SEED = 'issue-32';

/** Which fault (if any) a request gets: by its content and how many times the same request came before. */
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
    const u = h.readUInt32LE(0) / 2 ** 32;
    const kind = u < RATE ? KINDS[h[4]! % KINDS.length]! : null;
    decided.set(r, kind);
    return kind;
  };
}

describe('20 % faults on every provider endpoint: a whole LoCoMo run, one pass', () => {
  const api = new FakeApi();
  const out = join(tempDir(), 'run');
  let r: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    await api.start();
    const plan = faultPlan();
    api.inject({ kind: 'status', status: 429, headers: { 'retry-after-ms': '1' }, times: Infinity, match: (x) => plan(x) === '429' });
    api.inject({ kind: 'status', status: 500, times: Infinity, match: (x) => plan(x) === '500' });
    api.inject({ kind: 'malformed', times: Infinity, match: (x) => plan(x) === 'malformed' });
    r = await rawragInProcess(
      [
        'run',
        'locomo',
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

  it('every endpoint was faulted; rerank and chat about 20 % of the time, with each kind of fault', () => {
    for (const path of ['/v1/embeddings', '/v2/rerank', '/v1/chat/completions']) {
      const reqs = api.byPath(path);
      const faulted = reqs.filter((x) => x.fault !== null);
      expect(reqs.length).toBeGreaterThan(0);
      // Embeddings go out in a few large batches (their share of faults is noise); rerank and chat in thousands.
      if (reqs.length < 100) continue;
      // Retries are faulted too, so the share of faulted tries is the rate itself.
      expect(faulted.length / reqs.length).toBeGreaterThan(RATE - 0.05);
      expect(faulted.length / reqs.length).toBeLessThan(RATE + 0.05);
      expect(new Set(faulted.map((x) => x.fault))).toEqual(new Set(['status 429', 'status 500', 'malformed']));
    }
  });

  it('ends with 0 errors: every question read and judged', () => {
    expect(r.stderr).not.toMatch(/failed|error/i);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.n).toBe(1540);
    expect(s.errors).toBe(0);
    expect(s.overall.scored).toBe(1540);
    const items = readFileSync(join(out, 'items.jsonl'), 'utf8').trim().split('\n');
    expect(items).toHaveLength(1540);
    expect(items.map((l) => JSON.parse(l)).filter((i) => i.error !== null)).toEqual([]);
    // Each fault cost a retry (at least one per faulted try; the run counts them per role).
    const retries = ['embed', 'rerank', 'reader', 'judge'].reduce((n, role) => n + (s.usage[role]?.retries ?? 0), 0);
    expect(retries).toBe(api.requests.filter((x) => x.fault !== null).length);
  });
});
