import { describe, expect, it } from 'vitest';
import { backoffMs, classifyFailure, retryAfterMs, withRetry, RetriesExhausted } from '../../../src/providers/retry.js';
import { HttpStatusError, BadReplyError } from '../../../src/providers/errors.js';
import { FakeApi } from '../../helpers/fake-api.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { chatModel } from '../../../src/providers/clients.js';
import { ProviderError } from '../../../src/providers/errors.js';
import { tempDir } from '../../helpers/cli.js';

describe('Retry-After parsing', () => {
  it('prefers retry-after-ms, then Retry-After seconds or HTTP date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  it('backs off exponentially with jitter, capped; honours the hint up to the cap', () => {
    const p = { maxRetries: 5, baseDelayMs: 1000, maxDelayMs: 60_000 };
    expect(backoffMs(0, p, undefined, () => 0)).toBe(1000);
    expect(backoffMs(3, p, undefined, () => 0)).toBe(8000);
    expect(backoffMs(3, p, undefined, () => 1)).toBe(6000);
    expect(backoffMs(10, p, undefined, () => 0)).toBe(60_000);
    expect(backoffMs(2, p, 1500)).toBe(1500);
    expect(backoffMs(2, p, 600_000)).toBe(60_000);
  });
});

describe('which failures are retried', () => {
  it('429, 408, 409 and 5xx yes; 400, 401, 404 no', () => {
    for (const s of [408, 409, 429, 500, 502, 503]) expect(classifyFailure(new HttpStatusError(s, new Headers(), '')).retryable).toBe(true);
    for (const s of [400, 401, 403, 404, 422]) expect(classifyFailure(new HttpStatusError(s, new Headers(), '')).retryable).toBe(false);
  });
  it('timeouts, resets and garbled JSON yes; a wrong reply shape no', () => {
    expect(classifyFailure(Object.assign(new Error('t'), { name: 'TimeoutError' })).retryable).toBe(true);
    expect(classifyFailure(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } })).retryable).toBe(true);
    expect(classifyFailure(new SyntaxError('Unexpected end of JSON input')).retryable).toBe(true);
    expect(classifyFailure(new BadReplyError('not floats', false)).retryable).toBe(false);
    expect(classifyFailure(new Error('boom')).retryable).toBe(false);
  });
  it('stops after maxRetries + 1 tries', async () => {
    let n = 0;
    const err = await withRetry(
      async () => {
        n++;
        throw new HttpStatusError(503, new Headers(), 'down');
      },
      { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 },
    ).catch((e) => e);
    expect(err).toBeInstanceOf(RetriesExhausted);
    expect(n).toBe(3);
    expect(err.attempts).toBe(3);
  });
});

describe('the openai SDK behind our retry layer (real loopback HTTP)', () => {
  it('retries 429 + Retry-After and a 500, with SDK retries off: exactly one request per try', async () => {
    const api = await new FakeApi().start();
    try {
      api.inject({ kind: 'status', status: 429, headers: { 'retry-after': '0' } });
      api.inject({ kind: 'status', status: 500 });
      const s = new ProviderSession({
        cacheDir: tempDir(),
        baseUrls: { reader: `${api.url}/v1` },
        env: { OPENAI_API_KEY: 'sk-unit-0123456789' },
        retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 },
      });
      const m = chatModel(s, 'reader', 'gpt-4o-mini');
      const r = await m.complete({ messages: [{ role: 'user', content: 'hi' }], temperature: 0, maxTokens: 8, jsonMode: false }, 0);
      expect(r.text).toBe("I don't know");
      expect(api.requests.map((x) => x.fault)).toEqual(['status 429', 'status 500', null]);
      expect(s.usage.report().reader!.retries).toBe(2);
      s.close();
    } finally {
      await api.close();
    }
  });

  it('a final failure is a ProviderError naming role, model and status, with the key scrubbed', async () => {
    const api = await new FakeApi().start();
    try {
      api.inject({
        kind: 'status',
        status: 401,
        times: Infinity,
        body: JSON.stringify({ error: { message: 'bad key sk-unit-SECRET-0123456789' } }),
      });
      const s = new ProviderSession({
        noCache: true,
        baseUrls: { judge: `${api.url}/v1` },
        env: { OPENAI_API_KEY: 'sk-unit-SECRET-0123456789' },
        retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 },
      });
      const m = chatModel(s, 'judge', 'gpt-4o-mini');
      const e = await m
        .complete({ messages: [{ role: 'user', content: 'x' }], temperature: 0, maxTokens: null, jsonMode: true }, 1)
        .catch((x) => x);
      expect(e).toBeInstanceOf(ProviderError);
      expect(e.message).toMatch(/^judge request to gpt-4o-mini failed \(HTTP 401\)/);
      expect(e.message).not.toContain('SECRET');
      expect(api.count()).toBe(1);
    } finally {
      await api.close();
    }
  });
});
