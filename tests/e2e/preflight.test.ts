/**
 * The pre-flight (src/preflight/): a model typo, a missing key, a dead endpoint or a grid cell's
 * missing data stop the command before the first paid request; `--max-failures` stops a run whose
 * items keep failing with the same error. Requests cross HTTP to a loopback peer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, endpointArgs } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const KEY = 'sk-test-PREFLIGHT0123456789';
const env = {
  OPENAI_API_KEY: KEY,
  COHERE_API_KEY: 'co-test-PREFLIGHTCOHERE',
  RAWRAG_RETRY_BASE_MS: '5',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};
const noKeys = { ...env, OPENAI_API_KEY: undefined, COHERE_API_KEY: undefined, CO_API_KEY: undefined };

describe('pre-flight: nothing is sent when a run cannot go right', () => {
  const api = new FakeApi();
  beforeAll(async () => {
    await api.start();
  });
  afterAll(() => api.close());

  it('a model typo exits 2 with "did you mean", before any request', async () => {
    const out = join(tempDir(), 'run');
    const r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--reader',
        'gpt-4o-mni',
        '--limit',
        '2',
        '--no-progress',
        '--out',
        out,
        '--cache-dir',
        tempDir(),
        ...endpointArgs(api),
      ],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /pre-flight: a problem before anything was sent:\n {2}- reader model 'gpt-4o-mni' is not a model rawrag knows: did you mean gpt-4o-mini\?/,
    );
    expect(api.count()).toBe(0);
    expect(existsSync(out)).toBe(false);
  });

  it('ablate, judge and calibrate-judge check their model names before any request too', async () => {
    const answers = join(tempDir(), 'answers.jsonl');
    writeFileSync(answers, `${JSON.stringify({ id: 'conv-26:q0', answer: '7 May 2023' })}\n`);
    const judgeAt = ['--judge-base-url', `${api.url}/v1`, '--cache-dir', tempDir(), '--no-progress'];
    const commands = [
      [
        'ablate',
        'locomo',
        '--k',
        '1,15',
        '--reader',
        'gpt-4o-mni',
        '--limit',
        '2',
        '--out',
        join(tempDir(), 'a'),
        '--cache-dir',
        tempDir(),
        '--no-progress',
        ...endpointArgs(api),
      ],
      ['judge', answers, '--benchmark', 'locomo', '--judge', 'gpt-4o-mni', '--out', join(tempDir(), 'j'), ...judgeAt],
      ['calibrate-judge', 'locomo', '--judge-model', 'gpt-4o-mni', '--limit', '5', '--out', join(tempDir(), 'c'), ...judgeAt],
    ];
    const before = api.count();
    for (const args of commands) {
      const r = await rawragInProcess(args, env);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args[0]).toMatch(
        /pre-flight: a problem before anything was sent:\n {2}- (reader|judge) model 'gpt-4o-mni' is not a model rawrag knows: did you mean gpt-4o-mini\?/,
      );
    }
    expect(api.count()).toBe(before);
  });

  it('an endpoint that lists its models: a name it does not serve is refused, with the names it serves', async () => {
    const listing = await new FakeApi({ models: ['gpt-4o-mini', 'llama3.1:8b'] }).start();
    try {
      const r = await rawragInProcess(
        [
          'run',
          'locomo',
          '--reader',
          'llama3.2:1b',
          '--judge',
          'gpt-4o-mini',
          '--limit',
          '1',
          '--no-progress',
          '--out',
          join(tempDir(), 'r'),
          '--cache-dir',
          tempDir(),
          ...endpointArgs(listing),
        ],
        env,
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/reader model 'llama3.2:1b' is not served at its endpoint: did you mean llama3.1:8b\?/);
      expect(listing.probes.map((p) => p.path)).toEqual(['/v1/models']);
      expect(listing.count()).toBe(0);
    } finally {
      await listing.close();
    }
  });

  it('a dead endpoint is reached once and named, not retried per question', async () => {
    const gone = await new FakeApi().start();
    await gone.close();
    const port = new URL(gone.url).port;
    const r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--reader',
        'gpt-4o-mini',
        '--limit',
        '3',
        '--no-progress',
        '--out',
        join(tempDir(), 'r'),
        '--cache-dir',
        tempDir(),
        '--reader-base-url',
        `${gone.url}/v1`,
        '--judge-base-url',
        `${api.url}/v1`,
      ],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`reader model 'gpt-4o-mini': cannot reach 127.0.0.1:${port}/v1 (ECONNREFUSED)`);
  });

  it('--retriever openai without keys is an error naming --fallback local; with it, the local retriever runs and says so', async () => {
    const out = join(tempDir(), 'run');
    const base = ['run', 'locomo', '--retriever', 'openai', '--limit', '2', '--no-progress', '--cache-dir', tempDir(), '--out', out];
    const refused = await rawragInProcess(base, noKeys);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /embed model 'text-embedding-3-small' needs OPENAI_API_KEY.*\(or add --fallback local to run the local retriever instead\)/,
    );
    expect(refused.stderr).toMatch(/rerank model 'rerank-v3.5' needs COHERE_API_KEY/);
    expect(existsSync(out)).toBe(false);
    const allowed = await rawragInProcess([...base, '--fallback', 'local'], noKeys);
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).toMatch(/retriever 'openai' unavailable .*fell back to the local retriever \(--fallback local\)/);
    expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).retriever.name).toMatch(/^local/);
  });

  it('ablate: --retriever openai without keys is refused naming --fallback local; with it, the sweep runs the local retriever', async () => {
    const out = join(tempDir(), 'abl');
    const base = ['ablate', 'locomo', '--k', '1,15', '--retriever', 'openai', '--limit', '2', '--cache-dir', tempDir(), '--out', out];
    const refused = await rawragInProcess(base, noKeys);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/needs OPENAI_API_KEY.*\(or add --fallback local to run the local retriever instead\)/);
    const allowed = await rawragInProcess([...base, '--fallback', 'local'], noKeys);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'default', 'manifest.json'), 'utf8')).retriever.name).toMatch(/^local/);
  });

  it('a grid whose second cell has no data stops before the first cell starts', async () => {
    const out = join(tempDir(), 'set');
    const r = await rawragInProcess(
      ['run', 'locomo,longmemeval', '--limit', '2', '--no-progress', '--out', out, '--cache-dir', tempDir()],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /longmemeval-raw-rag-local-retrieval: .*longmemeval: data file not found; fetch it with: rawrag data pull longmemeval/,
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe('--max-failures: the same error on N items in a row stops the run, naming it', () => {
  const api = new FakeApi();
  beforeAll(async () => {
    await api.start();
    api.inject({
      kind: 'status',
      status: 404,
      times: Infinity,
      match: (x) => x.path === '/v1/chat/completions',
      body: '{"error":{"message":"The model `gpt-4o-mini` does not exist"}}',
    });
  });
  afterAll(() => api.close());

  it('stops after 3, keeps what it did (incomplete), exits 4 with the error', async () => {
    const out = join(tempDir(), 'run');
    const r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--reader',
        'gpt-4o-mini',
        '--limit',
        '20',
        '--max-failures',
        '3',
        '--concurrency',
        'chat=1',
        '--no-progress',
        '--out',
        out,
        '--cache-dir',
        tempDir(),
        ...endpointArgs(api),
      ],
      env,
    );
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /stopped after the same error on 3 items in a row \(--max-failures\): read: reader request to gpt-4o-mini failed \(HTTP 404\).*does not exist/,
    );
    expect(r.stderr).toMatch(/rawrag resume .* --retry-errors/);
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(m.status).toBe('incomplete');
    expect(m.questions.done).toBeGreaterThanOrEqual(3);
    expect(m.questions.done).toBeLessThan(20);
    expect(api.byPath('/v1/chat/completions').length).toBeLessThan(20);
  });
});
