/**
 * `rawrag judge --rejudge RUN_DIR --judge-prompt strict`: two systems' judged runs re-scored under
 * rawrag's strict prompt (nothing re-read), into a second judge family that `rawrag stats`
 * compares with the first: Cohen's kappa and agreement per system, each judge's leaderboard, the
 * rank change marked. The loopback judge is lenient under the official prompt (vague answers pass)
 * and strict under the strict one. In-process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const env = {
  OPENAI_API_KEY: 'sk-test-REJUDGE0123456789',
  OPENAI_BASE_URL: undefined,
  RAWRAG_MODELS: undefined,
  RAWRAG_RETRY_BASE_MS: '5',
};
const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const picked = ds.questions.slice(0, 20);

/** Official prompt: CORRECT when the answer contains the gold or is vague. Strict prompt: only when it contains the gold. */
function judge(body: any): string {
  const text: string = (body.messages as Array<{ content: string }>).map((m) => m.content).join('\n');
  const m = /Gold answer: (.*)\nGenerated answer: ([\s\S]*?)\n\nFirst, provide/.exec(text);
  if (!m) return "I don't know";
  const hit = m[2]!.toLowerCase().includes(m[1]!.toLowerCase().trim());
  const vague = m[2]!.startsWith('Something to do with');
  const strict = text.includes('Be strict.');
  return JSON.stringify({ label: hit || (vague && !strict) ? 'CORRECT' : 'WRONG' });
}

