/**
 * `--max-cost USD` through the real CLI against a loopback OpenAI-compatible server: a cap below the
 * estimate is refused before anything is sent (exit 6); a cap above the estimate but below what the
 * run really costs (the server's reader answers at length) stops the run before a request could
 * cross it (exit 6, `stopped-cost-cap`, the items so far kept, the spend recorded under the cap);
 * the same command with a higher cap resumes and finishes, sending nothing twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { runCost } from '../../src/run-files/cost.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeApi, defaultChat, isJudgeRequest } from '../helpers/fake-api.js';
import { locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';

const env = loopbackEnv({ openai: 'sk-test-MAXCOSTSECRET0123456789' });

/** A reader that answers with 1,500 words (far above the estimate's 30 tokens); the judge as usual. */
function verbose(body: any): string {
  const text = JSON.stringify(body.messages);
  return text.includes('Gold answer:') ? defaultChat(body) : `I don't know. ${'maybe '.repeat(1500)}`;
}

describe('rawrag run --max-cost', () => {
  const api = new FakeApi({ chat: verbose });
  const cache = tempDir('rawrag-cap-cache-');
  const root = tempDir('rawrag-cap-runs-');
  const out = join(root, 'capped');
  const args = (cap: string, ...extra: string[]) =>
    locomoRunArgs({ out, peer: api, chatOnly: true, cache, limit: 10, json: false, extra: ['--max-cost', cap, ...extra] });
  let estimate = 0;
  /** The same run without a cap, on an empty cache of its own: its requests and what they cost. */
  const uncapped = { requests: 0, spent: 0 };

  beforeAll(async () => {
    await api.start();
    const dry = await rawragInProcess(args('1', '--dry-run'), env);
    expect(dry.code, dry.stderr).toBe(0);
    estimate = Number(/estimated total: \$(\d+\.\d+)/.exec(dry.stdout)![1]);
    expect(dry.stdout).toContain('NOTE: --max-cost $1.0000: the estimate is within the cap');
    const free = join(root, 'uncapped');
    const r = await rawragInProcess(
      locomoRunArgs({ out: free, peer: api, chatOnly: true, cache: tempDir('rawrag-cap-fresh-'), limit: 10, json: false }),
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    uncapped.requests = api.count();
    uncapped.spent = JSON.parse(readFileSync(join(free, 'manifest.json'), 'utf8')).spent_usd;
    // The premise: the reader's long answers cost far more than the estimate's 30 tokens each.
    expect(uncapped.spent).toBeGreaterThan(2 * estimate);
    api.requests.length = 0;
  }, 120_000);
  afterAll(() => api.close());

  it('a cap below the estimate is refused before anything is sent or written (exit 6, the estimate named)', async () => {
    const cap = (estimate / 2).toFixed(4);
    const r = await rawragInProcess(args(cap), env);
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(
      new RegExp(`--max-cost \\$${cap}: the estimate for the 10 questions still to do is \\$${estimate.toFixed(4)}`),
    );
    expect(r.stderr).toContain('nothing was sent');
    expect(api.count()).toBe(0);
    expect(() => readFileSync(join(out, 'manifest.json'))).toThrow();
  }, 120_000);

  it('a cap above the estimate but below the real cost stops the run before crossing it; a higher cap finishes it', async () => {
    // Above the estimate (the run starts), well below what it really costs (it must stop).
    const cap = 0.7 * uncapped.spent;
    const first = await rawragInProcess(args(cap.toFixed(4)), env);
    expect(first.code, first.stderr).toBe(6);
    expect(first.stderr).toMatch(
      /stopped before crossing --max-cost \$\d+\.\d{4}: paid \$\d+\.\d{4} in all \(held back: (reader|judge) request to gpt-4o-mini\)/,
    );
    expect(first.stderr).toContain('the same command with a higher --max-cost resumes');
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(m.status).toBe('stopped-cost-cap');
    expect(m.spent_usd).toBeGreaterThan(0);
    expect(m.spent_usd).toBeLessThanOrEqual(cap);
    const kept = readItems(out);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(10);
    expect(kept.every((i: any) => i.error === null && typeof i.score === 'number')).toBe(true);
    const sentFirst = api.count();

    api.requests.length = 0;
    const second = await rawragInProcess(args('1'), env);
    expect(second.code, second.stderr).toBe(0);
    const m2 = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(m2.status).toBe('complete');
    expect(readItems(out)).toHaveLength(10);
    // What the two processes spent is what the uncapped run spent: nothing was paid twice.
    expect(m2.spent_usd).toBeCloseTo(uncapped.spent, 8);
    // Nothing answered before is asked again: the resumed run sends only the questions left (reader + 3 judge runs each).
    const readerAsked = api.requests
      .filter((r) => r.path === '/v1/chat/completions' && !isJudgeRequest(r))
      .map((r) => JSON.stringify(r.body.messages));
    const doneQuestions = kept.map((i: any) => i.question);
    expect(readerAsked.some((b) => doneQuestions.some((q: string) => b.includes(q)))).toBe(false);
    // Every request of the run was sent once over the two processes: as many as an uncapped run on an empty cache sends.
    const sentSecond = api.count();
    expect(sentFirst + sentSecond).toBe(uncapped.requests);
  }, 240_000);

  it('one cost definition: the terminal, the report and --max-cost give the same paid and list-price figures; cache hits are not paid', async () => {
    // The finished capped run: paid = the manifest's spent_usd (both processes); list price = every reply priced.
    const c = runCost(out);
    expect(c.paid_usd).toBeCloseTo(uncapped.spent, 8);
    expect(c.list_usd).not.toBeNull();
    // The same run in a new directory on the same cache: every reply a cache hit, nothing paid, the same list price.
    const again = join(root, 'from-cache');
    api.requests.length = 0;
    const free = await rawragInProcess(locomoRunArgs({ out: again, peer: api, chatOnly: true, cache, limit: 10, json: false }), env);
    expect(free.code, free.stderr).toBe(0);
    expect(api.count()).toBe(0);
    const cached = runCost(again);
    expect(cached.paid_usd).toBe(0);
    expect(cached.list_usd).toBeCloseTo(c.list_usd!, 8);
    expect(free.stdout).toContain(`Cost of this run directory: paid $0.0000; list-price equivalent $${c.list_usd!.toFixed(4)}`);
    // The report shows the same two figures per run.
    const report = await rawragInProcess(['report', root, '--out', join(root, 'report', 'report.html')], env);
    expect(report.code, report.stderr).toBe(0);
    const html = readdirSync(join(root, 'report'))
      .filter((f) => f.endsWith('.html'))
      .map((f) => readFileSync(join(root, 'report', f), 'utf8'))
      .join('\n');
    expect(html).toMatch(new RegExp(`data-role="paid" class="total">.*\\$${c.paid_usd!.toFixed(4).replace('.', '\\.')}`));
    expect(html).toMatch(new RegExp(`data-role="total" class="total">.*\\$${c.list_usd!.toFixed(4).replace('.', '\\.')}`));
  }, 240_000);

  it('judge and calibrate-judge refuse a cap below their estimate before sending anything (exit 6)', async () => {
    api.requests.length = 0;
    const judge = await rawragInProcess(
      [
        'judge',
        'docs/examples/my-answers.jsonl',
        '--benchmark',
        'locomo',
        '--out',
        join(root, 'judged'),
        '--judge-base-url',
        `${api.url}/v1`,
      ].concat(['--cache-dir', cache, '--no-progress', '--max-cost', '0.000001']),
      env,
    );
    expect(judge.code).toBe(6);
    expect(judge.stderr).toMatch(/--max-cost \$0\.0000: the estimate for the answers still to judge is \$0\.\d{4}/);
    const calibrate = await rawragInProcess(
      ['calibrate-judge', 'locomo', '--limit', '5', '--out', join(root, 'calibration'), '--judge-base-url', `${api.url}/v1`].concat([
        '--cache-dir',
        cache,
        '--no-progress',
        '--max-cost',
        '0.000001',
      ]),
      env,
    );
    expect(calibrate.code).toBe(6);
    expect(calibrate.stderr).toContain('nothing was sent');
    expect(api.count()).toBe(0);
    const batch = await rawragInProcess(args('1', '--batch'), env);
    expect(batch.code).toBe(1);
    expect(batch.stderr).toContain('--max-cost cannot bound --batch');
  }, 120_000);

  it('ablate stops its variants before crossing the cap (exit 6, stopped-cost-cap) and a higher cap finishes the sweep', async () => {
    const out = join(root, 'ablation');
    const sweep = (cap: string) => [
      ...locomoRunArgs({ command: 'ablate', out, peer: api, chatOnly: true, cache: tempDir('rawrag-cap-ablate-'), limit: 6 }),
      '--k',
      '5',
      '--judge-runs',
      '1',
      '--max-cost',
      cap,
    ];
    const dry = await rawragInProcess([...sweep('1'), '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    const estimate = Number(/estimated total: \$(\d+\.\d+)/.exec(dry.stdout)![1]);
    const first = await rawragInProcess(sweep((estimate * 1.2).toFixed(4)), env);
    expect(first.code, first.stderr).toBe(6);
    const variants = ['default', 'k=5'].map((v) => JSON.parse(readFileSync(join(out, v, 'manifest.json'), 'utf8')));
    const statuses = variants.map((m) => m.status);
    expect(statuses).toContain('stopped-cost-cap');
    expect(variants.reduce((sum, m) => sum + m.spent_usd, 0)).toBeLessThanOrEqual(estimate * 1.2);
    expect(first.stderr).toMatch(/stopped before crossing --max-cost/);
    const second = await rawragInProcess(sweep('1'), env);
    expect(second.code, second.stderr).toBe(0);
    for (const v of ['default', 'k=5']) expect(JSON.parse(readFileSync(join(out, v, 'manifest.json'), 'utf8')).status).toBe('complete');
  }, 240_000);

  it('a grid has one cap for the whole set: stopped before crossing it (exit 6), resumed by a higher cap', async () => {
    const out = join(root, 'grid');
    const grid = (cap: string, ...extra: string[]) =>
      locomoRunArgs({ out, peer: api, chatOnly: true, cache: tempDir('rawrag-cap-grid-'), limit: 6, json: false })
        .map((a) => (a === 'gpt-4o-mini' ? 'gpt-4o-mini,gpt-4.1-mini' : a))
        .concat(['--max-cost', cap, ...extra]);
    const dry = await rawragInProcess(grid('1', '--dry-run'), env);
    expect(dry.code, dry.stderr).toBe(0);
    const estimate = Number(/estimated total: \$(\d+\.\d+)/.exec(dry.stdout)![1]);
    const low = await rawragInProcess(grid((estimate / 2).toFixed(4)), env);
    expect(low.code).toBe(6);
    expect(low.stderr).toMatch(/the estimate for the questions still to do in 2 cells is/);
    const cap = estimate * 1.2;
    const first = await rawragInProcess(grid(cap.toFixed(4)), env);
    expect(first.code, first.stderr).toBe(6);
    expect(first.stderr).toMatch(/stopped before crossing --max-cost \$\d+\.\d{4}: paid \$\d+\.\d{4} in all; \d of 2 cells not finished/);
    expect(first.stdout).toMatch(/\| (stopped-cost-cap|not started) /);
    const cells = ['locomo-raw-rag-local-gpt-4o-mini', 'locomo-raw-rag-local-gpt-4.1-mini'];
    const spent = cells.map((c) => {
      try {
        return JSON.parse(readFileSync(join(out, c, 'manifest.json'), 'utf8')).spent_usd as number;
      } catch {
        return 0;
      }
    });
    expect(spent.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(cap);
    const second = await rawragInProcess(grid('1'), env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.match(/\| complete /g)).toHaveLength(2);
  }, 240_000);
});
