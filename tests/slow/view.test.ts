/**
 * `rawrag view` as a person would use it: started (a real child process) on an empty results
 * folder, opened in headless Chromium, then a judged LoCoMo run starts writing there against a slow
 * loopback OpenAI server. The page goes from "no run yet" to the run's report; the live panel's
 * item count grows while items arrive and so does the explorer; a screenshot is taken while they
 * do (docs/report/view.png with RAWRAG_UPDATE_DOCS=1); at the end the panel says complete, with
 * the items' count and cost. Ctrl-C stops the server: exit 130, the port closed. Without Chromium
 * the browser test skips, saying so; the server's own checks still run.
 */
import { runCost } from '../../src/run-files/cost.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { FakeApi, defaultChat, endpointArgs, readerQuestion } from '../helpers/fake-api.js';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { findChromium, launchChromium } from '../../scripts/lib/chromium.mjs';

const LIMIT = 40;
const CHROMIUM = findChromium();
if (!CHROMIUM) {
  process.stderr.write(
    "\nSKIPPED: rawrag view browser test — no Chromium found (install Debian's chromium: apt-get install -y chromium, or set RAWRAG_CHROMIUM)\n\n",
  );
}

/** `rawrag view ARGS` in a child process (the real binary: signals and exit codes as a user sees them), once it printed its URL. */
async function startView(args: string[], cwd: string): Promise<{ child: ChildProcess; url: string; out: () => string; err: () => string }> {
  const child = spawn(process.execPath, [BIN, 'view', ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${out} ${err}`)), 30_000);
    const check = () => {
      const m = /rawrag view: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${err}`));
    });
  });
  return { child, url, out: () => out, err: () => err };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

