/**
 * `rawrag report` as a person would use it: real runs (offline LoCoMo, and two judged runs whose
 * reader and judge are a loopback OpenAI server), an ablation and `rawrag stats`, then the page
 * opened in headless Chromium: it renders with no console error and no network request, the
 * leaderboard shows summary.json's figures, the explorer filters, and each section's screenshot
 * is saved under docs/report/ for the README. Without Chromium the browser tests skip, saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FakeApi, defaultChat, readerQuestion, endpointArgs } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { findChromium, launchChromium, openReport } from '../../scripts/lib/chromium.mjs';

const LIMIT = 40;
const CHROMIUM = findChromium();
if (!CHROMIUM) {
  process.stderr.write(
    "\nSKIPPED: report browser tests — no Chromium found (install Debian's chromium: apt-get install -y chromium, or set RAWRAG_CHROMIUM)\n\n",
  );
}

/** The CLI with the run folder as working directory, so the page's directory labels are short and stable. */
const cli = (args: string[], cwd: string) =>
  rawragInProcess(args, { OPENAI_API_KEY: 'sk-test-REPORT0123456789', OPENAI_BASE_URL: undefined }, { cwd });

/**
 * The reader answers with the gold when the prompt holds a gold evidence turn, except for one
 * question in four (retrieved but not used); the judge (CORRECT when the answer
 * contains the gold) changes its mind on the third run for one question in four it sees, so some
 * items have disagreeing votes.
 */
const judgeCalls = new Map<string, number>();
let readerKnows: (q: string, prompt: string) => string | null = () => null;
function chat(body: any): string {
  const q = readerQuestion(body);
  if (q !== null) return readerKnows(q, JSON.stringify(body.messages)) ?? "I don't know";
  const reply = defaultChat(body);
  if (!reply.includes('label')) return reply;
  const key = JSON.stringify(body.messages);
  const n = (judgeCalls.get(key) ?? 0) + 1;
  judgeCalls.set(key, n);
  const flip = n === 3 && [...key].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 4 === 0;
  return flip ? JSON.stringify({ label: reply.includes('CORRECT') ? 'WRONG' : 'CORRECT' }) : reply;
}

