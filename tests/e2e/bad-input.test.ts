/**
 * Bad input: a clear message naming the file and place, a non-zero exit, no valid-looking results.
 * The CLI runs in this process; two cases run it as a child, for the exit status a shell sees (1, 2).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, rawrag, tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

describe('bad input', () => {
  const dir = tempDir();
  const out = join(dir, 'out');

  const expectRejected = async (
    args: string[],
    code: number,
    pattern: RegExp,
    cli: (args: string[]) => CliResult | Promise<CliResult> = rawragInProcess,
  ) => {
    const r = await cli([...args, '--out', out, '--no-progress']);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr).not.toMatch(/internal error|    at /);
    expect(existsSync(out)).toBe(false);
  };

  it('a missing data file', async () => {
    await expectRejected(['run', 'locomo', '--data', join(dir, 'nope.json')], 2, /nope\.json: data file not found/, rawrag);
  });

  it('invalid JSON, with line and column', async () => {
    const p = join(dir, 'broken.json');
    writeFileSync(p, '[{"sample_id": "a",\n  "qa": [}]');
    await expectRejected(['run', 'locomo', '--data', p], 2, /broken\.json: line 2, column \d+: invalid JSON/);
  });

  it('missing fields, with their path', async () => {
    const p = join(dir, 'fields.json');
    writeFileSync(p, JSON.stringify([{ sample_id: 'a', conversation: {} }]));
    await expectRejected(['run', 'locomo', '--data', p], 2, /fields\.json: \[0\]\.qa: not a LoCoMo file/);
  });

  it('an unknown category', async () => {
    await expectRejected(['run', 'locomo', '-B', 'categories=1,9'], 1, /-B categories: unknown LoCoMo category '9'/);
  });

  it('a MemoryAgentBench source the release does not have is a bad flag value (1); --sample beyond the population is refused', async () => {
    const cr = join(ROOT, 'tests/fixtures/memoryagentbench/Conflict_Resolution.sample.json');
    await expectRejected(
      ['run', 'memoryagentbench', '--data', cr, '-B', 'sources=foo'],
      1,
      /-B sources: unknown source\(s\) foo \(the release's: /,
    );
    await expectRejected(
      ['run', 'locomo', '--sample', '5000'],
      2,
      /--sample: --sample 5,000 asks for more questions than there are \(all 1,540 questions\)/,
    );
  });

  it('an unknown benchmark', async () => {
    await expectRejected(['run', 'nosuchbench'], 1, /unknown benchmark 'nosuchbench'/, rawrag);
  });

  it('bad flag values', async () => {
    await expectRejected(['run', 'locomo', '--k', 'abc'], 1, /--k <n>.*'abc' is not a positive whole number/);
    await expectRejected(['run', 'locomo', '--limit', '0'], 1, /'0' is not a positive whole number/);
    await expectRejected(['run', 'locomo', '--k', '200'], 1, /--k: k must not exceed candidates/);
    await expectRejected(['run', 'locomo', '--candidates', '10'], 1, /--candidates: k must not exceed candidates/);
    await expectRejected(['run', 'locomo', '--retriever', 'bm99'], 1, /--retriever: unknown retriever 'bm99'/);
    await expectRejected(['run', 'locomo', '--window', '100', '--stride', '200'], 1, /--stride: stride must not exceed size/);
    await expectRejected(['run', 'locomo', '--order', 'random'], 1, /--order: .*"rank"\|"chronological"/);
    await expectRejected(['run', 'locomo', '--frobnicate'], 1, /unknown option '--frobnicate'/);
    await expectRejected(['run', 'locomo', '--timeout', '0'], 1, /'0' is not a positive number/);
  });

  it('a config file with an unknown key or a bad value names the file and key', async () => {
    const yml = join(dir, 'cfg.yaml');
    writeFileSync(yml, 'retrieval:\n  kk: 3\n');
    await expectRejected(['run', 'locomo', '--config', yml], 2, /cfg\.yaml: retrieval\.kk: unknown key 'kk'/);
    const json = join(dir, 'cfg.json');
    writeFileSync(json, '{"chunking": {"size": -4}}');
    await expectRejected(['run', 'locomo', '--config', json], 2, /cfg\.json: chunking\.size/);
    await expectRejected(['run', 'locomo', '--config', join(dir, 'absent.yaml')], 2, /absent\.yaml: cannot read config file/);
  });

  it('an unknown key at the top of a config file names the file and the key (issue 42, item 11)', async () => {
    const yml = join(dir, 'top.yaml');
    writeFileSync(yml, 'bogus: 1\n');
    await expectRejected(['run', 'locomo', '--config', yml], 2, /top\.yaml: bogus: unknown key 'bogus'/);
    const json = join(dir, 'top.json');
    writeFileSync(json, '{"__proto__": {"limit": 3}}');
    await expectRejected(['run', 'locomo', '--config', json], 2, /top\.json: __proto__: unknown key '__proto__'/);
    // A models file is a config file too.
    const models = join(dir, 'models.yaml');
    writeFileSync(models, 'bogus: 1\n');
    await expectRejected(['run', 'locomo', '--models', models, '--reader', 'gpt-4o-mini'], 2, /models\.yaml: bogus: unknown key 'bogus'/);
    writeFileSync(models, 'models:\n  my-model:\n    kind: chat\n    protocol: openai\n    provider: openai\n    colour: red\n');
    await expectRejected(
      ['run', 'locomo', '--models', models, '--reader', 'gpt-4o-mini'],
      2,
      /models\.yaml: models\.my-model\.colour: unknown key 'colour'/,
    );
  });

  it("-S '__proto__=...' is refused, not read as the options' prototype (issue 42, item 12)", async () => {
    await expectRejected(['run', 'locomo', '--system', 'mem0', '-S', '__proto__={"items":50}'], 1, /'__proto__' is not an option name/);
    await expectRejected(['run', 'locomo', '--system', 'mem0', '-S', 'owners.constructor=1'], 1, /'constructor' is not an option name/);
  });

  it('a service or provider URL with a password is refused before anything is written, the password nowhere (issue 42, item 6)', async () => {
    for (const system of ['http', 'mem0', 'memos', 'evermemos', 'memmachine']) {
      const r = await rawragInProcess([
        'run',
        'locomo',
        '--system',
        system,
        '-S',
        'url=http://user:PASSWORD@127.0.0.1:9',
        '--out',
        out,
        '--no-progress',
      ]);
      expect(r.code, `${system}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/-S url: a URL with a user name or password is refused/);
      expect(r.stderr + r.stdout).not.toContain('PASSWORD');
      expect(existsSync(out)).toBe(false);
    }
    const yml = join(dir, 'secret.yaml');
    writeFileSync(yml, 'system: mem0\nmem0:\n  url: http://u:PASSWORD@127.0.0.1:9\n');
    await expectRejected(['run', 'locomo', '--config', yml], 2, /secret\.yaml: mem0\.url: a URL with a user name or password is refused/);
    await expectRejected(
      ['run', 'locomo', '--reader', 'gpt-4o-mini', '--reader-base-url', 'http://a:PASSWORD@127.0.0.1:9/v1'],
      1,
      /--reader-base-url: a URL with a user name or password is refused/,
    );
  });

  it('an --ids entry outside -B categories is reported as such, not as unknown (issue 42, item 13)', async () => {
    const ids = join(dir, 'ids.txt');
    writeFileSync(ids, 'conv-26:q0\n');
    await expectRejected(
      ['run', 'locomo', '-B', 'categories=1', '--ids', ids],
      2,
      /ids\.txt: line 1: 1 id is a question of locomo outside the selected ones: 'conv-26:q0' \(line 1: category 2 \(temporal\), outside -B categories=1\)/,
    );
  });

  it('the same bad values from a config file are reported as its keys (exit 2), not as flags', async () => {
    const cases: Array<[string, RegExp]> = [
      ['benchmark: nosuchbench\n', /bad\.yaml: benchmark: unknown benchmark 'nosuchbench'/],
      ['retrieval:\n  retriever: bm99\n', /bad\.yaml: retrieval\.retriever: unknown retriever 'bm99'/],
      ['retrieval:\n  k: 200\n', /bad\.yaml: retrieval\.k: k must not exceed candidates/],
      ['chunking:\n  stride: 300\n', /bad\.yaml: chunking\.stride: stride must not exceed size/],
      ['assembly:\n  order: random\n', /bad\.yaml: assembly\.order/],
      ['options:\n  categories: "1,9"\n', /bad\.yaml: options\.categories: unknown LoCoMo category '9'/],
    ];
    const yml = join(dir, 'bad.yaml');
    for (const [text, pattern] of cases) {
      writeFileSync(yml, text);
      await expectRejected(['run', '--config', yml], 2, pattern);
      expect((await rawragInProcess(['run', '--config', yml, '--out', out])).stderr).not.toMatch(
        /--(k|stride|order|retriever|categories)\b/,
      );
    }
  });
});
