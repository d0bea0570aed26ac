/**
 * Provider replies are checked before they are cached (issue 20, item 3): an invalid reply is an
 * error, nothing is stored, and asking again re-requests. Also: a 200 HTML page is reported as
 * such, and a connection failure names the host. Real SDK clients against the loopback fake server.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProviderSession } from '../../../src/providers/session.js';
import { chatModel } from '../../../src/providers/clients.js';
import { remoteStages } from '../../../src/retrieval/remote/index.js';
import type { Embedder, Reranker } from '../../../src/core/retriever.js';
import { FakeApi, type RecordedRequest } from '../../helpers/fake-api.js';
import { tempDir } from '../../helpers/cli.js';
import { perTurn } from '../../helpers/episodes.js';

const ENV = { OPENAI_API_KEY: 'sk-unit-0123456789', COHERE_API_KEY: 'co-unit-0123456789', QWEN3_API_KEY: 'EMPTY' };
const TEXTS = ['I adopted a cat named Luna', 'the weather was fine', 'Luna likes tuna', 'we went hiking', 'my sister called'];
const ep = perTurn(TEXTS);
const candidates = TEXTS.map((_, i) => ({ chunk: i, score: 1 - i / 10 }));

let api: FakeApi;
let cacheDir: string;
beforeEach(async () => {
  api = await new FakeApi().start();
  cacheDir = tempDir();
});
afterEach(async () => {
  await api.close();
});

function session(): ProviderSession {
  return new ProviderSession({
    cacheDir,
    baseUrls: { embed: `${api.url}/v1`, rerank: api.url, reader: `${api.url}/v1` },
    env: ENV,
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
  });
}

function stages(s: ProviderSession, retriever = 'openai'): { embedder: Embedder; reranker: Reranker } {
  const st = remoteStages(s, retriever);
  if (!st.ok) throw new Error(st.reasons.join());
  return st;
}

/** A 200 reply with this JSON body, once, for requests to `path`. */
function reply(path: string, body: unknown): void {
  api.inject({
    kind: 'status',
    status: 200,
    match: (r: RecordedRequest) => r.path === path,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('rerank replies', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['one index 5 times', { results: Array.from({ length: 5 }, () => ({ index: 2, relevance_score: 0.9 })) }, /index 2 returned twice/],
    ['an index out of range', { results: [{ index: 7, relevance_score: 0.9 }] }, /index 7 out of range for 5 documents/],
    ['a fractional index', { results: [{ index: 1.5, relevance_score: 0.9 }] }, /index 1.5 out of range/],
    ['no results', { results: [] }, /no results for 5 documents/],
  ];
  it.each(bad)('Cohere: %s is an error, not cached, and asked again next time', async (_, body, message) => {
    const s = session();
    const { reranker } = stages(s);
    reply('/v2/rerank', body);
    await expect(reranker.rerank('Luna cat', candidates, ep, 15)).rejects.toThrow(message);
    expect(api.count('/v2/rerank')).toBe(1);
    s.close();
    // A new run on the same cache (what --retry-errors does) asks again and gets a valid ranking.
    const s2 = session();
    const hits = await stages(s2).reranker.rerank('Luna cat', candidates, ep, 15);
    expect(api.count('/v2/rerank')).toBe(2);
    expect(new Set(hits.map((h) => h.chunk)).size).toBe(hits.length);
    expect(hits).toHaveLength(5);
    // ... and that valid reply is what the cache now replays.
    const s3 = session();
    expect(await stages(s3).reranker.rerank('Luna cat', candidates, ep, 15)).toEqual(hits);
    expect(api.count('/v2/rerank')).toBe(2);
    s2.close();
    s3.close();
  });

  it('vLLM: a missing score and a 200 HTML page are errors, named as what they are', async () => {
    const s = new ProviderSession({
      cacheDir,
      baseUrls: { embed: `${api.url}/v1`, rerank: `${api.url}/v1` },
      env: ENV,
      retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const { reranker } = stages(s, 'qwen3');
    reply('/v1/rerank', { results: [{ index: 0 }] });
    await expect(reranker.rerank('Luna', candidates, ep, 15)).rejects.toThrow(/score NaN for index 0 is not a finite number/);
    api.inject({
      kind: 'status',
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: '<!DOCTYPE html><html><head><title>Sign in - Corp Proxy</title></head></html>',
    });
    await expect(reranker.rerank('Luna', candidates, ep, 15)).rejects.toThrow(/HTML page .*"Sign in - Corp Proxy"/);
    expect((await reranker.rerank('Luna', candidates, ep, 15)).length).toBe(5);
    s.close();
  });
});

describe('embedding replies', () => {
  it('a vector of the wrong dimension is a configuration error, not cached, and asked again', async () => {
    const s = session();
    const { embedder } = stages(s);
    await embedder.embed(['first text'], 'document'); // 64 dimensions: the length every later vector must have
    reply('/v1/embeddings', {
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2, 0.3] }],
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
    await expect(embedder.embed(['second text'], 'document')).rejects.toThrow(/answered vectors of 3 dimensions.*expected 64, got 3/);
    const [v] = await embedder.embed(['second text'], 'document');
    expect(v!.length).toBe(64);
    expect(api.count('/v1/embeddings')).toBe(3);
    s.close();
  });

  it('non-finite components, duplicate indices and a wrong count are errors', async () => {
    const s = session();
    const { embedder } = stages(s);
    reply(
      '/v1/embeddings',
      '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,1e999]}],"usage":{"prompt_tokens":1,"total_tokens":1}}',
    );
    await expect(embedder.embed(['a'], 'document')).rejects.toThrow(/not a finite number/);
    reply('/v1/embeddings', {
      object: 'list',
      data: [0, 0].map(() => ({ object: 'embedding', index: 0, embedding: [0.5, 0.5] })),
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
    await expect(embedder.embed(['b', 'c'], 'document')).rejects.toThrow(/index 0 returned twice/);
    reply('/v1/embeddings', { object: 'list', data: [], usage: { prompt_tokens: 1, total_tokens: 1 } });
    await expect(embedder.embed(['d'], 'document')).rejects.toThrow(/0 embeddings returned for 1 inputs/);
    s.close();
    // Nothing invalid was stored: a new session asks for each text again.
    const s2 = session();
    const before = api.count('/v1/embeddings');
    const vs = await stages(s2).embedder.embed(['a', 'b', 'c', 'd'], 'document');
    expect(api.count('/v1/embeddings')).toBe(before + 1);
    expect(vs.every((v) => v.length === 64 && [...v].every(Number.isFinite))).toBe(true);
    s2.close();
  });
});

describe('chat replies and connections', () => {
  const req = { messages: [{ role: 'user' as const, content: 'hi' }], temperature: 0, maxTokens: 10, jsonMode: false };

  it('a 200 HTML page is reported as an HTML page, not as an empty reply', async () => {
    const s = session();
    const reader = chatModel(s, 'reader', 'gpt-4o-mini');
    api.inject({
      kind: 'status',
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: '<html><head><title>Captive portal</title></head><body>log in</body></html>',
    });
    const err = await reader.complete(req, 0).catch((e: Error) => e);
    expect(String((err as Error).message)).toMatch(/expected a JSON reply but got an HTML page titled "Captive portal"/);
    expect(String((err as Error).message)).not.toMatch(/empty reply/);
    s.close();
  });

  it('a 200 HTML page to the embeddings and Cohere rerank endpoints is named too', async () => {
    const s = session();
    const { embedder, reranker } = stages(s);
    const page = {
      kind: 'status' as const,
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: '<html><head><title>Portal</title></head></html>',
    };
    api.inject(page);
    await expect(embedder.embed(['zz'], 'document')).rejects.toThrow(/expected a JSON reply but got an HTML page titled "Portal"/);
    api.inject(page);
    await expect(reranker.rerank('Luna', candidates, ep, 15)).rejects.toThrow(/expected a JSON reply but got an HTML page titled "Portal"/);
    s.close();
  });

  it('"Connection error." names the host it could not reach', async () => {
    const s = new ProviderSession({
      cacheDir,
      baseUrls: { reader: 'http://127.0.0.1:9/v1' },
      env: ENV,
      retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const reader = chatModel(s, 'reader', 'gpt-4o-mini');
    await expect(reader.complete(req, 0)).rejects.toThrow(/Connection error \(host 127\.0\.0\.1:9\)/);
    s.close();
  });
});
