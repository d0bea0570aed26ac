/**
 * A grid of runs in one command, through the real CLI against a loopback OpenAI-compatible server
 * that also plays the agentic memory system's extractor (tests/helpers/fake-extractor.ts):
 * `rawrag run locomo,longmemeval --reader gpt-4o-mini --system raw-rag,agentic-memory --limit 40`
 * writes four run directories and set.json under --out and prints a status table; the same command
 * again sends nothing; `rawrag stats DIR` pairs the systems within each benchmark-setting; cells
 * share one concurrency budget per provider; a failing cell does not stop the others (exit 7);
 * `--shard I/N` splits the cells so that two set folders merge by copying; the dry run lists the
 * cells; the single-run command keeps its own directory naming.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeApi, defaultChat, endpointArgs } from '../helpers/fake-api.js';
import { FakeExtractor } from '../helpers/fake-extractor.js';
import { loopbackEnv, readItems } from '../helpers/loopback-run.js';

const ORACLE = resolve(ROOT, 'tests/fixtures/longmemeval/longmemeval_oracle.sample.json');
const env = loopbackEnv({ openai: 'sk-test-GRIDSECRET0123456789' });

/** LoCoMo's judge and reader as usual (tests/helpers/fake-api.ts); LongMemEval's judge: "Yes." when the response holds the answer. */
function chat(body: any): string {
  const text: string = body.messages.map((m: { content: string }) => m.content).join('\n');
  if (text.startsWith('I will give you an unanswerable question')) return /Model Response: [^\n]*don't know/i.test(text) ? 'Yes.' : 'No.';
  if (text.startsWith('I will give you a question, a correct answer') || text.startsWith('I will give you a question, a rubric')) {
    const gold = /\n\n(?:Correct Answer|Rubric): ([\s\S]*?)\n\nModel Response: /.exec(text)![1]!;
    const response = /\n\nModel Response: ([\s\S]*?)\n\n(Is the model response correct\?)/.exec(text)![1]!;
    return response.includes(gold) ? 'Yes.' : 'No.';
  }
  return defaultChat(body);
}

const CELLS = [
  'locomo-raw-rag-local-gpt-4o-mini',
  'locomo-agentic-memory-local-gpt-4o-mini',
  'longmemeval-raw-rag-local-gpt-4o-mini',
  'longmemeval-agentic-memory-local-gpt-4o-mini',
];

