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
    await expectRejected(['run', 'locomo', '--config', yml], 2, /cfg\.yaml: retrieval: Unrecognized key: "kk"/);
    const json = join(dir, 'cfg.json');
    writeFileSync(json, '{"chunking": {"size": -4}}');
    await expectRejected(['run', 'locomo', '--config', json], 2, /cfg\.json: chunking\.size/);
    await expectRejected(['run', 'locomo', '--config', join(dir, 'absent.yaml')], 2, /absent\.yaml: cannot read config file/);
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
