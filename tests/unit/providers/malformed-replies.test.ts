/**
 * One rule for a 200 reply that is not the JSON promised (issue 32, item 3), in every client, over
 * real HTTP to loopback servers: a body cut off mid-JSON (with a JSON content type or a plain one)
 * is retried like a 5xx and the request then succeeds; when every try gets one, the failure names
 * the endpoint and asks about the base URL; an HTML page (a wrong base URL) fails at the first try.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderSession } from '../../../src/providers/session.js';
import { chatModel } from '../../../src/providers/clients.js';
import { remoteStages } from '../../../src/retrieval/remote/index.js';
import { notJsonReply } from '../../../src/providers/errors.js';
import { classifyFailure } from '../../../src/providers/retry.js';
import { JsonService } from '../../../src/systems/memory-service/http.js';
import { Secrets } from '../../../src/providers/secrets.js';
import { DeferCollector } from '../../../src/providers/batch/defer.js';
import { BatchJobs } from '../../../src/providers/batch/jobs.js';
import { FakeApi, type RecordedRequest } from '../../helpers/fake-api.js';
import { FakeBatchApi } from '../../helpers/fake-batch-api.js';
import { tempDir } from '../../helpers/cli.js';
import { perTurn } from '../../helpers/episodes.js';

const ENV = { OPENAI_API_KEY: 'sk-unit-0123456789', COHERE_API_KEY: 'co-unit-0123456789', QWEN3_API_KEY: 'EMPTY' };
const TEXTS = ['I adopted a cat named Luna', 'the weather was fine', 'Luna likes tuna', 'we went hiking', 'my sister called'];
const ep = perTurn(TEXTS);
const candidates = TEXTS.map((_, i) => ({ chunk: i, score: 1 - i / 10 }));
const CUT = '{"id": "x", "results": [ {"index": 0, "relevance_';
const HTML = '<html><head><title>Sign in</title></head><body>log in first</body></html>';
const RETRIES = 3;

let api: FakeApi;
beforeEach(async () => {
  api = await new FakeApi().start();
});
afterEach(async () => {
  await api.close();
});

function session(): ProviderSession {
  return new ProviderSession({
    noCache: true,
    baseUrls: { embed: `${api.url}/v1`, rerank: api.url, reader: `${api.url}/v1`, judge: `${api.url}/v1` },
    env: ENV,
    retry: { maxRetries: RETRIES, baseDelayMs: 1, maxDelayMs: 2 },
  });
}

/** 200 replies with this body (and content type) for requests to `path`, `times` times. */
function reply200(path: string, body: string, contentType: string, times = 1): void {
  api.inject({
    kind: 'status',
    status: 200,
    headers: { 'content-type': contentType },
    body,
    times,
    match: (r: RecordedRequest) => r.path === path,
  });
}

const chatReq = { messages: [{ role: 'user' as const, content: 'hi' }], temperature: 0, maxTokens: 10, jsonMode: false };
/** Each client: the path it posts to, the flag naming its endpoint, and one call. */
const clients: Array<[string, string, string, (s: ProviderSession) => Promise<unknown>]> = [
  ['Cohere rerank', '/v2/rerank', '--rerank-base-url', (s) => remote(s).reranker.rerank('Luna', candidates, ep, 3)],
  ['embeddings', '/v1/embeddings', '--embed-base-url', (s) => remote(s).embedder.embed(['zz'], 'document')],
  ['reader (chat)', '/v1/chat/completions', '--reader-base-url', (s) => chatModel(s, 'reader', 'gpt-4o-mini').complete(chatReq, 0)],
  ['judge (chat)', '/v1/chat/completions', '--judge-base-url', (s) => chatModel(s, 'judge', 'gpt-4o-mini').complete(chatReq, 1)],
];

function remote(s: ProviderSession) {
  const st = remoteStages(s, 'openai');
  if (!st.ok) throw new Error(st.reasons.join());
  return st;
}

describe('the rule', () => {
  it('JSON cut off, garbled or empty: retryable; an HTML page or other text: not', () => {
    expect(notJsonReply(CUT).retryable).toBe(true);
    expect(notJsonReply('{"a": 1,,}', 'text/plain').retryable).toBe(true);
    expect(notJsonReply('', 'application/json').retryable).toBe(true);
    expect(notJsonReply('upstream gone', 'application/json; charset=utf-8').retryable).toBe(true);
    expect(notJsonReply(HTML).retryable).toBe(false);
    expect(notJsonReply('{"x": 1}', 'text/html').retryable).toBe(false);
    expect(notJsonReply('Not Found', 'text/plain').retryable).toBe(false);
    expect(classifyFailure(notJsonReply(CUT)).retryable).toBe(true);
    expect(notJsonReply(HTML).message).toMatch(/an HTML page( \(content-type [^)]*\))? titled "Sign in" \(is the base URL right\?\)/);
  });
});