/** A GET with the Host header given (fetch may not set it). */
function get(url: string, host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await probe();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

describe('rawrag view', () => {
  const root = tempDir('rawrag-view-e2e-');
  const results = join(root, 'results');
  const runDir = join(results, 'live');
  mkdirSync(results);
  let chat: (body: any) => string = defaultChat;
  const api = new FakeApi({ chat: (body) => chat(body) });
  let view: Awaited<ReturnType<typeof startView>>;

  beforeAll(async () => {
    const { locomo } = await import('../../src/benchmarks/locomo/index.js');
    const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    const gold = new Map(ds.questions.slice(0, LIMIT).map((q, i) => [q.text, i % 3 ? q.gold : 'no idea']));
    chat = (body) => gold.get(readerQuestion(body) ?? '') ?? defaultChat(body);
    await api.start();
    view = await startView(['results', '--port', '0', '--interval', '0.5'], root);
  }, 60_000);
  afterAll(async () => {
    if (view?.child.exitCode === null) view.child.kill('SIGKILL');
    await api.close();
  });

  it('listens on 127.0.0.1 only, answers its own host name only, and says which port is taken', async () => {
    expect(view.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const progress = await get(`${view.url}api/progress`);
    expect(progress.status).toBe(200);
    expect(JSON.parse(progress.body)).toMatchObject({ folders: ['results'], runs: [] });
    const page = await get(view.url);
    expect(page.body).toContain('rawrag view — no run directory yet');
    // A page on another site pointing a name at 127.0.0.1 (DNS rebinding) gets nothing.
    const foreign = await get(`${view.url}api/progress`, 'attacker.example:80');
    expect(foreign.status).toBe(403);
    const port = new URL(view.url).port;
    const taken = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const c = spawn(process.execPath, [BIN, 'view', 'results', '--port', port], { cwd: root });
      let err = '';
      c.stderr.on('data', (d) => (err += d));
      c.on('exit', (code) => resolve({ code, err }));
    });
    expect(taken.code).toBe(2);
    expect(taken.err).toContain(
      `port ${port} on 127.0.0.1 is in use (another rawrag view?): --port N names another, --port 0 takes a free one`,
    );
    const missing = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const c = spawn(process.execPath, [BIN, 'view', 'nope', '--port', '0'], { cwd: root });
      let err = '';
      c.stderr.on('data', (d) => (err += d));
      c.on('exit', (code) => resolve({ code, err }));
    });
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('nope: no such file or directory');
  });

  describe.skipIf(!CHROMIUM)('in headless Chromium', () => {
    let chromium: Awaited<ReturnType<typeof launchChromium>>;
    beforeAll(async () => {
      chromium = await launchChromium(CHROMIUM!);
    }, 60_000);
    afterAll(async () => chromium?.close());

    it("shows a run's progress live: the item count grows while items arrive (screenshot), then the finished run", async () => {
      const page = await chromium.browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      const errors: string[] = [];
      const elsewhere: string[] = [];
      page.on('console', (m) => (m.type() === 'error' || m.type() === 'warn' ? errors.push(m.text()) : undefined));
      page.on('pageerror', (e) => errors.push((e as Error).message));
      page.on('request', (r) => (r.url().startsWith(view.url) ? undefined : elsewhere.push(r.url())));
      await page.goto(view.url, { waitUntil: 'load' });
      await page.waitForSelector('#live-status');
      expect(await page.$eval('main', (m) => m.textContent)).toContain('Nothing below results holds a run directory');

      // The run starts writing into the watched folder; it is not awaited: the page is watched meanwhile.
      // The provider is slow (every reply waits 200 ms) until the screenshot is taken, so items arrive one by one.
      api.inject({ kind: 'slow', delayMs: 200, times: Infinity });
      const args = ['run', 'locomo', '--limit', String(LIMIT), '--reader', 'gpt-4o-mini', '--concurrency', 'chat=1', '--out', runDir];
      const env = { OPENAI_API_KEY: 'sk-test-VIEW0123456789', OPENAI_BASE_URL: undefined, RAWRAG_RETRY_BASE_MS: '5' };
      const run = rawragInProcess([...args, ...endpointArgs(api).slice(0, 4), '--cache-dir', tempDir(), '--no-progress'], env, {
        cwd: root,
      });

      const row = '#live tr[data-run="results/live"]';
      const done = () => page.$eval(`${row} [data-col=done]`, (td) => Number(td.getAttribute('data-done'))).catch(() => -1);
      const explorer = () => page.$eval('#x-count', (e) => Number(e.getAttribute('data-count'))).catch(() => -1);
      const first = await until('a few items in the live panel', done, (n) => n >= 3);
      expect(await page.$eval(`${row} [data-col=status]`, (td) => td.textContent)).toBe('running');
      expect(await page.$eval(`${row} [data-col=done]`, (td) => td.textContent)).toBe(`${first} / ${LIMIT}`);
      const more = await until('the item count to grow', done, (n) => n > first);
      expect(more).toBeGreaterThan(first);
      // The report below follows: the explorer holds the items written when its page was built.
      const listed = await until('the explorer to list items', explorer, (n) => n >= 1);
      await until('the explorer to grow', explorer, (n) => n > listed);
      const refreshes = () => page.$eval('body', (b) => Number(b.getAttribute('data-refreshes')));
      expect(await refreshes()).toBeGreaterThanOrEqual(1);
      // What the reader chose in the explorer survives a refresh: the filter and the question open.
      await page.select('#x-outcome', 'correct');
      await page.click('#x-tbody tr button');
      const opened = await page.$eval('#x-detail h3', (h) => h.textContent);
      const seen = await refreshes();
      await until('another refresh', refreshes, (n) => n > seen);
      expect(await page.$eval('#x-outcome', (s) => (s as unknown as { value: string }).value)).toBe('correct');
      expect(await page.$eval('#x-detail h3', (h) => h.textContent)).toBe(opened);
      await page.select('#x-outcome', 'all');

      // A screenshot while items arrive: the run still running, not all items in.
      const dir = process.env.RAWRAG_UPDATE_DOCS === '1' ? join(ROOT, 'docs', 'report') : join(tempDir(), 'screenshots');
      mkdirSync(dir, { recursive: true });
      const shot = join(dir, 'view.png');
      await until(
        'the charts of the latest refresh',
        () => page.$eval('body', (b) => b.getAttribute('data-ready')),
        (r) => r === 'true',
      );
      const during = await done();
      expect(during).toBeLessThan(LIMIT);
      await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({ path: shot as `${string}.png` });
      expect(await page.$eval(`${row} [data-col=status]`, (td) => td.textContent)).toBe('running');
      expect(statSync(shot).size).toBeGreaterThan(20_000);
      // Issue 43.4: while it runs, the panel gives the time left and the run's phases (done/total, money) from its manifest.
      const eta = await until(
        'the time left and the phases in the live panel',
        () => page.$eval(`${row} [data-col=eta]`, (td) => td.textContent ?? '').catch(() => ''),
        (t) => /^\d+(s|m \d\ds)/.test(t) && /answer \d+\/40 questions/.test(t),
      );
      expect(eta).toMatch(/judge \d+\/40 questions.* \$\d+\.\d{4}/);
      api.faults = [];

      const finished = await run;
      expect(finished.code, finished.stderr).toBe(0);
      await until(
        'the panel to say complete',
        () => page.$eval(`${row} [data-col=status]`, (td) => td.textContent),
        (s) => s === 'complete',
      );
      expect(await done()).toBe(LIMIT);
      await until('the explorer to list every item', explorer, (n) => n === LIMIT);
      // The panel's figures are the run's: mean score, and the cost by the one definition (src/run-files/cost.ts):
      // paid (the manifest's spent_usd) and the list-price equivalent (every reply priced, every role).
      const items = readFileSync(join(runDir, 'items.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const mean = items.reduce((a, i) => a + i.score, 0) / items.length;
      const cost = runCost(runDir);
      expect(cost.list_usd).toBeGreaterThan(0);
      await until(
        'the panel to show the finished cost',
        () => page.$eval(`${row} [data-col=cost]`, (td) => td.firstChild!.textContent),
        (t) => t === `paid $${cost.paid_usd!.toFixed(4)} (list-price equivalent $${cost.list_usd!.toFixed(4)})`,
      );
      expect(await page.$eval(`${row} [data-col=score]`, (td) => td.textContent)).toBe((100 * mean).toFixed(2));
      // The leaderboard is the finished run's (summary.json's coverage), as rawrag report shows it.
      const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'));
      await until(
        'the leaderboard of the finished run',
        () => page.$eval('#leaderboard [data-col=coverage]', (td) => td.textContent).catch(() => ''),
        (c) => c === (100 * summary.overall.coverage.all).toFixed(2),
      );
      expect(errors).toEqual([]);
      expect(elsewhere).toEqual([]);
      await page.close();
    }, 240_000);
  });

  it('stops on Ctrl-C: exit 130, the server closed', async () => {
    view.child.kill('SIGINT');
    expect(await exited(view.child)).toBe(130);
    expect(view.err()).toContain('rawrag: view stopped (SIGINT); the server is closed, nothing was written');
    await expect(get(`${view.url}api/progress`)).rejects.toThrow(/ECONNREFUSED/);
  });
});