describe('rawrag run over a grid (benchmarks x systems) against a loopback API', () => {
  const fake = new FakeExtractor({ chat });
  const cache = tempDir('rawrag-grid-cache-');
  const root = tempDir('rawrag-grid-');
  const dir = join(root, 'grid1');
  const args = (out: string, ...extra: string[]) => [
    'run',
    'locomo,longmemeval',
    '--reader',
    'gpt-4o-mini',
    '--system',
    'raw-rag,agentic-memory',
    '--limit',
    '40',
    '--data',
    `longmemeval=${ORACLE}`,
    '--out',
    out,
    ...endpointArgs(fake),
    '--cache-dir',
    cache,
    '--no-progress',
    ...extra,
  ];
  let first: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    await fake.start();
    first = await rawragInProcess(args(dir), env);
  }, 600_000);
  afterAll(() => fake.close());

  it('writes one run directory per cell, named by the cell, set.json beside them, and prints a status table', () => {
    expect(first.code, first.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([...CELLS, 'set.json'].sort());
    const set = JSON.parse(readFileSync(join(dir, 'set.json'), 'utf8'));
    expect(set.format).toBe('rawrag.set/1');
    expect(set.cells.map((c: any) => c.name)).toEqual(CELLS);
    for (const cell of CELLS) {
      const m = JSON.parse(readFileSync(join(dir, cell, 'manifest.json'), 'utf8'));
      expect(m.status).toBe('complete');
      expect(readItems(join(dir, cell))).toHaveLength(cell.startsWith('locomo') ? 40 : 7);
      expect(readItems(join(dir, cell)).every((i: any) => i.error === null && typeof i.score === 'number')).toBe(true);
      // The status table: a row per cell with its status and headline.
      expect(first.stdout).toMatch(
        new RegExp(
          `\\| ${cell} +\\| [^|]+\\| [^|]+\\| complete +\\| +${cell.startsWith('locomo') ? 40 : 7} \\| +0 \\| accuracy \\d+\\.\\d\\d %`,
        ),
      );
    }
    expect(first.stdout).toContain(`set folder: ${dir}`);
    // Log lines say which cell they come from; a line every cell would repeat is printed once.
    expect(first.stderr).toMatch(/\[locomo-raw-rag-local-gpt-4o-mini\] selected first 40 of all 1,540 questions/);
    expect(first.stderr.match(/data warnings/g)).toHaveLength(1);
    // The agentic memory cells extracted (one request per session they read).
    expect(fake.extractionRequests().length).toBeGreaterThan(0);
  });

  it('the same command again sends nothing and keeps every cell complete', async () => {
    fake.api.requests.length = 0;
    const again = await rawragInProcess(args(dir), env);
    expect(again.code, again.stderr).toBe(0);
    expect(fake.api.count()).toBe(0);
    for (const cell of CELLS) expect(again.stdout).toMatch(new RegExp(`\\| ${cell} +\\|[^\\n]*\\| complete `));
    expect(again.stderr).toMatch(/\[longmemeval-raw-rag-local-gpt-4o-mini\] resuming .*: 7 of 7 questions already done/);
  }, 300_000);

  it('rawrag stats DIR pairs the two systems within each benchmark-setting', async () => {
    const r = await rawragInProcess(['stats', dir, '--no-report', '--json', '--resamples', '200'], env);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.families.map((f: any) => f.setting).sort()).toEqual(['locomo/gpt-4o-mini', 'longmemeval/variant=oracle/gpt-4o-mini']);
    for (const f of s.families) {
      expect(f.leaderboard.map((row: any) => row.system).sort()).toEqual(['RAW-RAG/local', 'agentic-memory/gpt-4o-mini']);
      expect(f.pairwise).toHaveLength(1);
      expect(f.pairwise[0].n).toBe(f.benchmark === 'locomo' ? 40 : 7);
    }
  }, 300_000);

  it('--dry-run lists every cell with its calls and cost, and writes nothing', async () => {
    const out = join(root, 'dry');
    const r = await rawragInProcess(args(out, '--dry-run', '--max-cost', '0.0001'), env);
    expect(r.code, r.stderr).toBe(0);
    for (const cell of CELLS) expect(r.stdout).toMatch(new RegExp(`\\| ${cell} +\\| +${cell.startsWith('locomo') ? 40 : 7} \\|`));
    expect(r.stdout).toMatch(/estimated total: \$\d+\.\d{4}/);
    expect(r.stdout).toContain('the estimate is above the cap: a real run would be refused');
    expect(existsSync(out)).toBe(false);
  }, 300_000);
});