describe.each(clients)('%s', (_, path, flag, call) => {
  it.each(['application/json', 'text/plain'])('a reply cut off mid-JSON (%s) is retried, then the call succeeds', async (type) => {
    const s = session();
    reply200(path, CUT, type, 2);
    await expect(call(s)).resolves.toBeDefined();
    expect(api.byPath(path).map((r) => r.fault)).toEqual(['status 200', 'status 200', null]);
    s.close();
  });

  it('cut off on every try: fails after the retries, naming the endpoint and the base-URL flag', async () => {
    const s = session();
    reply200(path, CUT, 'application/json', Infinity);
    const err = (await (call(s) as Promise<unknown>).catch((e: Error) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(api.byPath(path)).toHaveLength(RETRIES + 1);
    const host = new URL(api.url).host;
    expect(err.message).toContain(` at ${host}`);
    expect(err.message).toContain(`(${flag})`);
    expect(err.message).toMatch(new RegExp(`failed after ${RETRIES + 1} tries: BadReplyError: malformed JSON`));
    expect(err.message).toMatch(/truncated or garbled; if every retry gets one, is the base URL right\?/);
    s.close();
  });

  it('an HTML page fails at the first try', async () => {
    const s = session();
    reply200(path, HTML, 'text/html; charset=utf-8', Infinity);
    await expect(call(s)).rejects.toThrow(/an HTML page( \(content-type [^)]*\))? titled "Sign in" \(is the base URL right\?\)/);
    expect(api.byPath(path)).toHaveLength(1);
    s.close();
  });
});

describe('vLLM rerank (plain fetch)', () => {
  it('a cut-off reply is retried; an HTML page is not', async () => {
    const s = new ProviderSession({
      noCache: true,
      baseUrls: { embed: `${api.url}/v1`, rerank: `${api.url}/v1` },
      env: ENV,
      retry: { maxRetries: RETRIES, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const { reranker } = (() => {
      const st = remoteStages(s, 'qwen3');
      if (!st.ok) throw new Error(st.reasons.join());
      return st;
    })();
    reply200('/v1/rerank', CUT, 'text/plain', 1);
    expect(await reranker.rerank('Luna', candidates, ep, 3)).toHaveLength(3);
    expect(api.byPath('/v1/rerank')).toHaveLength(2);
    reply200('/v1/rerank', HTML, 'text/html', Infinity);
    await expect(reranker.rerank('tuna', candidates, ep, 3)).rejects.toThrow(/HTML page( \(content-type [^)]*\))? titled "Sign in"/);
    expect(api.byPath('/v1/rerank')).toHaveLength(3);
    s.close();
  });
});

describe('memory services (JsonService)', () => {
  let server: Server;
  let url = '';
  let replies: Array<[string, string]> = [];
  let seen = 0;
  beforeEach(async () => {
    seen = 0;
    server = createServer((_req, res) => {
      seen++;
      const [type, body] = replies.shift() ?? ['application/json', '{"results": []}'];
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  const service = () =>
    new JsonService(
      url,
      {},
      { timeoutMs: 5000, retry: { maxRetries: RETRIES, baseDelayMs: 1, maxDelayMs: 2 }, concurrency: 1, secrets: new Secrets() },
      'mem0',
    );

  it('a cut-off reply (any content type) is retried; every try cut off fails naming the call and the base URL', async () => {
    replies = [
      ['text/plain', CUT],
      ['application/json', CUT],
    ];
    expect(await service().request({ method: 'POST', path: '/search', body: {} })).toEqual({ results: [] });
    expect(seen).toBe(3);
    replies = Array.from({ length: 10 }, () => ['application/json', CUT] as [string, string]);
    seen = 0;
    const err = await service()
      .request({ method: 'POST', path: '/search', body: {} })
      .catch((e: Error) => e);
    expect(seen).toBe(RETRIES + 1);
    expect((err as Error).message).toMatch(new RegExp(`^mem0 POST ${url}/search failed after ${RETRIES + 1} tries: malformed JSON`));
    expect((err as Error).message).toMatch(/is the base URL right\?/);
  });

  it('an HTML page fails at once', async () => {
    replies = Array.from({ length: 10 }, () => ['text/html', HTML] as [string, string]);
    await expect(service().request({ method: 'GET', path: '/memories' })).rejects.toThrow(
      /HTML page( \(content-type [^)]*\))? titled "Sign in"/,
    );
    expect(seen).toBe(1);
  });
});

describe('batch output files', () => {
  it('a file cut off in transfer is downloaded again; every reply lands in the cache', async () => {
    const b = await new FakeBatchApi({ chat: (body) => `answer to: ${body.messages.at(-1).content}` }).start();
    try {
      const s = new ProviderSession({
        cacheDir: tempDir(),
        baseUrls: { reader: `${b.url}/v1` },
        env: {},
        retry: { maxRetries: RETRIES, baseDelayMs: 1, maxDelayMs: 2 },
      });
      const sink = new DeferCollector();
      s.transport.defer = sink;
      const m = chatModel(s, 'reader', 'gpt-4o-mini');
      const qs = ['Where did Ann go?', 'When did Bob move?', 'What does Cy like?', 'Who is Di?'];
      await Promise.allSettled(qs.map((q) => m.complete({ ...chatReq, messages: [{ role: 'user', content: q }] }, 0)));
      s.transport.defer = undefined;
      const jobs = new BatchJobs({ dir: tempDir(), runId: 'run-cut', session: s, log: () => {}, pollMs: { initial: 1, max: 2 } });
      await jobs.submit(sink.requests());
      b.cutDownloads = 2;
      const report = await jobs.wait();
      expect(report).toMatchObject({ stored: 4, failed: 0 });
      expect(b.count('GET /v1/files/content')).toBe(3);
      for (const q of qs) {
        const r = await m.complete({ ...chatReq, messages: [{ role: 'user', content: q }] }, 0);
        expect(r).toMatchObject({ cached: true, text: `answer to: ${q}` });
      }
      s.close();
    } finally {
      await b.close();
    }
  });
});
