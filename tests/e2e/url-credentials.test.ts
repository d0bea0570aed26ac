/**
 * Issue 42, item 6: a URL with a user name and password is refused wherever it enters — `-S url=`,
 * a config file, a provider's base-URL environment variable, a recorded manifest on resume, a data
 * mirror (`rawrag data pull --base-url`, RAWRAG_DATA_BASE_URL), the endpoint a memory library started
 * for you would get (OPENAI_BASE_URL) — with a
 * message naming where it came from, and no file rawrag writes (manifest.json, summary.json,
 * items.jsonl, the report page, the cache) nor its output holds the password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { FakeProtocolService } from '../helpers/fake-protocol-service.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { evidenceReader, locomoRunArgs, loopbackEnv } from '../helpers/loopback-run.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const PASSWORD = 'PASSWORD-s3cr3t-42';
const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });

/** Every file under `dir` (recursively) whose bytes hold `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesHolding(p, needle));
    else if (readFileSync(p).includes(needle)) out.push(p);
  }
  return out;
}

describe('a URL with a password', () => {
  const api = new FakeApi({ chat: evidenceReader(ds.questions) });
  const service = new FakeProtocolService();
  const root = tempDir('rawrag-creds-');
  const cache = join(root, 'cache');
  const env = loopbackEnv({ openai: 'sk-test-CREDS0123456789' });
  const withPassword = (url: string) => url.replace('http://', `http://user:${PASSWORD}@`);

  beforeAll(async () => {
    await api.start();
    await service.start();
  });
  afterAll(async () => {
    await api.close();
    await service.close();
  });

  it('from -S, a config file or an environment variable: refused naming its source, the password in no file and no output', async () => {
    const cases: Array<{ args: string[]; env?: Record<string, string>; code: number; says: RegExp }> = [
      {
        args: ['--system', 'http', '-S', `url=${withPassword(service.url)}`],
        code: 1,
        says: /-S url: a URL with a user name or password is refused/,
      },
      { args: ['--config', join(root, 'creds.yaml')], code: 2, says: /creds\.yaml: service\.url: a URL with a user name or password/ },
      {
        args: ['--system', 'http', '-S', `url=${service.url}`],
        env: { OPENAI_BASE_URL: withPassword(`${api.url}/v1`) },
        code: 2,
        says: /OPENAI_BASE_URL: a URL with a user name or password is refused/,
      },
    ];
    writeFileSync(join(root, 'creds.yaml'), `system: http\nservice:\n  url: ${withPassword(service.url)}\n`);
    for (const [i, c] of cases.entries()) {
      const out = join(root, `refused-${i}`);
      const args = locomoRunArgs({ out, peer: api, chatOnly: true, cache, limit: 2, extra: c.args });
      // The environment-variable case: the endpoint comes from OPENAI_BASE_URL, not a flag.
      const argv = c.env ? args.filter((a, j) => !/-base-url$/.test(a) && !/-base-url$/.test(args[j - 1] ?? '')) : args;
      const r = await rawragInProcess(argv, { ...env, ...c.env });
      expect(r.code, r.stderr).toBe(c.code);
      expect(r.stderr).toMatch(c.says);
      expect(r.stdout + r.stderr).not.toContain(PASSWORD);
      expect(filesHolding(out, PASSWORD)).toEqual([]);
      expect(filesHolding(cache, PASSWORD)).toEqual([]);
    }
    expect(api.requests.filter((q) => q.path.includes('chat'))).toHaveLength(0);
  }, 300_000);

  it('rawrag data pull from a mirror URL with a password (--base-url or RAWRAG_DATA_BASE_URL): refused at once, the password in no output, nothing written', async () => {
    const mirror = withPassword(api.url);
    const cases = [
      { argv: ['--base-url', mirror], env: {}, code: 1, says: /--base-url: a URL with a user name or password is refused/ },
      {
        argv: [],
        env: { RAWRAG_DATA_BASE_URL: mirror },
        code: 2,
        says: /RAWRAG_DATA_BASE_URL: a URL with a user name or password is refused/,
      },
    ];
    for (const [i, c] of cases.entries()) {
      const dataRoot = join(root, `data-${i}`);
      const r = await rawragInProcess(['data', 'pull', 'longmemeval', '--root', dataRoot, '--retries', '1', ...c.argv], c.env);
      expect(r.code, r.stderr).toBe(c.code);
      expect(r.stderr).toMatch(c.says);
      expect(r.stdout + r.stderr).not.toContain(PASSWORD);
      expect(existsSync(dataRoot)).toBe(false);
    }
  });

  it('OPENAI_BASE_URL with a password for a memory library started for you: refused by the pre-flight naming the variable, not a run of "Connection error" items', async () => {
    const out = join(root, 'started');
    const r = await rawragInProcess(
      ['run', 'locomo', '--system', 'mem0', '--limit', '1', '--out', out, '--no-progress', '--cache-dir', cache],
      {
        ...env,
        OPENAI_BASE_URL: withPassword(`${api.url}/v1`),
        RAWRAG_SYSTEMS_DIR: join(root, 'no-systems'),
      },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/OPENAI_BASE_URL: a URL with a user name or password is refused/);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    expect(existsSync(out)).toBe(false);
    expect(filesHolding(cache, PASSWORD)).toEqual([]);
  });

  it('from a recorded manifest on resume: refused naming manifest.json and the key; no other file gets it', async () => {
    const out = join(root, 'resumed');
    const args = locomoRunArgs({
      out,
      peer: api,
      chatOnly: true,
      cache,
      limit: 2,
      extra: ['--system', 'http', '-S', `url=${service.url}`],
    });
    const first = await rawragInProcess(args, env);
    expect(first.code, first.stderr).toBe(0);
    expect(filesHolding(out, 'user:')).toEqual([]);
    // An older rawrag recorded the URL with its password: a resume must not take it on.
    const file = join(out, 'manifest.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    manifest.config.http.url = withPassword(service.url);
    const recorded = JSON.stringify(manifest, null, 2);
    writeFileSync(file, recorded);
    for (const argv of [
      ['resume', out],
      ['run', '--out', out, '--no-progress'],
    ]) {
      const r = await rawragInProcess(argv, env);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/manifest\.json: config\.http\.url: a URL with a user name or password is refused/);
      expect(r.stdout + r.stderr).not.toContain(PASSWORD);
      expect(filesHolding(out, PASSWORD)).toEqual([file]);
      expect(readFileSync(file, 'utf8')).toBe(recorded);
    }
  }, 300_000);
});
