/**
 * Issue 32, item 5 (the parts that are not judging): nothing mislabelled.
 *   - `rawrag runs` shows a run whose items mostly failed as such, in the table and in --json;
 *   - `rawrag export` warns about a torn last line of items.jsonl as `rawrag stats` does;
 *   - `rawrag export --out` into a folder that does not exist makes it; a file in the way is exit 2;
 *   - `rawrag export` into a pipe closed early ends quietly (no unhandled 'error' event);
 *   - an item whose judging failed keeps its coverage: BEAM's ability table, the summary and the
 *     stats coverage table count the same items.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, readerQuestion, type RecordedRequest } from '../helpers/fake-api.js';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const env = { OPENAI_API_KEY: 'sk-test-failed-items', RAWRAG_RETRY_BASE_MS: '1', OPENAI_BASE_URL: undefined, RAWRAG_CACHE_DIR: undefined };

describe('a run whose items mostly failed', () => {
  const api = new FakeApi();
  const dir = tempDir('rawrag-failed-items-');
  const out = join(dir, 'results', 'mostly-failed');
  let first: { code: number; stderr: string };
  beforeAll(async () => {
    await api.start();
    // The reader fails for good on 9 of the 10 questions.
    let allowed: string | null = null;
    api.inject({
      kind: 'status',
      status: 500,
      times: Infinity,
      match: (r: RecordedRequest) => {
        const q = r.path === '/v1/chat/completions' ? readerQuestion(r.body) : null;
        if (q === null) return false;
        allowed ??= q;
        return q !== allowed;
      },
    });
    first = await rawragInProcess(
      ['run', 'locomo', '--reader', 'gpt-4o-mini', '--limit', '10', '--max-retries', '0', '--no-progress', '--out', out].concat([
        '--reader-base-url',
        `${api.url}/v1`,
        '--judge-base-url',
        `${api.url}/v1`,
        '--cache-dir',
        tempDir(),
      ]),
      env,
    );
  }, 120_000);
  afterAll(() => api.close());

  it('runs: "incomplete (9 failed)" in the table and in --json (issue 41 item 12: failed items make a run incomplete)', async () => {
    expect(first.code, first.stderr).toBe(4);
    expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).status).toBe('incomplete');
    const table = await rawragInProcess(['runs', join(dir, 'results')]);
    expect(table.stdout).toMatch(/\| incomplete \(9 failed\) +\| +10 \|/);
    const json = JSON.parse((await rawragInProcess(['runs', join(dir, 'results'), '--json'])).stdout);
    expect(json[0]).toMatchObject({ status: 'incomplete', status_text: 'incomplete (9 failed)', errors: 9, n: 10 });
  });

  it('export: a torn last line of items.jsonl is reported, not dropped silently', async () => {
    const copy = join(dir, 'torn');
    cpSync(out, copy, { recursive: true });
    appendFileSync(join(copy, 'items.jsonl'), '{"id":"conv-26:q10","benchmark":"loc');
    const r = await rawragInProcess(['export', copy]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`warning: ${copy}: items.jsonl: last line 11 is incomplete (no newline, not valid JSON) and was skipped\n`);
    expect(r.stdout.trim().split('\n')).toHaveLength(11); // header + 10 rows
  });

  it('export --out into a folder that does not exist makes it; a file in the way is exit 2 naming it', async () => {
    const target = join(dir, 'new', 'deeper', 'run.csv');
    const r = await rawragInProcess(['export', out, '--out', target]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(target, 'utf8').split('\n')[0]).toMatch(/^id,type,episode/);
    writeFileSync(join(dir, 'a-file'), 'x');
    const bad = await rawragInProcess(['export', out, '--format', 'parquet', '--out', join(dir, 'a-file', 'run.parquet')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      new RegExp(
        `^rawrag: error: ${join(dir, 'a-file')}.*: (a path component is a file, not a folder \\(ENOTDIR|already exists \\(as a file\\?\\) \\(EEXIST), mkdir\\)\\n$`,
      ),
    );
  });
});

describe('export into a pipe whose reader goes away', () => {
  it("`rawrag export RUN | head -c 100` ends quietly with exit 0 (EPIPE is the reader's choice), no stack trace", () => {
    // A run large enough that its CSV (about 5 MB) outgrows the pipe.
    const run = join(tempDir(), 'big');
    mkdirSync(run);
    writeFileSync(
      join(run, 'manifest.json'),
      JSON.stringify({ system: 'S', benchmark: 'locomo', setting: 'locomo/x', status: 'complete' }),
    );
    writeFileSync(
      join(run, 'items.jsonl'),
      Array.from({ length: 60_000 }, (_, i) =>
        JSON.stringify({ id: `q${i}`, score: i % 2, answer: 'an answer long enough '.repeat(3) }),
      ).join('\n') + '\n',
    );
    const r = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" export "${run}" | head -c 100 > /dev/null`], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.stderr).not.toMatch(/Unhandled|EPIPE|\n\s+at /);
    expect(r.status).toBe(0);
  }, 60_000);
});

describe('BEAM: an item whose judging failed keeps its coverage', () => {
  const CONV = join(ROOT, 'tests/fixtures/beam/100K/5');
  const api = new FakeApi({ chat: () => '{"score": 1, "reason": "ok"}' });
  const out = join(tempDir('rawrag-beam-judge-fails-'), 'run');
  let summary: any;
  beforeAll(async () => {
    await api.start();
    // Every judge request fails for good; the reader answers.
    api.inject({
      kind: 'status',
      status: 500,
      times: Infinity,
      match: (r) => JSON.stringify(r.body ?? '').includes('RUBRIC CRITERION') || JSON.stringify(r.body ?? '').includes('binary classifier'),
    });
    const r = await rawragInProcess(
      [
        'run',
        'beam',
        '--data',
        CONV,
        '--reader',
        'gpt-4o-mini',
        '--json',
        '--max-retries',
        '0',
        '--max-failures',
        '0',
        '--no-progress',
        '--out',
        out,
      ].concat(['--reader-base-url', `${api.url}/v1`, '--judge-base-url', `${api.url}/v1`, '--cache-dir', tempDir()]),
      env,
    );
    expect(r.code).toBe(4);
    summary = JSON.parse(r.stdout);
  }, 120_000);
  afterAll(() => api.close());

  it('the summary, the ability table and the stats coverage table count every retrieved item', async () => {
    const items = readFileSync(join(out, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const judged = items.filter((i) => i.error?.stage === 'judge');
    expect(judged.length).toBeGreaterThan(items.length / 2);
    const withCoverage = items.filter((i) => i.coverage !== null);
    // Those with gold evidence (two of this conversation's questions have none), failed at judging or not.
    expect(withCoverage.filter((i) => i.error?.stage === 'judge').length).toBeGreaterThan(withCoverage.length / 2);
    expect(summary.overall.coverage.n).toBe(withCoverage.length);
    const rows = summary.benchmark_summary.sizes['100K'].abilities as Array<{ ability: string; n: number; coverage_all: number | null }>;
    for (const row of rows) {
      const mine = items.filter((i) => i.type === row.ability);
      expect(row.n).toBe(mine.length);
      const known = mine.filter((i) => i.coverage !== null);
      if (known.length === 0) expect(row.coverage_all).toBeNull();
      else expect(row.coverage_all).toBeCloseTo(known.filter((i) => i.coverage.all).length / known.length, 12);
    }
    const st = await rawragInProcess(['stats', out, '--out', join(out, '..', 'stats'), '--resamples', '200', '--json', '--no-report']);
    expect(st.code, st.stderr).toBe(0);
    expect(JSON.parse(st.stdout).families[0].coverage[0].n).toBe(withCoverage.length);
    expect(existsSync(join(out, '..', 'stats', 'coverage.csv'))).toBe(true);
  });
});
