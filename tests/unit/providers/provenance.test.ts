import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderSession } from '../../../src/providers/session.js';
import { chatModel } from '../../../src/providers/clients.js';
import { endpointId } from '../../../src/providers/provenance.js';
import { FingerprintedApi } from '../../helpers/fake-provenance.js';
import { tempDir } from '../../helpers/cli.js';

const ENV = { OPENAI_API_KEY: 'sk-unit-0123456789' };
const REQ = {
  messages: [{ role: 'user' as const, content: 'What did Caroline research?' }],
  temperature: 0,
  maxTokens: 32,
  jsonMode: false,
};

describe('reply provenance and --cache-scope (two loopback endpoints)', () => {
  const a = new FingerprintedApi((m) => `${m}-2024-07-18`, 'fp_aaaa');
  const b = new FingerprintedApi((m) => `${m}-q4`, 'fp_bbbb');
  beforeAll(async () => {
    await a.start();
    await b.start();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  const session = (url: string, cacheDir: string, scope?: 'endpoint' | 'model') =>
    new ProviderSession({ cacheDir, ...(scope ? { cacheScope: scope } : {}), baseUrls: { reader: `${url}/v1` }, env: ENV });

  it('endpoint identity is host:port/path, without scheme or credentials', () => {
    expect(endpointId('http://user:pw@127.0.0.1:8000/v1/')).toBe('127.0.0.1:8000/v1');
    expect(endpointId('https://api.openai.com/v1')).toBe('api.openai.com/v1');
  });

  it('by default the cache is keyed on the endpoint: another endpoint is asked, not served old replies', async () => {
    const cache = tempDir();
    const s1 = session(a.url, cache);
    const r1 = await chatModel(s1, 'reader', 'gpt-4o-mini').complete(REQ, 0);
    expect(r1.provenance).toEqual({
      endpoint: endpointId(`${a.url}/v1`),
      served_model: 'gpt-4o-mini-2024-07-18',
      system_fingerprint: 'fp_aaaa',
      cached: false,
      cached_from: null,
    });
    const again = await chatModel(session(a.url, cache), 'reader', 'gpt-4o-mini').complete(REQ, 0);
    expect(again.cached).toBe(true);
    expect(again.provenance.cached_from).toBe(endpointId(`${a.url}/v1`));
    expect(again.provenance.system_fingerprint).toBe('fp_aaaa');
    const s2 = session(b.url, cache);
    const r2 = await chatModel(s2, 'reader', 'gpt-4o-mini').complete(REQ, 0);
    expect(r2.cached).toBe(false);
    expect(b.count('/v1/chat/completions')).toBe(1);
    expect(r2.provenance.served_model).toBe('gpt-4o-mini-q4');
    const report = s2.report().provenance as any;
    expect(report.cache_scope).toBe('endpoint');
    expect(report.by_role.reader).toMatchObject({
      endpoints: [endpointId(`${b.url}/v1`)],
      served_models: ['gpt-4o-mini-q4'],
      system_fingerprints: ['fp_bbbb'],
      replies_fresh: 1,
      replies_cached: 0,
    });
    expect(report.warnings).toEqual([]);
    for (const s of [s1, s2]) s.close();
  });

  it('--cache-scope model shares replies across endpoints and says where they were cached', async () => {
    const cache = tempDir();
    const before = b.count('/v1/chat/completions');
    const s1 = session(a.url, cache, 'model');
    await chatModel(s1, 'reader', 'gpt-4o-mini').complete(REQ, 1);
    const s2 = session(b.url, cache, 'model');
    const r = await chatModel(s2, 'reader', 'gpt-4o-mini').complete(REQ, 1);
    expect(b.count('/v1/chat/completions')).toBe(before);
    expect(r.cached).toBe(true);
    expect(r.provenance).toMatchObject({
      endpoint: endpointId(`${b.url}/v1`),
      cached_from: endpointId(`${a.url}/v1`),
      served_model: 'gpt-4o-mini-2024-07-18',
    });
    const report = s2.report().provenance as any;
    expect(report.by_role.reader.cached_from).toEqual({ [endpointId(`${a.url}/v1`)]: 1 });
    expect(report.warnings).toEqual([
      `1 cached reader replies came from ${endpointId(`${a.url}/v1`)}, not from ${endpointId(`${b.url}/v1`)} (--cache-scope model)`,
    ]);
    for (const s of [s1, s2]) s.close();
  });
});
