/**
 * Provenance and --models through the real CLI: a user-defined reader (--models FILE) served by
 * two loopback endpoints at different ports. The default cache scope never serves one endpoint's
 * replies as the other's; --cache-scope model does, and the run says where they came from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FingerprintedApi } from '../helpers/fake-provenance.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const env = {
  OPENAI_API_KEY: undefined,
  OPENAI_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
  RAWRAG_MODELS: undefined,
  RAWRAG_RETRY_BASE_MS: '5',
};

describe('rawrag run with --models and two endpoints', () => {
  const a = new FingerprintedApi((m) => `${m}-build-a`, 'fp_a1');
  const b = new FingerprintedApi((m) => `${m}-build-b`, 'fp_b2');
  const dir = tempDir();
  const cache = join(dir, 'cache');
  const models = join(dir, 'models.yaml');
  const run = (api: FingerprintedApi, out: string, extra: string[] = []) =>
    rawragInProcess(
      [
        'run',
        'locomo',
        '--retriever',
        'local-lexical',
        '--limit',
        '3',
        '--models',
        models,
        '--reader',
        'my-reader',
        '--judge',
        'my-reader',
        '--judge-runs',
        '1',
        '--reader-base-url',
        `${api.url}/v1`,
        '--judge-base-url',
        `${api.url}/v1`,
        '--cache-dir',
        cache,
        '--no-progress',
        '--out',
        join(dir, out),
        ...extra,
      ],
      env,
    );
  const summary = (out: string) => JSON.parse(readFileSync(join(dir, out, 'summary.json'), 'utf8'));

  beforeAll(async () => {
    await a.start();
    await b.start();
    writeFileSync(
      models,
      'models:\n  my-reader:\n    kind: chat\n    protocol: openai\n    provider: local\n    apiModel: served/my-reader\n    prices: { input: 1.0, output: 2.0 }\n',
    );
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('records endpoint, served model and fingerprint per reply and per run; keys the cache on the endpoint', async () => {
    const r1 = await run(a, 'a');
    expect(r1.stderr).not.toMatch(/error/i);
    expect(r1.code).toBe(0);
    expect(a.api.byPath('/v1/chat/completions').every((r) => r.body.model === 'served/my-reader')).toBe(true);
    // 3 reader + 3 judge requests, and conv-26:q2 (its gold corrected by the LoCoMo errata) judged once more under the audited gold.
    expect(a.count('/v1/chat/completions')).toBe(7);
    const hostA = `${new URL(a.url).host}/v1`;
    const hostB = `${new URL(b.url).host}/v1`;
    const s1 = summary('a');
    expect(s1.provenance.cache_scope).toBe('endpoint');
    expect(s1.provenance.by_role.reader).toMatchObject({
      endpoints: [hostA],
      served_models: ['served/my-reader-build-a'],
      system_fingerprints: ['fp_a1'],
      replies_fresh: 3,
      replies_cached: 0,
    });
    expect(s1.usage.reader.cost_usd_spent).toBeGreaterThan(0);
    const item = readFileSync(join(dir, 'a', 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))[0];
    expect(item.details.reader.provenance).toEqual({
      endpoint: hostA,
      served_model: 'served/my-reader-build-a',
      system_fingerprint: 'fp_a1',
      cached: false,
      cached_from: null,
    });
    expect(item.details.judge.provenance[0]).toMatchObject({ endpoint: hostA, system_fingerprint: 'fp_a1' });
    expect(r1.stdout).toContain(`Endpoints (cache scope endpoint): reader ${hostA}; served served/my-reader-build-a; fingerprints fp_a1`);

    // Same questions, same cache, another endpoint: asked again, not served A's replies.
    const r2 = await run(b, 'b');
    expect(r2.code).toBe(0);
    expect(b.count('/v1/chat/completions')).toBe(7);
    expect(summary('b').provenance.by_role.reader).toMatchObject({
      endpoints: [hostB],
      served_models: ['served/my-reader-build-b'],
      replies_fresh: 3,
      replies_cached: 0,
    });

    // --cache-scope model: replies shared across endpoints, and the run names where they came from.
    const r3 = await run(a, 'c', ['--cache-scope', 'model']);
    const r4 = await run(b, 'd', ['--cache-scope', 'model']);
    expect(r3.code).toBe(0);
    expect(r4.code).toBe(0);
    expect(b.count('/v1/chat/completions')).toBe(7);
    const s4 = summary('d');
    expect(s4.provenance.by_role.reader).toMatchObject({
      endpoints: [hostB],
      replies_fresh: 0,
      replies_cached: 3,
      cached_from: { [hostA]: 3 },
      served_models: ['served/my-reader-build-a'],
    });
    expect(r4.stdout).toContain(`WARNING: 3 cached reader replies came from ${hostA}, not from ${hostB} (--cache-scope model)`);

    const bad = await run(a, 'e', ['--cache-scope', 'host']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("'host' is not one of endpoint, model.");
  });
});
