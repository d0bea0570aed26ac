/**
 * Issue 43 item 2 (each endpoint reached once): `rawrag judge --rejudge SET` over a grid's set
 * folder re-judges run by run; its pre-flight reaches the judge's endpoint (`GET /v1/models` on the
 * loopback OpenAI-compatible server) once for the whole command, not once per run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, endpointArgs, isJudgeRequest } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const env = {
  OPENAI_API_KEY: 'sk-test-JUDGEGRIDREACH0123456789',
  RAWRAG_RETRY_BASE_MS: '5',
  OPENAI_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};
const CELLS = ['locomo-raw-rag-local-gpt-4o-mini', 'locomo-raw-rag-local-gpt-4.1-mini'];
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));

describe('rawrag judge --rejudge over a grid folder: the judge endpoint reached once per command', () => {
  const api = new FakeApi({ models: ['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4o'] });
  const cache = tempDir('rawrag-judge-grid-cache-');
  const set = join(tempDir('rawrag-judge-grid-'), 'grid');

  beforeAll(async () => {
    await api.start();
    const grid = await rawragInProcess(
      [
        'run',
        'locomo',
        '--reader',
        'gpt-4o-mini,gpt-4.1-mini',
        '--limit',
        '2',
        '--parallel-cells',
        '1',
        '--out',
        set,
        '--cache-dir',
        cache,
        '--no-progress',
        ...endpointArgs(api),
      ],
      env,
    );
    expect(grid.code, grid.stderr).toBe(0);
  }, 120_000);
  afterAll(() => api.close());

  it('re-judges both runs with one GET /v1/models', async () => {
    const probes = api.probes.length;
    const judged = api.requests.filter(isJudgeRequest).length;
    const out = join(tempDir('rawrag-judge-grid-strict-'), 'strict');
    const r = await rawragInProcess(
      [
        'judge',
        '--rejudge',
        set,
        '--judge-prompt',
        'strict',
        '--out',
        out,
        '--judge-base-url',
        `${api.url}/v1`,
        '--cache-dir',
        cache,
        '--no-progress',
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    for (const cell of CELLS) expect(manifest(join(out, cell)).status).toBe('complete');
    // Both runs' answers were judged anew (the strict prompt: not the cached verdicts)...
    expect(api.requests.filter(isJudgeRequest).length - judged).toBeGreaterThanOrEqual(4);
    // ...after a single probe of the judge's endpoint.
    expect(api.probes.slice(probes).map((p) => p.path)).toEqual(['/v1/models']);
  }, 120_000);
});