describe('rawrag judge --rejudge, and judge vs judge in rawrag stats', () => {
  const api = new FakeApi({ chat: judge });
  const dir = tempDir();
  const common = () => ['--judge-base-url', `${api.url}/v1`, '--cache-dir', join(dir, 'cache'), '--no-progress'];
  // precise: right on the first 12, "No idea." otherwise; vague: right on the first 8, vague on the rest.
  const answers = {
    precise: picked.map((q, i) => ({ id: q.id, answer: i < 12 ? q.gold : 'No idea.' })),
    vague: picked.map((q, i) => ({ id: q.id, answer: i < 8 ? q.gold : 'Something to do with it.' })),
  };

  beforeAll(async () => {
    await api.start();
    for (const [name, lines] of Object.entries(answers))
      writeFileSync(join(dir, `${name}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  });
  afterAll(() => api.close());

  it('re-scores the answers under the strict prompt into a new run directory; stats compares the two judges', async () => {
    for (const name of ['precise', 'vague']) {
      const r = await rawragInProcess(
        [
          'judge',
          join(dir, `${name}.jsonl`),
          '--benchmark',
          'locomo',
          '--system',
          name,
          '--setting',
          'locomo/ext',
          '--out',
          join(dir, 'official', name),
          ...common(),
        ],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
    }
    const before = api.count();
    for (const name of ['precise', 'vague']) {
      const r = await rawragInProcess(
        ['judge', '--rejudge', join(dir, 'official', name), '--judge-prompt', 'strict', '--out', join(dir, 'strict', name), ...common()],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`${name} on locomo — 20 questions, 0 errors`));
    }
    // Only judge requests, 3 per answer (identical answers of the two systems share the cache), each with the strict prompt.
    const sent = api.requests.slice(before);
    const usage = ['precise', 'vague'].map(
      (n) => JSON.parse(readFileSync(join(dir, 'strict', n, 'summary.json'), 'utf8')).usage_cumulative.judge,
    );
    // (questions the gold errata correct are also judged under the other gold: conv-26:q2 and q5 here)
    const otherGold = picked.filter((q) => (q.meta?.gold as { other?: unknown } | undefined)?.other).length;
    expect(otherGold).toBe(2);
    expect(usage.reduce((s, u) => s + u.requests + u.cache_hits, 0)).toBe(2 * (20 + otherGold) * 3);
    expect(usage.reduce((s, u) => s + u.requests, 0)).toBe(sent.length);
    expect(sent.every((x) => JSON.stringify(x.body.messages).includes('Be strict.'))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(dir, 'strict', 'vague', 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ system: 'vague', setting: 'locomo/ext', benchmark: 'locomo' });
    expect(manifest.config.judge.prompt.file).toMatch(/locomo-judge-strict\.txt$/);
    const item = JSON.parse(readFileSync(join(dir, 'strict', 'vague', 'items.jsonl'), 'utf8').split('\n')[0]!);
    expect(item.details.judge.protocol).toMatch(/^locomo-mem0-accuracy-v1\+prompt:[0-9a-f]{12}$/);

    const s = await rawragInProcess(['stats', dir, '--out', join(dir, 'stats'), '--no-report', '--resamples', '200'], env);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toContain('## Judge vs judge');
    expect(s.stdout).toMatch(/### locomo \/ locomo\/ext: gpt-4o-mini vs gpt-4o-mini \[prompt:[0-9a-f]{12}\]/);
    const cmp = JSON.parse(readFileSync(join(dir, 'stats', 'stats.json'), 'utf8')).judge_comparison[0];
    const bySystem = Object.fromEntries(cmp.systems.map((x: { system: string }) => [x.system, x]));
    // precise: the two judges agree on every answer; vague: they disagree on the 12 vague ones.
    expect(bySystem.precise).toMatchObject({ n: 20, agreement: 1, accuracy: [0.6, 0.6] });
    expect(bySystem.vague).toMatchObject({ n: 20, agreement: 0.4, accuracy: [1, 0.4] });
    // Official: vague 1st; strict: precise 1st — the ranking changes, marked.
    expect(bySystem.vague.rank).toEqual([1, 2]);
    expect(bySystem.vague.rank_changes).toBe(true);
    expect(s.stdout).toMatch(/\| vague † +\|/);
    expect(cmp.leaderboards[1].rows.map((r: { system: string }) => r.system)).toEqual(['precise', 'vague']);
    // 8 discordant pairs, all one way, under the official judge (p = 0.0078): significant; under the strict one 4 the other way (p = 0.125): not.
    expect(cmp.pairwise[0].by_judge.map((b: { verdict: string }) => b.verdict)).toEqual(['b better', 'no difference']);
    expect(cmp.pairwise[0].changes).toBe(true);
    expect(existsSync(join(dir, 'stats', 'judges.csv'))).toBe(true);
    // Each judge is its own family in the leaderboards.
    expect(s.stdout).toMatch(/judged by different models/);
  });

  it('a later complete stats or report into the same folder leaves no older judges.csv or per-benchmark page beside its outputs (issue 42, item 8)', async () => {
    const out = join(dir, 'stats');
    expect(existsSync(join(out, 'judges.csv'))).toBe(true);
    // An older report's page of another benchmark, as a two-benchmark report left it.
    writeFileSync(join(out, 'report.longmemeval.html'), '<html>older</html>');
    const s = await rawragInProcess(['stats', join(dir, 'official'), '--out', out, '--resamples', '200'], env);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).not.toContain('## Judge vs judge');
    expect(existsSync(join(out, 'judges.csv'))).toBe(false);
    expect(existsSync(join(out, 'report.longmemeval.html'))).toBe(false);
    expect(existsSync(join(out, 'report.html'))).toBe(true);
    writeFileSync(join(dir, 'pages.locomo.html'), '<html>older</html>');
    const r = await rawragInProcess(['report', join(dir, 'official'), '--out', join(dir, 'pages.html')], env);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'pages.locomo.html'))).toBe(false);
    expect(existsSync(join(dir, 'pages.html'))).toBe(true);
  });

  it('refuses a source still being written by a live process; a re-judge of an interrupted source is incomplete, not ranked as whole (issue 42, item 4)', async () => {
    // 16 of the 20 items, as a run stopped (or still going) at that point leaves them.
    const partial = join(dir, 'partial');
    cpSync(join(dir, 'official', 'precise'), partial, { recursive: true });
    const lines = readFileSync(join(partial, 'items.jsonl'), 'utf8').split('\n').filter(Boolean);
    writeFileSync(join(partial, 'items.jsonl'), lines.slice(0, 16).join('\n') + '\n');
    const manifest = JSON.parse(readFileSync(join(partial, 'manifest.json'), 'utf8'));
    writeFileSync(
      join(partial, 'manifest.json'),
      JSON.stringify({ ...manifest, status: 'running', finished_at: null, questions: { ...manifest.questions, done: 16 } }),
    );
    // A real writer holds the run's lock meanwhile.
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { acquireRunLock } = await import(${JSON.stringify(join(ROOT, 'dist', 'run-files', 'lock.js'))}); acquireRunLock(process.argv[1], 'run locomo'); process.stdout.write('locked\\n'); setTimeout(() => {}, 60000);`,
        partial,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((res) => holder.stdout!.once('data', () => res()));
      const refused = await rawragInProcess(
        ['judge', '--rejudge', partial, '--judge-prompt', 'strict', '--out', join(dir, 'rj-running'), ...common()],
        env,
      );
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(
        new RegExp(`partial: the run is still running \\(pid ${holder.pid} on .*status running\\); re-judge it when it has finished`),
      );
      expect(existsSync(join(dir, 'rj-running'))).toBe(false);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((res) => holder.once('close', res));
    }
    // The writer was killed: the run is interrupted at 16 of 20.
    writeFileSync(
      join(partial, 'manifest.json'),
      JSON.stringify({ ...manifest, status: 'interrupted', finished_at: null, questions: { ...manifest.questions, done: 16 } }),
    );
    const out = join(dir, 'rj-partial', 'run');
    const r = await rawragInProcess(['judge', '--rejudge', partial, '--judge-prompt', 'strict', '--out', out, ...common()], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('the source run is interrupted (16 of 20 questions done): this re-judge is incomplete too');
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(m.status).toBe('incomplete');
    expect(m.incomplete_because).toBe('the source run is interrupted (16 of 20 questions done)');
    const runs = await rawragInProcess(['runs', join(dir, 'rj-partial'), '--json'], env);
    expect(JSON.parse(runs.stdout)[0].status).toBe('incomplete');
    const s = await rawragInProcess(
      ['stats', join(dir, 'rj-partial'), '--out', join(dir, 'rj-stats'), '--no-report', '--resamples', '200', '--json'],
      env,
    );
    expect(s.code, s.stderr).toBe(0);
    const row = JSON.parse(s.stdout).families[0].leaderboard[0];
    expect(row).toMatchObject({ system: 'precise', status: 'incomplete', items: 16 });
    expect(readFileSync(join(dir, 'rj-stats', 'leaderboard.md'), 'utf8')).toContain('- precise: ranks an incomplete run (incomplete)');
  });

  it('refuses to re-judge with the very same judge, and a directory that is not a run', async () => {
    const same = await rawragInProcess(['judge', '--rejudge', join(dir, 'official', 'precise'), ...common()], env);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/same judge model, prompt and runs/);
    const none = await rawragInProcess(['judge', '--rejudge', dir, '--judge-model', 'gpt-4o', ...common()], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/not a run directory/);
    const both = await rawragInProcess(
      ['judge', join(dir, 'precise.jsonl'), '--rejudge', join(dir, 'official', 'precise'), ...common()],
      env,
    );
    expect(both.code).toBe(1);
  });
});
