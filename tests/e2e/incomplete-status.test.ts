/**
 * Issue 41, item 12: a run with failed items is "incomplete (N failed)" everywhere — the run's
 * summary (terminal and summary.json), `rawrag runs`, the report index, `rawrag view`'s live panel
 * and `rawrag stats` — with the reasons grouped, counted and given a fix hint (`rawrag show RUN
 * --failures`), and a `--retry-errors` that fails again says why, not only how many.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, readerQuestion, type RecordedRequest } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { RunWatch } from '../../src/view/progress.js';

const env = { OPENAI_API_KEY: 'sk-test-incomplete', RAWRAG_RETRY_BASE_MS: '1', OPENAI_BASE_URL: undefined, RAWRAG_CACHE_DIR: undefined };

describe('a run with failed items is incomplete everywhere', () => {
  const api = new FakeApi();
  const dir = tempDir('rawrag-incomplete-');
  const results = join(dir, 'results');
  const out = join(results, 'mostly-failed');
  const cache = tempDir('rawrag-incomplete-cache-');
  const args = (...extra: string[]) =>
    ['run', 'locomo', '--reader', 'gpt-4o-mini', '--limit', '10', '--max-retries', '0', '--no-progress', '--out', out, ...extra].concat([
      '--reader-base-url',
      `${api.url}/v1`,
      '--judge-base-url',
      `${api.url}/v1`,
      '--cache-dir',
      cache,
    ]);
  let first: { code: number; stdout: string; stderr: string };
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
    first = await rawragInProcess(args(), env);
  }, 120_000);
  afterAll(() => api.close());

  it("the run's summary: incomplete (9 failed), the reasons grouped with a count and a fix hint; exit 4 says why", () => {
    expect(first.code, first.stderr).toBe(4);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.status).toBe('incomplete');
    expect(manifest.questions).toMatchObject({ selected: 10, done: 10, errors: 9 });
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ status: 'incomplete', failed: 9 });
    expect(summary.failures).toHaveLength(1);
    expect(summary.failures[0]).toMatchObject({ stage: 'read', count: 9 });
    expect(summary.failures[0].reason).toMatch(/500/);
    expect(summary.failures[0].hint).toMatch(/failed or did not answer: check it is up/);
    expect(first.stdout).toContain('status: incomplete (9 failed)');
    expect(first.stdout).toMatch(/ {2}9 × read: .*500/);
    expect(first.stdout).toContain(`rawrag show ${out} --failures`);
    expect(first.stderr).toMatch(/9 of 10 items failed \(90\.0%, allowed 0\.0%\), for 1 reason:\n {2}9 × read: .*500/);
    expect(first.stdout).not.toMatch(/status: complete/);
  });

  it('rawrag runs: "incomplete (9 failed)" in the table and in --json', async () => {
    const table = await rawragInProcess(['runs', results]);
    expect(table.stdout).toMatch(/\| incomplete \(9 failed\) +\| +10 \|/);
    const json = JSON.parse((await rawragInProcess(['runs', results, '--json'])).stdout);
    expect(json[0]).toMatchObject({ status: 'incomplete', status_text: 'incomplete (9 failed)', errors: 9, n: 10 });
  });

  it('an older manifest that said "complete" with failed items is shown incomplete too', async () => {
    const old = join(dir, 'old', 'run');
    cpSync(out, old, { recursive: true });
    const m = JSON.parse(readFileSync(join(old, 'manifest.json'), 'utf8'));
    writeFileSync(join(old, 'manifest.json'), JSON.stringify({ ...m, status: 'complete' }));
    const json = JSON.parse((await rawragInProcess(['runs', join(dir, 'old'), '--json'])).stdout);
    expect(json[0]).toMatchObject({ status: 'incomplete', status_text: 'incomplete (9 failed)' });
    expect(new RunWatch(old).poll()).toMatchObject({ status: 'incomplete', status_label: 'incomplete (9 failed)', failed: 9 });
  });

  it('rawrag show RUN --failures: the reasons grouped with counts and a hint, then every failed item', async () => {
    const r = await rawragInProcess(['show', out, '--failures']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(': incomplete (9 failed)');
    expect(r.stdout).toContain('9 of 10 items failed, for 1 reason:');
    expect(r.stdout).toMatch(/ {2}9 × read: .*500.*\n {6}fix: the provider or memory service failed/);
    const items = readFileSync(join(out, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const i of items.filter((x) => x.error)) expect(r.stdout).toContain(`  ${i.id}  read: `);
    const j = JSON.parse((await rawragInProcess(['show', out, '--failures', '--json'])).stdout);
    expect(j).toMatchObject({ status: 'incomplete (9 failed)', items: 10, failed: 9 });
    expect(j.groups[0]).toMatchObject({ stage: 'read', count: 9 });
    expect(j.failures).toHaveLength(9);
  });

  it("rawrag view's live panel: incomplete (9 failed), not complete", () => {
    const p = new RunWatch(out).poll();
    expect(p).toMatchObject({ status: 'incomplete', status_label: 'incomplete (9 failed)', failed: 9, done: 10 });
  });

  it('the report index: incomplete (9 failed), the headline over the items that did not fail', async () => {
    // A second benchmark's run (an external system's minimal folder), so the report has an index page.
    const other = join(results, 'other-benchmark');
    mkdirSync(other, { recursive: true });
    writeFileSync(
      join(other, 'manifest.json'),
      JSON.stringify({ system: 'S', benchmark: 'longmemeval', setting: 'longmemeval/x', status: 'complete' }),
    );
    writeFileSync(join(other, 'items.jsonl'), '{"id":"q1","score":1}\n{"id":"q2","score":0}\n');
    const r = await rawragInProcess(['report', results, '--out', join(dir, 'report', 'report.html')]);
    expect(r.code, r.stderr).toBe(0);
    const index = readFileSync(join(dir, 'report', 'report.html'), 'utf8');
    const row = index.split('\n').find((l) => l.includes('data-run=') && l.includes('mostly-failed'));
    expect(row).toContain('incomplete (9 failed)');
    expect(row).toContain('(over 1 of 10; 9 failed)');
    expect(row).toContain('class="run-status not-complete"');
    expect(readdirSync(join(dir, 'report')).filter((f) => f.endsWith('.html')).length).toBe(3);
  });

  it('rawrag stats says it ranks an incomplete run', async () => {
    const r = await rawragInProcess(['stats', out, '--out', join(dir, 'stats'), '--resamples', '200', '--no-report']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/WARNING: this leaderboard ranks an incomplete run: .*\(incomplete \(9 failed\)\)/);
    expect(r.stdout).toContain('ranks an incomplete run (incomplete (9 failed))');
  });

  it('--retry-errors that fails again says why (the reasons grouped), not only how many', async () => {
    const again = await rawragInProcess(args('--retry-errors'), env);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/9 of 10 items failed .*, for 1 reason:\n {2}9 × read: .*500.*\n {6}fix: /);
    expect(again.stdout).toContain('status: incomplete (9 failed)');
  }, 120_000);
});
