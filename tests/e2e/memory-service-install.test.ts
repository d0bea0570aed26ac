/** The pieces of `rawrag systems install` and started-for-you that need no Python: specifiers, tiktoken seeding, the offline environment, reachability. */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttp } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { satisfiesPython } from '../../src/systems/memory-service/python-version.js';
import { offlineEnv, PLACEHOLDER_KEY, seedTiktoken } from '../../src/systems/memory-service/offline-env.js';
import { checkReachable, ServiceUnreachable } from '../../src/systems/memory-service/reachable.js';
import { tempDir } from '../helpers/cli.js';

describe('python specifiers', () => {
  it('reads the PEP 440 clauses requires-python lines use', () => {
    expect(satisfiesPython('3.11.7', '>=3.11')).toBe(true);
    expect(satisfiesPython('3.11.7', '>=3.12')).toBe(false);
    expect(satisfiesPython('3.12.4', '>=3.12,<3.13')).toBe(true);
    expect(satisfiesPython('3.13.0', '>=3.12,<3.13')).toBe(false);
    expect(satisfiesPython('3.12.9', '==3.12.*')).toBe(true);
    expect(satisfiesPython('3.11.7', '~=3.10')).toBe(true);
    expect(satisfiesPython('4.0.0', '~=3.10')).toBe(false);
    expect(() => satisfiesPython('3.11.7', 'python3')).toThrow(/not a version specifier/);
  });
});

describe('tiktoken seeding', () => {
  it("writes cl100k_base and o200k_base as tiktoken's cached files: the SHA-1 of the URL as name, tiktoken's own sha256", async () => {
    const dir = tempDir('rawrag-tiktoken-');
    await seedTiktoken(dir, ['cl100k_base', 'o200k_base']);
    const file = (name: string) =>
      join(dir, createHash('sha1').update(`https://openaipublic.blob.core.windows.net/encodings/${name}.tiktoken`).digest('hex'));
    const sha = (name: string) =>
      createHash('sha256')
        .update(readFileSync(file(name)))
        .digest('hex');
    // tiktoken_ext/openai_public.py's expected_hash of each file.
    expect(sha('cl100k_base')).toBe('223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7');
    expect(sha('o200k_base')).toBe('446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d');
    await expect(seedTiktoken(dir, ['gpt2'])).rejects.toThrow(/cannot be seeded/);
  });
});

describe('the offline environment of a started library', () => {
  const spec = { python: '>=3.10', library: { name: 'x', version: '1' }, env: { SUPPORT_JSON_SCHEMA: 'true' } };
  it('points every base-URL name at the endpoint, switches hubs and telemetry off, and keeps the plug-in’s env last', () => {
    const env = offlineEnv(spec, { PATH: '/bin', OPENAI_API_KEY: 'sk-user' }, { endpoint: 'http://127.0.0.1:9/v1', tiktokenDir: '/t' });
    for (const n of ['OPENAI_BASE_URL', 'OPENAI_API_BASE', 'LLM_BASE_URL', 'EMBEDDING_BASE_URL', 'LLM_ENDPOINT', 'EMBEDDING_ENDPOINT'])
      expect(env[n]).toBe('http://127.0.0.1:9/v1');
    expect(env).toMatchObject({
      HF_HUB_OFFLINE: '1',
      TRANSFORMERS_OFFLINE: '1',
      LITELLM_LOCAL_MODEL_COST_MAP: 'True',
      MEM0_TELEMETRY: 'False',
      TIKTOKEN_CACHE_DIR: '/t',
      SUPPORT_JSON_SCHEMA: 'true',
      OPENAI_API_KEY: 'sk-user',
      LLM_API_KEY: 'sk-user',
    });
    expect(offlineEnv(spec, {}, { endpoint: null, tiktokenDir: null }).OPENAI_API_KEY).toBe(PLACEHOLDER_KEY);
  });
});

describe('reachability', () => {
  it('one request; any HTTP answer is reachable', async () => {
    let n = 0;
    const server = createHttp((_q, r) => {
      n++;
      r.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    expect(await checkReachable(url, { label: 'X', startHint: 'start-x' })).toBe(404);
    expect(n).toBe(1);
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('remembers nothing: each check asks again, so a service that stopped after answering is unreachable', async () => {
    let n = 0;
    const server = createHttp((_q, r) => {
      n++;
      r.writeHead(200).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    expect(await checkReachable(url, { label: 'X', startHint: 'start-x' })).toBe(200);
    expect(await checkReachable(url, { label: 'X', startHint: 'start-x' })).toBe(200);
    expect(n).toBe(2);
    await new Promise<void>((r) => server.close(() => r()));
    // The pre-flight hands the run what answered (TransportOptions.reachedServices); no process memo answers for it.
    const e = await checkReachable(url, { label: 'X', startHint: 'start-x' }).catch((x) => x);
    expect(e).toBeInstanceOf(ServiceUnreachable);
  });

  it('a refused connection fails at once (no retry), with the start command', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as { port: number }).port;
    await new Promise<void>((r) => s.close(() => r()));
    const t0 = performance.now();
    const e = await checkReachable(`http://127.0.0.1:${port}`, { label: 'A-MEM', startHint: 'python3 a-mem.py' }).catch((x) => x);
    expect(e).toBeInstanceOf(ServiceUnreachable);
    expect(e.code).toBe('ECONNREFUSED');
    expect(e.message).toBe(
      `A-MEM at http://127.0.0.1:${port} does not answer (ECONNREFUSED): is it running? start it with: python3 a-mem.py`,
    );
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
