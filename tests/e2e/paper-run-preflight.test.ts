/**
 * Issue 43 item 2 for `rawrag paper --run`: the same pre-flight as run, ablate and judge before the
 * first paid request. Items of this test are small LoCoMo runs against a loopback OpenAI-compatible
 * server: a reader name with a typo, or a reader endpoint nothing listens on, stops the command
 * (an InputError: exit 2) with the problem named, before any request and before any run directory.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { paperRun, type PaperRunOptions } from '../../src/cli/paper-run.js';
import type { PaperItem } from '../../src/paper/items.js';
import { rawRagSpec } from '../../src/paper/rows.js';
import { headline } from '../../src/paper/figures.js';
import { InputError } from '../../src/util/errors.js';

const item = (id: string, reader: string): PaperItem => ({
  id,
  section: 'main results',
  title: id,
  paper: '—',
  command: `rawrag run locomo --reader ${reader} --limit 2`,
  steps: [{ command: 'run', args: ['locomo', '--reader', reader, '--limit', '2'], out: `paper/${id}` }],
  run: { spec: rawRagSpec('locomo', reader, 'local', { subset: '--limit 2' }), figure: headline('test') },
});

/** A loopback port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('rawrag paper --run: the pre-flight before the first paid request', () => {
  const api = new FakeApi();
  const cache = tempDir('rawrag-paper-preflight-cache-');
  let saved: NodeJS.ProcessEnv;
  beforeAll(() => api.start());
  afterAll(() => api.close());
  beforeEach(() => {
    saved = { ...process.env };
    Object.assign(process.env, { OPENAI_API_KEY: 'sk-test-PAPERPREFLIGHT0123456789', RAWRAG_RETRY_BASE_MS: '5' });
    delete process.env.OPENAI_BASE_URL;
  });
  afterEach(() => {
    process.env = saved;
  });

  const options = (root: string, items: PaperItem[], baseUrl: string): PaperRunOptions => ({
    searched: [root],
    only: null,
    dryRun: false,
    maxCost: null,
    retryErrors: false,
    progress: false,
    transport: { cacheDir: cache, baseUrls: { reader: baseUrl, judge: baseUrl } },
    items,
  });

  it('a reader name with a typo: refused with a did-you-mean, nothing sent, no run directory', async () => {
    const root = tempDir('rawrag-paper-preflight-');
    const lines: string[] = [];
    const run = paperRun(
      options(root, [item('typo', 'gpt-4o-mni')], `${api.url}/v1`),
      (s) => lines.push(s),
      () => {},
    );
    await expect(run).rejects.toThrow(InputError);
    await expect(run).rejects.toThrow(/pre-flight: .*before anything was sent[\s\S]*did you mean gpt-4o-mini\?/);
    expect(api.count()).toBe(0);
    expect(existsSync(join(root, 'paper'))).toBe(false);
    // The plan was printed first: the refusal comes between the plan and the first run.
    expect(lines.join('\n')).toMatch(/items not reproduced need 1 runs/);
    expect(lines.join('\n')).not.toMatch(/== run 1 of 1/);
  });

  it('a reader endpoint nothing listens on: refused as unreachable, no run directory', async () => {
    const root = tempDir('rawrag-paper-preflight-');
    const dead = `http://127.0.0.1:${await deadPort()}/v1`;
    const run = paperRun(
      options(root, [item('dead', 'gpt-4o-mini')], dead),
      () => {},
      () => {},
    );
    await expect(run).rejects.toThrow(/pre-flight: [\s\S]*cannot reach/);
    expect(existsSync(join(root, 'paper'))).toBe(false);
  });

  it('with the names right and the endpoint up, the run goes ahead after one probe', async () => {
    const root = tempDir('rawrag-paper-preflight-');
    const probes = api.probes.length;
    await paperRun(
      options(root, [item('ok', 'gpt-4o-mini')], `${api.url}/v1`),
      () => {},
      () => {},
    );
    expect(api.probes.slice(probes).map((p) => p.path)).toEqual(['/v1/models']);
    expect(existsSync(join(root, 'paper', 'ok', 'manifest.json'))).toBe(true);
    expect(api.count('/v1/chat/completions')).toBeGreaterThan(0);
  }, 60_000);
});