describe('a grid shares one provider budget, survives a failing cell, and shards', () => {
  const api = new FakeApi({ delayMs: 40 });
  const cache = tempDir('rawrag-grid2-cache-');
  const root = tempDir('rawrag-grid2-');
  const args = (out: string, ...extra: string[]) => [
    'run',
    'locomo',
    '--reader',
    'gpt-4o-mini,gpt-4.1-mini',
    '--limit',
    '12',
    '--judge-runs',
    '1',
    '--out',
    out,
    ...endpointArgs(api).slice(0, 4),
    '--cache-dir',
    cache,
    '--no-progress',
    ...extra,
  ];

  beforeAll(async () => {
    await api.start();
  });
  afterAll(() => api.close());

  it('two cells at once keep --concurrency chat in flight in all, not per cell', async () => {
    const r = await rawragInProcess(args(join(root, 'shared'), '--concurrency', 'chat=3'), env);
    expect(r.code, r.stderr).toBe(0);
    const readers = api.byPath('/v1/chat/completions').filter((q) => !JSON.stringify(q.body.messages).includes('Gold answer:'));
    expect(readers.filter((q) => q.body.model === 'gpt-4o-mini')).toHaveLength(12);
    expect(readers.filter((q) => q.body.model === 'gpt-4.1-mini')).toHaveLength(12);
    expect(api.maxInFlight).toBeLessThanOrEqual(3);
    expect(api.maxInFlight).toBe(3);
  }, 300_000);

  it('a cell whose data is missing stops the grid in the pre-flight, before any cell starts (exit 2)', async () => {
    const out = join(root, 'one-fails');
    const r = await rawragInProcess(
      ['run', 'locomo,longmemeval', '--limit', '5', '--out', out, '--no-progress', '--data', 'longmemeval=/nonexistent/lme.json'],
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /pre-flight: a problem before anything was sent:\n  - longmemeval-raw-rag-local-retrieval: .*data file not found/,
    );
    expect(existsSync(join(out, 'locomo-raw-rag-local-retrieval'))).toBe(false);
  }, 300_000);

  it('--shard 1/2 and 2/2 each run half of the cells; their set folders merge by copying into the whole grid', async () => {
    const a = join(root, 'machine-a');
    const b = join(root, 'machine-b');
    const ra = await rawragInProcess(args(a, '--shard', '1/2'), env);
    const rb = await rawragInProcess(args(b, '--shard', '2/2'), env);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    expect(readdirSync(a).sort()).toEqual(['locomo-raw-rag-local-gpt-4o-mini', 'set.json']);
    expect(readdirSync(b).sort()).toEqual(['locomo-raw-rag-local-gpt-4.1-mini', 'set.json']);
    expect(ra.stdout).toMatch(/\| locomo-raw-rag-local-gpt-4.1-mini +\|[^\n]*\| other shard \(2\/2\) /);
    expect(readFileSync(join(a, 'set.json'), 'utf8').replace(/"(created|updated)_at": "[^"]+"/g, '')).toBe(
      readFileSync(join(b, 'set.json'), 'utf8').replace(/"(created|updated)_at": "[^"]+"/g, ''),
    );
    cpSync(b, a, { recursive: true });
    api.requests.length = 0;
    const whole = await rawragInProcess(args(a), env);
    expect(whole.code, whole.stderr).toBe(0);
    expect(api.count()).toBe(0);
    expect(whole.stdout.match(/\| complete /g)).toHaveLength(2);
  }, 300_000);

  it('--config with a folder runs one cell per config file, named by the file (and the listed axes)', async () => {
    const configs = join(root, 'configs');
    mkdirSync(configs);
    writeFileSync(join(configs, 'k5.yaml'), 'benchmark: locomo\nretrieval:\n  k: 5\njudge:\n  runs: 1\n');
    writeFileSync(join(configs, 'k15.json'), JSON.stringify({ benchmark: 'locomo', judge: { runs: 1 } }));
    writeFileSync(join(configs, 'README.md'), 'not a config');
    const out = join(root, 'from-configs');
    const r = await rawragInProcess(
      ['run', '--config', configs, '--reader', 'gpt-4o-mini,gpt-4.1-mini', '--limit', '4', '--out', out, '--no-progress'].concat(
        endpointArgs(api).slice(0, 4),
        ['--cache-dir', cache],
      ),
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['k15-gpt-4.1-mini', 'k15-gpt-4o-mini', 'k5-gpt-4.1-mini', 'k5-gpt-4o-mini', 'set.json']);
    expect(JSON.parse(readFileSync(join(out, 'k5-gpt-4o-mini', 'manifest.json'), 'utf8')).config.retrieval.k).toBe(5);
    expect(JSON.parse(readFileSync(join(out, 'set.json'), 'utf8')).cells[0].config_file).toBe(join(configs, 'k15.json'));
  }, 300_000);

  it('a single benchmark, reader and system keeps the run directory naming of a single run', async () => {
    const out = join(root, 'single');
    const r = await rawragInProcess(['run', 'locomo', '--limit', '3', '--json', '--no-progress', '--out', out], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('set folder');
    expect(JSON.parse(r.stdout).run_id).toMatch(/^locomo-local-retrieval-[0-9a-f]{10}$/);
    expect(existsSync(join(out, 'manifest.json'))).toBe(true);
    expect(existsSync(join(out, 'set.json'))).toBe(false);
  }, 120_000);
});
