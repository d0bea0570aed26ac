/**
 * Issue 34, done when: a 200-question run of the paper's LoCoMo row (configs/paper/locomo-gpt-4o-mini.yaml,
 * against the loopback API) shows in `rawrag paper --json` as partial, never as reproduced, and its
 * own summary says so; `rawrag paper --run --dry-run` prints a plan and a total for every item not
 * reproduced; `rawrag paper --run` runs the items' runs into their own directories, resumably, skips
 * what exceeds the cost cap (after subtracting what finished runs spent) and what cannot run here
 * (a service not configured, data not present), and `rawrag paper` then fills in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, endpointArgs, readerQuestion, defaultChat } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { paperItems, type PaperItem } from '../../src/paper/items.js';
import { rawRagSpec } from '../../src/paper/rows.js';
import { headline } from '../../src/paper/figures.js';
import { buildPaperMap } from '../../src/paper/map.js';
import { paperRun } from '../../src/cli/paper-run.js';
import { CostCapExceeded } from '../../src/cli/exit.js';
import { Interrupted } from '../../src/util/interrupt.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import { ROOT } from '../helpers/cli.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const gold = new Map(ds.questions.map((q) => [q.text, q.gold]));
const chat = (body: any) => {
  const q = readerQuestion(body);
  return q !== null ? (gold.get(q) ?? "I don't know") : defaultChat(body);
};
const env = {
  OPENAI_API_KEY: 'sk-test-PAPERRUN0123456789',
  COHERE_API_KEY: 'co-test-PAPERRUN987654321',
  DEEPSEEK_API_KEY: 'ds-test-PAPERRUN55555',
  RAWRAG_RETRY_BASE_MS: '5',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};

describe('rawrag paper against a partial run of a paper row (loopback API)', () => {
  const api = new FakeApi({ chat });
  const root = tempDir('rawrag-paper-run-');
  let run: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    await api.start();
    run = await rawragInProcess(
      [
        'run',
        '--config',
        'configs/paper/locomo-gpt-4o-mini.yaml',
        '--limit',
        '200',
        '--out',
        join(root, 'locomo-200'),
        ...endpointArgs(api),
        '--cache-dir',
        tempDir('rawrag-cache-'),
        '--no-progress',
      ],
      env,
    );
  }, 240_000);
  afterAll(() => api.close());

  it('the run says it is partial beside the paper figure, and rawrag paper --json shows the item as partial', async () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/this run is partial \(200 of 1,540\): not comparable with the paper's figure/);
    const r = await rawragInProcess(['paper', root, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const map = JSON.parse(r.stdout) as ReturnType<typeof buildPaperMap>;
    const row = map.entries.find((e) => e.id === 'main/locomo/gpt-4o-mini/openai')!;
    expect(row.status).toBe('partial');
    expect(row.rawrag).toBeNull();
    expect(row.run).toBeNull();
    expect(row.others).toHaveLength(1);
    expect(row.others[0]!.label).toBe('partial (200 of 1,540)');
    expect(row.others[0]!.rawrag).toBeGreaterThan(0);
    // The evidence-length and judge-variance items read the same row: partial too.
    for (const id of ['evidence/locomo-mean-tokens', 'judge/variance'])
      expect(map.entries.find((e) => e.id === id)!.status, id).toBe('partial');
    expect(map.entries.filter((e) => e.status === 'reproduced')).toEqual([]);
  });

  it('rawrag paper --run --dry-run prints a plan and a total for every item not reproduced, and writes nothing', async () => {
    const r = await rawragInProcess(['paper', root, '--run', '--dry-run', '--no-progress', ...endpointArgs(api)], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/items not reproduced need \d+ runs/);
    expect(r.stdout).toMatch(/^total: \d+ of \d+ runs to run: [\d,]+ calls, [\d,]+ input \+ [\d,]+ output tokens, est\. \$\d/m);
    // Every item that is not reproduced is in the plan (a run's items column) or said why not.
    for (const item of paperItems()) expect(r.stdout, item.id).toContain(item.id);
    // The LoCoMo row's run resumes the 200 done: its estimate is the rest.
    expect(r.stdout).toMatch(
      // (an opponent's own LoCoMo row is paired against it, so it is listed there too)
      /paper\/locomo-gpt-4o-mini-openai +\| main\/locomo\/gpt-4o-mini\/openai, (leaderboard\/[\w-]+\/locomo\/gpt-4o-mini, )*evidence\/locomo-mean-tokens, evidence\/locomo-range, judge\/variance +\| +[\d,]+ \|/,
    );
    expect(r.stdout).toMatch(/skip: a service or input not configured: a running Mem0 server/);
    expect(r.stdout).toMatch(/skip: a service or input not configured: a running MemMachine server/);
    expect(r.stdout).toMatch(/skip: data not present: .*personamem/);
    expect(r.stdout).toMatch(/nothing was sent and no run directory was written/);
    expect(existsSync(join(root, 'paper'))).toBe(false);
  }, 120_000);

  it('--dry-run and --max-cost go with --run; --only names sections', async () => {
    expect((await rawragInProcess(['paper', root, '--dry-run'])).stderr).toMatch(/--dry-run goes with --run/);
    const bad = await rawragInProcess(['paper', root, '--only', 'nonsense']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--only: unknown section 'nonsense' \(sections: main results, /);
    const only = await rawragInProcess(['paper', root, '--only', 'judge variance', '--json']);
    expect(JSON.parse(only.stdout).entries.map((e: { id: string }) => e.id)).toEqual(['judge/variance']);
  });
});

describe('rawrag paper --run: resumable runs under a cost cap (loopback API)', () => {
  const api = new FakeApi({ chat });
  const cache = tempDir('rawrag-cache-');
  beforeAll(() => api.start());
  afterAll(() => api.close());

  /** Items of this test: small LoCoMo runs with the local retriever, one needing a service, one needing absent data. */
  const item = (id: string, limit: number, args: string[] = [], extra: Partial<PaperItem> = {}): PaperItem => ({
    id,
    section: 'main results',
    title: id,
    paper: '—',
    command: `rawrag run locomo --reader gpt-4o-mini --limit ${limit}`,
    steps: [{ command: 'run', args: ['locomo', '--reader', 'gpt-4o-mini', '--limit', String(limit), ...args], out: `paper/${id}` }],
    run: { spec: rawRagSpec('locomo', 'gpt-4o-mini', 'local', { subset: `--limit ${limit}` }), figure: headline('test') },
    ...extra,
  });
  const items: PaperItem[] = [
    item('small', 4),
    item('large', 60),
    item('service', 4, [], {
      steps: [{ command: 'run', args: ['locomo', '--limit', '4'], out: 'paper/service', needs: 'a running test service (--url URL)' }],
    }),
    item('absent', 4, [], { steps: [{ command: 'run', args: ['personamem', '--reader', 'gpt-4o-mini'], out: 'paper/absent' }] }),
    {
      id: 'sweep',
      section: 'ablations',
      title: 'sweep',
      paper: '—',
      command: 'rawrag ablate locomo --reader gpt-4o-mini --limit 4 --k 5',
      steps: [
        {
          command: 'ablate',
          args: ['locomo', '--reader', 'gpt-4o-mini', '--limit', '4', '--k', '5', '--resamples', '200', '--no-png', '--no-report'],
          out: 'paper/sweep',
        },
      ],
      ablation: { spec: rawRagSpec('locomo', 'gpt-4o-mini', 'local', { subset: '--limit 4' }), variants: (n) => n === 'k=5' },
    },
  ];

  it('runs what fits, skips the rest with why, subtracts what was spent; the same command resumes and rawrag paper fills in', async () => {
    const root = tempDir('rawrag-paper-runs-');
    const lines: string[] = [];
    const opts = {
      searched: [root],
      only: null,
      dryRun: false,
      maxCost: 0.01,
      retryErrors: false,
      progress: false,
      transport: { cacheDir: cache, baseUrls: { reader: `${api.url}/v1`, judge: `${api.url}/v1` } },
      items,
    };
    const saved = { ...process.env };
    Object.assign(process.env, { OPENAI_API_KEY: env.OPENAI_API_KEY, RAWRAG_RETRY_BASE_MS: '5' });
    try {
      // The cap held a run back: exit 6, as `rawrag run` refuses what does not fit.
      await expect(
        paperRun(
          opts,
          (s) => lines.push(s),
          () => {},
        ),
      ).rejects.toThrow(CostCapExceeded);
      const text = lines.join('\n');
      expect(text).toMatch(/== run 1 of 5: rawrag run locomo --reader gpt-4o-mini --limit 4 --out /);
      expect(existsSync(join(root, 'paper', 'small', 'manifest.json'))).toBe(true);
      expect(existsSync(join(root, 'paper', 'large'))).toBe(false);
      expect(text).toMatch(/skipped: .*paper\/large \(large\): its estimate \$0\.\d+ exceeds the \$0\.\d+ left of --max-cost \$0\.0100/);
      expect(text).toMatch(/skipped: .*paper\/service \(service\): a service or input not configured: a running test service/);
      expect(text).toMatch(/skipped: .*paper\/absent \(absent\): data not present: /);
      // What the finished run spent (its summary) was subtracted from the cap.
      const summary = JSON.parse(readFileSync(join(root, 'paper', 'small', 'summary.json'), 'utf8'));
      const spent = summary.usage.all.cost_usd_spent as number;
      expect(spent).toBeGreaterThan(0);
      const left = /exceeds the \$(0\.\d+) left/.exec(text)![1]!;
      expect(Number(left)).toBeCloseTo(0.01 - spent, 4);
      let map = buildPaperMap([root], { items });
      expect(map.entries.find((e) => e.id === 'small')!.status).toBe('reproduced');
      // The 4-question run is not the 60-question item's run: partial there.
      expect(map.entries.find((e) => e.id === 'large')!.status).toBe('partial');

      // The same command again: nothing new for `small`; the cap still keeps `large` out.
      const requests = api.count();
      lines.length = 0;
      await expect(
        paperRun(
          opts,
          (s) => lines.push(s),
          () => {},
        ),
      ).rejects.toThrow(CostCapExceeded);
      expect(lines.join('\n')).not.toMatch(/paper\/small/);
      expect(api.count()).toBe(requests);
      // Without a cap `large` runs, and the map fills in.
      lines.length = 0;
      await paperRun(
        { ...opts, maxCost: null },
        (s) => lines.push(s),
        () => {},
      );
      map = buildPaperMap([root], { items });
      expect(existsSync(join(root, 'paper', 'sweep', 'ablation.json'))).toBe(true);
      const sweep = map.entries.find((e) => e.id === 'sweep')!;
      expect(sweep.status).toBe('reproduced');
      expect(sweep.variants.map((v) => [v.variant, v.measure])).toEqual([['k=5', 'accuracy']]);
      expect(sweep.delta).not.toBeNull();
      expect(map.entries.find((e) => e.id === 'large')!.status).toBe('reproduced');
      expect(map.entries.find((e) => e.id === 'large')!.rawrag).toBeGreaterThan(0);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  }, 240_000);
});

