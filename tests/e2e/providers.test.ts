/**
 * Built-in providers: `--reader claude-...` speaks Anthropic's Messages API through the official
 * SDK to the base URL ANTHROPIC_BASE_URL names (a loopback peer here), with the key from a `.env`
 * file in the working folder, which reaches no file of the run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const ANTHROPIC_KEY = 'sk-ant-test-PROVIDERS0123456789';
const OPENAI_KEY = 'sk-test-PROVIDERSOPENAI0123';

describe('--reader claude-haiku-4-5 with ANTHROPIC_API_KEY (from .env) and a loopback base URL', () => {
  const api = new FakeApi();
  const cwd = tempDir();
  const out = join(tempDir(), 'run');
  let r: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    await api.start();
    writeFileSync(join(cwd, '.env'), `# keys for rawrag\nANTHROPIC_API_KEY=${ANTHROPIC_KEY}\nANTHROPIC_BASE_URL=${api.url}\n`);
    r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--reader',
        'claude-haiku-4-5',
        '--limit',
        '3',
        '--judge-base-url',
        `${api.url}/v1`,
        '--no-progress',
        '--json',
        '--out',
        out,
        '--cache-dir',
        tempDir(),
      ],
      {
        OPENAI_API_KEY: OPENAI_KEY,
        ANTHROPIC_API_KEY: undefined,
        ANTHROPIC_BASE_URL: undefined,
        OPENAI_BASE_URL: undefined,
        RAWRAG_RETRY_BASE_MS: '5',
      },
      { cwd },
    );
  }, 120_000);
  afterAll(() => api.close());

  it('sends each reader request to the Messages API there, with the key and a max_tokens', () => {
    expect(r.code, r.stderr).toBe(0);
    const sent = api.byPath('/v1/messages');
    expect(sent).toHaveLength(3);
    for (const q of sent) {
      expect(q.method).toBe('POST');
      // The SDK carries the key as it chooses (this version: a bearer token; older ones: x-api-key).
      expect([q.headers['x-api-key'], q.headers.authorization]).toContainEqual(expect.stringContaining(ANTHROPIC_KEY));
      expect(q.headers['anthropic-version']).toBeDefined();
      expect(q.body.model).toBe('claude-haiku-4-5');
      expect(q.body.max_tokens).toBeGreaterThan(0);
      expect(q.body.temperature).toBe(0);
      expect(q.body.messages.every((m: { role: string }) => m.role !== 'system')).toBe(true);
    }
    // The judge stays on the OpenAI protocol; the endpoint was reached once before the run.
    expect(api.byPath('/v1/chat/completions').length).toBeGreaterThanOrEqual(3);
    expect(api.probes.map((p) => p.path).sort()).toEqual(['/v1/models', '/v1/models']);
  });

  it('records the reader and its provider; the key reaches no file', () => {
    const items = readFileSync(join(out, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(items).toHaveLength(3);
    expect(items.every((i) => i.error === null)).toBe(true);
    const summary = JSON.parse(r.stdout);
    expect(summary.usage.reader.requests).toBe(3);
    for (const f of readdirSync(out)) expect(readFileSync(join(out, f), 'utf8')).not.toContain(ANTHROPIC_KEY);
  });
});

describe('a provider prefix picks the provider; other ids pass whole', () => {
  it('anthropic/claude-... goes to the Messages API with the bare id; without its key it stops before sending', async () => {
    const r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--reader',
        'anthropic/claude-haiku-4-5',
        '--limit',
        '1',
        '--no-progress',
        '--out',
        join(tempDir(), 'r'),
        '--cache-dir',
        tempDir(),
      ],
      { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/reader model 'anthropic\/claude-haiku-4-5' needs ANTHROPIC_API_KEY/);
  });

  it("gemini-... needs GEMINI_API_KEY (not OpenAI's)", async () => {
    const r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--reader',
        'gemini-2.5-flash',
        '--limit',
        '1',
        '--no-progress',
        '--out',
        join(tempDir(), 'r'),
        '--cache-dir',
        tempDir(),
      ],
      { OPENAI_API_KEY: OPENAI_KEY, GEMINI_API_KEY: undefined },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/reader model 'gemini-2.5-flash' needs GEMINI_API_KEY/);
  });
});
