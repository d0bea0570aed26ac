/**
 * Issue 42, item 1: an embedding endpoint that answers another dimension than the index was built
 * with is a setting, not a fault of each item: the run stops with exit 2 naming the model, the
 * endpoint and expected vs got, after one request (no retries), instead of failing every item.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, endpointArgs } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const env = {
  OPENAI_API_KEY: 'sk-test-dimension0123456789',
  COHERE_API_KEY: 'co-test-dimension0123',
  RAWRAG_RETRY_BASE_MS: '1',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
};

describe('an embedding of the wrong dimension stops the run', () => {
  const api = new FakeApi();
  const out = join(tempDir(), 'run');
  let r: { code: number; stdout: string; stderr: string };
  let embedsBefore = 0;
  beforeAll(async () => {
    await api.start();
    // The conversation's chunks (many inputs a request) get 64 dimensions, the question (one input) 3.
    api.inject({
      kind: 'status',
      status: 200,
      times: Infinity,
      match: (x) => x.path === '/v1/embeddings' && !(Array.isArray(x.body.input) && x.body.input.length > 1),
      body: JSON.stringify({
        object: 'list',
        model: 'text-embedding-3-small',
        data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2, 0.3] }],
        usage: { prompt_tokens: 1, total_tokens: 1 },
      }),
    });
    r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--limit',
        '1',
        '--retriever',
        'openai',
        '--reader',
        'gpt-4o-mini',
        '--no-progress',
        ...endpointArgs(api),
        '--cache-dir',
        tempDir(),
        '--out',
        out,
      ],
      env,
    );
    embedsBefore = api.count('/v1/embeddings');
  }, 300_000);
  afterAll(() => api.close());

  it('exits 2 naming model, endpoint, expected and got, not "embedding 0"', () => {
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/openai:text-embedding-3-small/);
    expect(r.stderr).toContain(new URL(api.url).host);
    expect(r.stderr).toMatch(/expected (64, got 3|3, got 64)/);
    expect(r.stderr).not.toMatch(/embedding 0/);
  });

  it('is not retried and no item is recorded as failed', () => {
    // The chunks' request and the question's one: no retry of the wrong-sized reply.
    expect(embedsBefore).toBe(2);
    const items = existsSync(join(out, 'items.jsonl')) ? readFileSync(join(out, 'items.jsonl'), 'utf8').trim() : '';
    expect(items).toBe('');
  });
});