describe('issue 41 item 10: paper --run counts what was paid across invocations (loopback API)', () => {
  let calls = 0;
  let abortAt = Infinity;
  const ctl = { current: new AbortController() };
  const api = new FakeApi({
    chat: (body: any) => {
      if (++calls === abortAt) ctl.current.abort('SIGINT');
      return chat(body);
    },
  });
  const cache = tempDir('rawrag-cache-');
  beforeAll(() => api.start());
  afterAll(() => api.close());
  const items: PaperItem[] = [
    {
      id: 'one',
      section: 'main results',
      title: 'one',
      paper: '—',
      command: 'rawrag run locomo --reader gpt-4o-mini --limit 40',
      steps: [{ command: 'run', args: ['locomo', '--reader', 'gpt-4o-mini', '--limit', '40'], out: 'paper/one' }],
      run: { spec: rawRagSpec('locomo', 'gpt-4o-mini', 'local', { subset: '--limit 40' }), figure: headline('test') },
    },
  ];

  it('after an interrupt it reports what the run directory recorded as paid, and --max-cost counts it on the next invocation', async () => {
    const root = tempDir('rawrag-paper-paid-');
    const saved = { ...process.env };
    Object.assign(process.env, { OPENAI_API_KEY: env.OPENAI_API_KEY, RAWRAG_RETRY_BASE_MS: '5' });
    const run = (maxCost: number | null, lines: string[]) =>
      paperRun(
        {
          searched: [root],
          only: null,
          dryRun: false,
          maxCost,
          retryErrors: false,
          progress: false,
          transport: { cacheDir: cache, baseUrls: { reader: `${api.url}/v1`, judge: `${api.url}/v1` } },
          signal: ctl.current.signal,
          items,
        },
        (s) => lines.push(s),
        () => {},
      );
    try {
      // Interrupted after 30 chat requests.
      abortAt = calls + 30;
      const first: string[] = [];
      await expect(run(null, first)).rejects.toThrow(Interrupted);
      const manifest = JSON.parse(readFileSync(join(root, 'paper', 'one', 'manifest.json'), 'utf8'));
      expect(manifest.status).toBe('interrupted');
      const paid = manifest.spent_usd as number;
      expect(paid).toBeGreaterThan(0);
      const usd = (x: number) => `$${x.toFixed(4)}`;
      // It used to print "spent $0.0000" here.
      expect(first.join('\n')).toContain(`paid ${usd(paid)} in this invocation (${usd(paid)} in all by the runs under paper/`);

      // A cap below what was paid already: refused before anything is sent (exit 6).
      abortAt = Infinity;
      ctl.current = new AbortController();
      const before = api.count();
      await expect(run(paid / 2, [])).rejects.toThrow(/have already paid \$0\.\d{4} \(earlier invocations included\); nothing was sent/);
      expect(api.count()).toBe(before);
      // A cap just above it: the rest of the run does not fit in what is left, so it is held back (exit 6), not run to twice the cap.
      const third: string[] = [];
      await expect(run(paid * 1.01, third)).rejects.toThrow(CostCapExceeded);
      expect(third.join('\n')).toMatch(/exceeds the \$0\.\d{4} left of --max-cost/);
      expect(api.count()).toBe(before);
      // Without a cap the same command finishes it; what was paid in all is both invocations'.
      const last: string[] = [];
      await run(null, last);
      const done = JSON.parse(readFileSync(join(root, 'paper', 'one', 'manifest.json'), 'utf8'));
      expect(done.status).toBe('complete');
      expect(last.join('\n')).toContain(`(${usd(done.spent_usd)} in all by the runs under paper/`);
      expect(done.spent_usd).toBeGreaterThan(paid);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  }, 240_000);
});
