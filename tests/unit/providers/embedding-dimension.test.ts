/**
 * Issue 42, item 1: an embedding of the wrong dimension is a configuration error — named (model,
 * endpoint, expected vs got), not retried, not blamed on "embedding 0" — while vectors of mixed
 * lengths inside one reply are a broken reply, retried like a 5xx. Real OpenAI SDK against the
 * loopback server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProviderSession } from '../../../src/providers/session.js';
import { remoteStages } from '../../../src/retrieval/remote/index.js';
import type { Embedder } from '../../../src/core/retriever.js';
import { ConfigurationError } from '../../../src/util/errors.js';
import { FakeApi } from '../../helpers/fake-api.js';
import { tempDir } from '../../helpers/cli.js';

const ENV = { OPENAI_API_KEY: 'sk-unit-0123456789', COHERE_API_KEY: 'co-unit-0123456789' };

let api: FakeApi;
beforeEach(async () => {
  api = await new FakeApi().start();
});
afterEach(async () => {
  await api.close();
});

function embedderOf(s: ProviderSession): Embedder {
  const st = remoteStages(s, 'openai');
  if (!st.ok) throw new Error(st.reasons.join());
  return st.embedder;
}

function session(): ProviderSession {
  return new ProviderSession({
    cacheDir: tempDir(),
    baseUrls: { embed: `${api.url}/v1`, rerank: api.url },
    env: ENV,
    // Retries allowed: the point is that a wrong dimension does not use them.
    retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 1 },
  });
}

function vectorsReply(lengths: number[]): string {
  return JSON.stringify({
    object: 'list',
    model: 'text-embedding-3-small',
    data: lengths.map((n, index) => ({ object: 'embedding', index, embedding: Array.from({ length: n }, (_, k) => (k + 1) / n) })),
    usage: { prompt_tokens: lengths.length, total_tokens: lengths.length },
  });
}

describe('embedding dimension', () => {
  it("a reply of another dimension than the index's is a configuration error naming model, endpoint, expected and got; not retried", async () => {
    const s = session();
    const embedder = embedderOf(s);
    await embedder.embed(['the index is built first'], 'document'); // 64 dimensions
    api.inject({ kind: 'status', status: 200, times: Infinity, match: (r) => r.path === '/v1/embeddings', body: vectorsReply([3, 3]) });
    const err = await embedder.embed(['a question', 'another'], 'query').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigurationError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/openai:text-embedding-3-small/);
    expect(msg).toContain(new URL(api.url).host);
    expect(msg).toMatch(/expected 64, got 3/);
    expect(msg).not.toMatch(/embedding 0/);
    // One request, no retries.
    expect(api.count('/v1/embeddings')).toBe(2);
    s.close();
  });

  it('vectors of mixed lengths in one reply are an invalid reply, retried: the next try succeeds', async () => {
    const s = session();
    const embedder = embedderOf(s);
    api.inject({ kind: 'status', status: 200, match: (r) => r.path === '/v1/embeddings', body: vectorsReply([64, 3]) });
    const vs = await embedder.embed(['first', 'second'], 'document');
    expect(vs.map((v) => v.length)).toEqual([64, 64]);
    expect(api.count('/v1/embeddings')).toBe(2);
    s.close();
  });
});
