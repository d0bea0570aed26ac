/** Bad input: a clear message naming the file and place, a non-zero exit, no valid-looking results. */
import { describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, rawrag, tempDir } from '../helpers/cli.js';

describe('bad input', () => {
  const dir = tempDir();
  const out = join(dir, 'out');

  const expectRejected = (args: string[], code: number, pattern: RegExp) => {
    const r = rawrag([...args, '--out', out, '--no-progress']);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr).not.toMatch(/internal error|    at /);
    expect(existsSync(out)).toBe(false);
  };

  it('a missing data file', () => {
    expectRejected(['run', 'locomo', '--data', join(dir, 'nope.json')], 2, /nope\.json: data file not found/);
  });

  it('invalid JSON, with line and column', () => {
    const p = join(dir, 'broken.json');
    writeFileSync(p, '[{"sample_id": "a",\n  "qa": [}]');
    expectRejected(['run', 'locomo', '--data', p], 2, /broken\.json: line 2, column \d+: invalid JSON/);
  });

  it('missing fields, with their path', () => {
    const p = join(dir, 'fields.json');
    writeFileSync(p, JSON.stringify([{ sample_id: 'a', conversation: {} }]));
    expectRejected(['run', 'locomo', '--data', p], 2, /fields\.json: \[0\]\.qa: not a LoCoMo file/);
  });

  it('an unknown category', () => {
    expectRejected(['run', 'locomo', '--categories', '1,9'], 1, /--categories: unknown LoCoMo category '9'/);
  });

  it('a MemoryAgentBench source the release does not have is a bad flag value (1); --sample beyond the population is refused', () => {
    const cr = join(ROOT, 'tests/fixtures/memoryagentbench/Conflict_Resolution.sample.json');
    expectRejected(
      ['run', 'memoryagentbench', '--data', cr, '--sources', 'foo'],
      1,
      /--sources: unknown source\(s\) foo \(the release's: /,
    );
    expectRejected(
      ['run', 'locomo', '--sample', '5000'],
      2,
      /--sample: --sample 5,000 asks for more questions than there are \(all 1,540 questions\)/,
    );
  });

  it('an unknown benchmark', () => {
    expectRejected(['run', 'nosuchbench'], 1, /unknown benchmark 'nosuchbench'/);
  });

  it('bad flag values', () => {
    expectRejected(['run', 'locomo', '--k', 'abc'], 1, /--k <n>.*'abc' is not a positive whole number/);
    expectRejected(['run', 'locomo', '--limit', '0'], 1, /'0' is not a positive whole number/);
    expectRejected(['run', 'locomo', '--k', '200'], 1, /--k: k must not exceed candidates/);
    expectRejected(['run', 'locomo', '--candidates', '10'], 1, /--candidates: k must not exceed candidates/);
    expectRejected(['run', 'locomo', '--retriever', 'bm99'], 1, /--retriever: unknown retriever 'bm99'/);
    expectRejected(['run', 'locomo', '--window', '100', '--stride', '200'], 1, /--stride: stride must not exceed size/);
    expectRejected(['run', 'locomo', '--order', 'random'], 1, /--order: .*"rank"\|"chronological"/);
    expectRejected(['run', 'locomo', '--frobnicate'], 1, /unknown option '--frobnicate'/);
    expectRejected(['run', 'locomo', '--timeout', '0'], 1, /'0' is not a positive number/);
  });

  it('a config file with an unknown key or a bad value names the file and key', () => {
    const yml = join(dir, 'cfg.yaml');
    writeFileSync(yml, 'retrieval:\n  kk: 3\n');
    expectRejected(['run', 'locomo', '--config', yml], 2, /cfg\.yaml: retrieval: Unrecognized key: "kk"/);
    const json = join(dir, 'cfg.json');
    writeFileSync(json, '{"chunking": {"size": -4}}');
    expectRejected(['run', 'locomo', '--config', json], 2, /cfg\.json: chunking\.size/);
    expectRejected(['run', 'locomo', '--config', join(dir, 'absent.yaml')], 2, /absent\.yaml: cannot read config file/);
  });

  it('the same bad values from a config file are reported as its keys (exit 2), not as flags', () => {
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
      expectRejected(['run', '--config', yml], 2, pattern);
      expect(rawrag(['run', '--config', yml, '--out', out]).stderr).not.toMatch(/--(k|stride|order|retriever|categories)\b/);
    }
  });
});