function items(dir: string): Array<Record<string, any>> {
  return readFileSync(join(dir, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('rawrag report', () => {
  const root = tempDir('rawrag-report-e2e-');
  const api = new FakeApi({ chat });
  const cache = tempDir('rawrag-report-cache-');
  const dirs = {
    offline: join(root, 'runs', 'offline'),
    local: join(root, 'runs', 'judged-local'),
    openai: join(root, 'runs', 'judged-openai'),
    ablate: join(root, 'ablate'),
  };
  const out = join(root, 'report.html');
  let report: { code: number; stdout: string; stderr: string };
  let stats: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    const { locomo } = await import('../../src/benchmarks/locomo/index.js');
    const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    const turns = new Map(ds.episodes.flatMap((e) => e.turns.map((t) => [`${e.id} ${t.id}`, t.text] as const)));
    const known = new Map(ds.questions.slice(0, LIMIT).map((q, i) => [q.text, { q, uses: i % 4 !== 3 }]));
    readerKnows = (text, prompt) => {
      const k = known.get(text);
      if (!k || !k.uses) return null;
      const shown = k.q.evidence.some((id) => prompt.includes(JSON.stringify(turns.get(`${k.q.episode} ${id}`) ?? '\u0000').slice(1, -1)));
      return shown ? k.q.gold : null;
    };
    await api.start();
    const provider = ['--reader', 'gpt-4o-mini', ...endpointArgs(api), '--cache-dir', cache, '--no-progress'];
    const runs = [
      await cli(['run', 'locomo', '--limit', String(LIMIT), '--out', dirs.offline, '--no-progress'], root),
      await cli(['run', 'locomo', '--limit', String(LIMIT), '--out', dirs.local, ...provider], root),
    ];
    runs.push(await cli(['run', 'locomo', '--limit', String(LIMIT), '--retriever', 'openai', '--out', dirs.openai, ...provider], root));
    runs.push(
      await cli(
        ['ablate', '--k', '1,5,15,60', '--limit', String(LIMIT), '--out', dirs.ablate, '--no-progress', '--resamples', '2000'],
        root,
      ),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    // An external system in the minimal format (id, score, judge votes, coverage) beside RAW-RAG.
    const ext = join(root, 'runs', 'mem0');
    mkdirSync(ext, { recursive: true });
    writeFileSync(join(ext, 'manifest.json'), JSON.stringify({ system: 'Mem0', benchmark: 'locomo', setting: 'locomo/gpt-4o-mini' }));
    writeFileSync(
      join(ext, 'items.jsonl'),
      items(dirs.local)
        .map((i, n) => {
          const votes = [n % 5 ? 1 : 0, n % 5 ? 1 : 0, n % 2];
          return JSON.stringify({ id: i.id, score: votes.reduce((a, b) => a + b) / 3, judge: votes, coverage: n % 3 !== 0 });
        })
        .join('\n') + '\n',
    );
    stats = await cli(['stats', 'runs', 'ablate', '--out', 'stats', '--resamples', '2000'], root);
    report = await cli(['report', 'runs', 'ablate', 'stats', '--out', out], root);
  }, 300_000);
  afterAll(() => api.close());

  it('writes one self-contained file: everything inline, a policy forbidding network requests', async () => {
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/^report: .*report\.html \(\d+ KiB; 8 runs, 2 benchmark-settings, 1 ablation\)/);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;`);
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link[^>]+href=/i);
    expect(html).not.toMatch(/sourceMappingURL=/);
    for (const lib of ['vega', 'vega-lite', 'vega-embed']) expect(html).toContain(`<script data-lib="${lib}">`);
  });

  it('rawrag stats and rawrag ablate write report.html beside their outputs; --no-report does not', async () => {
    expect(stats.code, stats.stderr).toBe(0);
    expect(existsSync(join(root, 'stats', 'report.html'))).toBe(true);
    expect(readFileSync(out, 'utf8')).toContain('Statistics: stats/stats.json');
    expect(existsSync(join(dirs.ablate, 'report.html'))).toBe(true);
    // The ablation plot's PNG is rendered in-process (@resvg/resvg-js), no external tool needed.
    expect(readFileSync(join(dirs.ablate, 'ablation.png')).subarray(1, 4).toString()).toBe('PNG');
    const noReport = join(tempDir(), 'stats');
    const r = await rawragInProcess(['stats', dirs.offline, '--out', noReport, '--resamples', '1000', '--no-report']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(noReport, 'stats.json'))).toBe(true);
    expect(existsSync(join(noReport, 'report.html'))).toBe(false);
  });

  it('reports bad input with exit code 2 and writes nothing', async () => {
    const empty = tempDir();
    const target = join(empty, 'r.html');
    const r = await rawragInProcess(['report', empty, '--out', target]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing to report');
    expect(existsSync(target)).toBe(false);
    const missing = await rawragInProcess(['report', join(empty, 'nope'), '--out', target]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file or directory');
  });

  it('without the benchmark data the report still works, says why the evidence text is missing', async () => {
    const moved = join(tempDir(), 'moved-run');
    mkdirSync(moved);
    const m = JSON.parse(readFileSync(join(dirs.offline, 'manifest.json'), 'utf8'));
    m.config.data = join(moved, 'no-such-data.json');
    writeFileSync(join(moved, 'manifest.json'), JSON.stringify(m));
    writeFileSync(join(moved, 'items.jsonl'), readFileSync(join(dirs.offline, 'items.jsonl')));
    const target = join(moved, 'r.html');
    const r = await rawragInProcess(['report', moved, '--out', target]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^note: .*moved-run: evidence text not shown \(benchmark data not readable here: .*no-such-data\.json: data file not found\)/,
    );
    const html = readFileSync(target, 'utf8');
    expect(html).toContain('"evidence_text":false');
  });

  it("states every cost the run printed: the --retriever openai run's embed and rerank beside reader and judge", async () => {
    const html = readFileSync(out, 'utf8');
    const summary = JSON.parse(readFileSync(join(dirs.openai, 'summary.json'), 'utf8'));
    const label = relative(root, dirs.openai);
    const row = (role: string) => new RegExp(`<tr data-run="${label}" data-role="${role}"[^>]*>.*?</tr>`).exec(html)?.[0] ?? '';
    expect(html, 'the cost table').toContain(`data-run="${label}" data-role="rerank"`);
    for (const role of ['embed', 'rerank']) {
      expect(summary.usage[role].cost_usd_total, role).toBeGreaterThan(0);
      expect(row(role)).toContain(`$${summary.usage[role].cost_usd_total.toFixed(4)}`);
    }
    expect(row('reader')).toContain(`$${summary.usage_cumulative.reader.cost_usd.toFixed(4)}`);
    const total =
      ['embed', 'rerank'].reduce((a, r) => a + summary.usage[r].cost_usd_total, 0) +
      summary.usage_cumulative.reader.cost_usd +
      summary.usage_cumulative.judge.cost_usd;
    expect(row('total')).toContain(`$${total.toFixed(4)}`);
    // Wall time and summed work, each labelled, from the manifest.
    const m = JSON.parse(readFileSync(join(dirs.openai, 'manifest.json'), 'utf8'));
    expect(m.timings.wall_ms).toBeGreaterThan(0);
    expect(
      new RegExp(
        `<tr data-run="${label}">.*?<td data-col="wall">${(m.timings.wall_ms / 1000).toFixed(2)}</td><td data-col="work">${(m.timings.work_ms / 1000).toFixed(2)}</td>`,
      ).test(html),
    ).toBe(true);
  });

  describe.skipIf(!CHROMIUM)('in headless Chromium', () => {
    let chromium: Awaited<ReturnType<typeof launchChromium>>;
    let opened: Awaited<ReturnType<typeof openReport>>;
    beforeAll(async () => {
      chromium = await launchChromium(CHROMIUM!);
      opened = await openReport(chromium.browser, out);
    }, 120_000);
    afterAll(async () => chromium?.close());

    it('renders every chart with no console error or warning, no page error and no network request', async () => {
      expect(opened.pageErrors).toEqual([]);
      expect(opened.consoleMessages.filter((m) => m.type === 'error' || m.type === 'warn')).toEqual([]);
      expect(opened.requests).toEqual([]);
      const charts = await opened.page.$$eval('[data-chart]', (els) =>
        els.map((e) => [e.getAttribute('data-chart'), e.getAttribute('data-rendered'), e.querySelectorAll('svg').length]),
      );
      expect(charts.length).toBeGreaterThanOrEqual(9);
      for (const [id, rendered, svgs] of charts) expect([id, rendered, svgs]).toEqual([id, 'true', 1]);
    });

    it('cuts off no chart label (long system names on several lines) and tells two runs of one system apart', async () => {
      const texts = await opened.page.$$eval('[data-chart] svg text', (els) => els.map((e) => e.textContent ?? ''));
      expect(texts.length).toBeGreaterThan(50);
      expect(texts.filter((t) => t.endsWith('…'))).toEqual([]);
      // The OpenAI-retriever run's system name, longer than a line, is on the leaderboard's axis whole.
      const axis = await opened.page.$$eval('[data-chart^="lb-"] svg g[aria-roledescription="axis"] text', (els) =>
        els.map((e) => [...e.querySelectorAll('tspan')].map((t) => t.textContent).join('') || e.textContent),
      );
      expect(axis.map((a) => a!.replace(/\s+/g, ''))).toContain('RAW-RAG/openai:text-embedding-3-small+cohere:rerank-v3.5');
      // RAW-RAG/local ran with a reader and without one (and as the ablation's reference): its setting, then its folder, tell them apart.
      const bars = await opened.page.$$eval('[data-chart="time"] svg g[aria-roledescription="axis"] text', (els) =>
        els.map((e) => [...e.querySelectorAll('tspan')].map((t) => t.textContent).join('') || e.textContent),
      );
      // (Lines are joined without the space a line ends on.)
      const oneLine = (s: string) => s.replace(/\s+/g, '');
      expect(bars.map(oneLine)).toContain(oneLine('RAW-RAG/local · locomo/gpt-4o-mini'));
      expect(bars.map(oneLine)).toContain(oneLine('RAW-RAG/local · locomo/no-reader · runs/offline'));
      // Tick labels (whole or decimal seconds, by the runs' wall times) and the axis title aside.
      const names = bars.filter((b) => !/^\d+(\.\d+)?$|^seconds$/.test(b));
      expect(names.length).toBe(7); // every run but the external Mem0, which records no time
      expect(new Set(names).size).toBe(names.length);
      const options = await opened.page.$$eval('#x-a option', (os) => os.map((o) => o.textContent));
      expect(options).toContain('RAW-RAG/local · locomo/gpt-4o-mini \u2014 runs/judged-local');
      expect(new Set(options).size).toBe(options.length);
    });

    it("leaderboard figures equal each run's summary.json; the paper row meets the OpenAI-retriever run, which is partial", async () => {
      // The offline run and the ablation's reference share a config hash: stats keeps one of the two
      // (saying so), so the offline figures are checked on whichever row represents them.
      const offline = JSON.parse(readFileSync(join(dirs.offline, 'summary.json'), 'utf8'));
      const localCoverage = await opened.page.$$eval('#leaderboard tr[data-system="RAW-RAG/local"] [data-col=coverage]', (tds) =>
        tds.map((td) => td.textContent),
      );
      expect(localCoverage).toContain((100 * offline.overall.coverage.all).toFixed(2));
      for (const dir of [dirs.local, dirs.openai]) {
        const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
        const sel = `#leaderboard tr[data-dir="${relative(root, dir)}"]`;
        const cells = await opened.page.$eval(sel, (tr) => ({
          overall: tr.querySelector('[data-col=overall]')!.textContent,
          coverage: tr.querySelector('[data-col=coverage]')!.textContent,
          paper: tr.querySelector('[data-col=paper]')?.textContent ?? null,
        }));
        expect(cells.coverage).toBe((100 * s.overall.coverage.all).toFixed(2));
        expect(cells.overall).toBe(s.overall.accuracy === null ? '—' : (100 * s.overall.accuracy).toFixed(2));
        // 40 of 1,540 questions: the paper's figure is not set beside it as a comparable one (src/core/comparability.ts).
        if (dir === dirs.openai) expect(cells.paper).toMatch(/^not comparable: partial \(\d+ of 1,540\)$/);
        if (dir === dirs.local) expect(cells.paper).toBe('—');
      }
      const kappa = await opened.page.$$eval('#leaderboard table.agreement tbody tr', (trs) => trs.length);
      expect(kappa).toBe(3);
      const local = JSON.parse(readFileSync(join(dirs.local, 'summary.json'), 'utf8'));
      expect(local.overall.judge_runs.sd).toBeGreaterThan(0);
      const sd = await opened.page.$eval(
        '#leaderboard table.agreement tr[data-system="RAW-RAG/local"] [data-col=judge-sd]',
        (td) => td.textContent,
      );
      expect(sd).toBe((100 * local.overall.judge_runs.sd).toFixed(2));
      // The external system: its Holm mark against the RAW-RAG baseline comes from stats.json.
      const st = JSON.parse(readFileSync(join(root, 'stats', 'stats.json'), 'utf8'));
      const fam = st.families.find((f: any) => f.setting === 'locomo/gpt-4o-mini');
      const pair = fam.pairwise.find((p: any) => p.system_a === 'Mem0' && p.system_b === fam.baseline);
      const sig = await opened.page.$eval('#leaderboard tr[data-system="Mem0"] [data-col=sig]', (td) => td.textContent);
      expect(sig).toContain(`p=${pair.p_holm < 1e-4 ? pair.p_holm.toExponential(1) : pair.p_holm.toFixed(4)}`);
      expect(sig).toContain(pair.p_holm < 0.05 ? (pair.delta > 0 ? '▲ better' : '▼ worse') : 'n.s.');
    });

    it('explorer: filters by outcome, disagreeing judges and coverage miss; shows gold turns and two systems side by side', async () => {
      const page = opened.page;
      const local = items(dirs.local);
      const openaiLabel = relative(root, dirs.openai);
      const localIndex = await page.$$eval(
        '#x-a option',
        (os, label) => os.find((o) => o.textContent!.endsWith(label))!.getAttribute('value'),
        relative(root, dirs.local),
      );
      await page.select('#x-a', localIndex!);
      const count = async () => Number(await page.$eval('#x-count', (e) => e.getAttribute('data-count')));
      expect(await count()).toBe(LIMIT);
      const expectCount = async (outcome: string, n: number) => {
        await page.select('#x-outcome', outcome);
        expect(await count(), outcome).toBe(n);
        const rows = await page.$$eval('#x-tbody tr', (trs) => trs.length);
        expect(rows).toBe(Math.min(n, 25));
      };
      const incorrect = local.filter((i) => i.score !== null && i.score < 0.5).length;
      const disagree = local.filter((i) => new Set(i.details.judge.votes).size > 1).length;
      const miss = local.filter((i) => i.coverage && !i.coverage.all).length;
      expect(incorrect).toBeGreaterThan(0);
      expect(disagree).toBeGreaterThan(0);
      expect(miss).toBeGreaterThan(0);
      await expectCount('incorrect', incorrect);
      await expectCount('correct', local.filter((i) => i.score !== null && i.score >= 0.5).length);
      await expectCount('disagree', disagree);
      await expectCount('covmiss', miss);

      // A coverage miss: its missed gold turns are listed, with their text.
      const first = await page.$eval('#x-tbody tr button', (b) => b.textContent);
      await page.click('#x-tbody tr button');
      const item = local.find((i) => i.id === first)!;
      const missed = item.gold_evidence.filter((t: string) => !item.evidence_turns.includes(t));
      const detail = await page.$eval('#x-detail', (d) => ({
        missed: [...d.querySelectorAll('ul.missed li')].map((li) => li.getAttribute('data-turn')),
        goldShown: [...d.querySelectorAll('ol.evidence li.gold')].map((li) => li.getAttribute('data-turn')),
        shown: d.querySelectorAll('ol.evidence li').length,
        votes: d.querySelectorAll('ol.votes > li').length,
        raw: d.querySelectorAll('ol.votes details pre').length,
        text: d.textContent,
      }));
      expect(detail.missed).toEqual(missed);
      expect(detail.goldShown).toEqual(item.evidence_turns.filter((t: string) => item.gold_evidence.includes(t)));
      expect(detail.shown).toBe(item.evidence_turns.length);
      expect(detail.votes).toBe(3);
      expect(detail.raw).toBe(3);
      expect(detail.text).toContain(item.question);
      expect(detail.text).toContain(item.answer);
      expect(detail.text).not.toContain('(text not available)');

      // Two systems side by side; the A-right/B-wrong filter.
      const bIndex = await page.$$eval(
        '#x-b option',
        (os, label) => os.find((o) => o.textContent!.endsWith(label))!.getAttribute('value'),
        openaiLabel,
      );
      await page.select('#x-b', bIndex!);
      const other = new Map(items(dirs.openai).map((i) => [i.id, i]));
      const aOnly = local.filter((i) => i.score >= 0.5 && other.get(i.id)!.score < 0.5).length;
      await expectCount('a-only', aOnly);
      await page.select('#x-outcome', 'all');
      expect(await page.$$eval('#x-detail .system-col', (c) => c.length)).toBe(2);

      // Type filter and paging.
      const type = local[0]!.type as string;
      await page.select('#x-type', type);
      expect(await count()).toBe(local.filter((i) => i.type === type).length);
      await page.select('#x-type', '');
      await page.click('#x-next');
      expect(await page.$eval('#x-count', (e) => e.textContent)).toContain('page 2 of 2');
      expect(await page.$$eval('#x-tbody tr', (trs) => trs.length)).toBe(LIMIT - 25);
      await page.click('#x-prev');
    });

    it('saves a screenshot of each section at 1280x800 (into docs/report/ with RAWRAG_UPDATE_DOCS=1)', async () => {
      // The README's screenshots are rewritten only on request (npm run docs:screenshots), so a test
      // run leaves the working tree as it was.
      const dir = process.env.RAWRAG_UPDATE_DOCS === '1' ? join(ROOT, 'docs', 'report') : join(tempDir(), 'screenshots');
      mkdirSync(dir, { recursive: true });
      const page = opened.page;
      // The explorer shows a coverage miss of the local run beside the OpenAI-retriever run.
      await page.select('#x-outcome', 'covmiss');
      await page.click('#x-tbody tr button');
      for (const id of ['leaderboard', 'coverage', 'ablations', 'explorer', 'cost']) {
        const file = join(dir, `${id}.png`);
        const section = (await page.$(`#${id}`))!;
        await section.screenshot({ path: file as `${string}.png` });
        expect(statSync(file).size, file).toBeGreaterThan(10_000);
      }
    });

    it('fits 1280x800 and a 1024-pixel laptop screen without sideways scrolling', async () => {
      for (const viewport of [
        { width: 1280, height: 800 },
        { width: 1024, height: 768 },
      ]) {
        await opened.page.setViewport(viewport);
        const width = await opened.page.$eval('html', (e) => e.scrollWidth);
        expect(width, `${viewport.width}x${viewport.height}`).toBe(viewport.width);
      }
      await opened.page.setViewport({ width: 1280, height: 800 });
    });

    it('prints to PDF (print stylesheet): nothing wider than an A4 page', async () => {
      await opened.page.setViewport({ width: 794, height: 1123 });
      await opened.page.emulateMediaType('print');
      expect(await opened.page.$eval('html', (e) => e.scrollWidth)).toBe(794);
      expect(await opened.page.$eval('#x-prev', (e) => (e as unknown as { checkVisibility(): boolean }).checkVisibility())).toBe(false);
      const pdf = await opened.page.pdf({ format: 'A4', printBackground: true });
      expect(Buffer.from(pdf).subarray(0, 5).toString()).toBe('%PDF-');
      expect(pdf.length).toBeGreaterThan(20_000);
      await opened.page.emulateMediaType('screen');
      await opened.page.setViewport({ width: 1280, height: 800 });
    });

    it('under a small size cap, a trimmed item says its detail is left out and how to see it', async () => {
      const capped = join(root, 'capped.html');
      const r = await cli(['report', 'runs', '--out', capped, '--explorer-mb', '0.05'], root);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/evidence and judge replies embedded for \d+ of \d+ items \(size cap\)/);
      const page = await openReport(chromium.browser, capped);
      try {
        expect(page.pageErrors).toEqual([]);
        expect(await page.page.$eval('#explorer-cap', (e) => e.textContent)).toMatch(/embedded for \d+ of \d+ items/);
        await page.page.click('#x-next');
        await page.page.click('#x-tbody tr:last-child button');
        const note = await page.page.$eval('#x-detail .trimmed', (e) => e.textContent);
        expect(note).toMatch(
          /^Evidence and judge replies of this item are not in the page: .* The full record: rawrag show runs\/\S+ conv-\S+$/,
        );
        // The outcome is still there.
        expect(await page.page.$eval('#x-detail .outcome strong', (e) => e.textContent)).toMatch(/correct|incorrect|not judged/);
      } finally {
        await page.page.close();
      }
    });
  });
});
