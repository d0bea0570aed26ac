/**
 * LoCoMo's gold errata and its adversarial category against a loopback OpenAI server, in-process:
 * `-B gold=audited` changes the gold of the questions the errata name, the summary prints the
 * ceiling and, for a judged run, the score under both golds (the corrected questions re-judged, not
 * re-read); the gold version is part of the setting. `-B categories=5` asks the adversarial
 * questions with the official reader prompt, scores them by the official rule and by the judge
 * asked whether the answer declines, as a row of their own outside the headline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, defaultChat } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import { loadErrata } from '../../src/benchmarks/locomo/gold.js';

const env = { OPENAI_API_KEY: 'sk-test-GOLD0123456789', OPENAI_BASE_URL: undefined, RAWRAG_MODELS: undefined, RAWRAG_RETRY_BASE_MS: '5' };
const path = join(ROOT, 'datasets/locomo/locomo10.json');

const items = (dir: string) =>
  readFileSync(join(dir, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** Reader: the letter of the option that declines for every other question (by id digit), the trap for the rest. Judge: declines = "not mentioned". */
function chat(body: any): string {
  const text: string = (body.messages as Array<{ content: string }>).map((m) => m.content).join('\n');
  const options = /Select the correct answer: \(a\) (.*) \(b\) (.*)\. \n?Short answer:/.exec(text.replace(/\n/g, ' '));
  if (text.includes('Based on the above context, answer the following question.')) {
    const notA = /\(a\) Not mentioned in the conversation/.test(text);
    const decline = text.length % 2 === 0;
    void options;
    return decline === notA ? 'a' : 'b';
  }
  const adv = /Unsupported answer: (.*)\nGenerated answer: ([\s\S]*?)\n\nFirst, provide/.exec(text);
  if (adv) return JSON.stringify({ label: /not mentioned/i.test(adv[2]!) ? 'CORRECT' : 'WRONG' });
  return defaultChat(body);
}

describe('LoCoMo -B gold=audited and -B categories=5', () => {
  const api = new FakeApi({ chat });
  const dir = tempDir();
  const errata = loadErrata().errata.filter((e) => e.affects_answer);
  const common = () => [
    '--reader-base-url',
    `${api.url}/v1`,
    '--judge-base-url',
    `${api.url}/v1`,
    '--cache-dir',
    join(dir, 'cache'),
    '--no-progress',
  ];

  beforeAll(async () => {
    await api.start();
    // Five corrected questions answered with the corrected answer, three others with their gold.
    const ds = await locomo.load({ path, options: {} });
    const others = ds.questions.filter((q) => !errata.some((e) => e.id === q.id)).slice(0, 3);
    const lines = [
      ...errata.slice(0, 5).map((e) => ({ id: e.id, answer: e.corrected_answer })),
      ...others.map((q) => ({ id: q.id, answer: q.gold })),
    ];
    writeFileSync(join(dir, 'answers.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  });
  afterAll(() => api.close());

  it('-B gold=audited: the corrected gold is judged, the original re-judged beside it; ceiling and both scores printed', async () => {
    const out = join(dir, 'audited');
    const r = await rawragInProcess(
      ['judge', join(dir, 'answers.jsonl'), '--benchmark', 'locomo', '--system', 'mine', '-B', 'gold=audited', '--out', out, ...common()],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const its = items(out);
    const corrected = its.filter((i) => errata.some((e) => e.id === i.id));
    expect(corrected).toHaveLength(5);
    for (const i of corrected) {
      const e = errata.find((x) => x.id === i.id)!;
      expect(i.gold).toBe(e.corrected_answer);
      expect(i.score).toBe(1);
      expect(i.details.other_gold).toMatchObject({ version: 'original', gold: e.original_answer });
    }
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.setting).toBe('locomo/gold=audited/mine');
    const overall = summary.benchmark_summary.gold.rows.find((x: { type: string }) => x.type === 'overall');
    expect(overall).toMatchObject({ n: 8, wrong_original: 5, audited: 1 });
    expect(overall.ceiling).toBeCloseTo(3 / 8, 10);
    // Under the original gold the corrected answers are judged wrong unless they contain the original one.
    const underOriginal = corrected.filter((i) => i.details.other_gold.score === 1).length;
    expect(overall.original).toBeCloseTo((3 + underOriginal) / 8, 10);
    expect(summary.benchmark_summary.gold.rejudged).toBe(5);
    expect(r.stdout).toMatch(
      /Gold: audited \(errata applied\); 5 of 8 questions have a wrong original gold per the audit .*ceiling 37\.50 %/,
    );
    expect(r.stdout).toMatch(/accuracy original gold %/);
  });

  it('-B gold=original (default) keeps the release, re-judges the same questions under the audited gold, another setting', async () => {
    const out = join(dir, 'original');
    const r = await rawragInProcess(
      ['judge', join(dir, 'answers.jsonl'), '--benchmark', 'locomo', '--system', 'mine', '--out', out, ...common()],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.setting).toBe('locomo/mine');
    const overall = summary.benchmark_summary.gold.rows.find((x: { type: string }) => x.type === 'overall');
    const audited = JSON.parse(readFileSync(join(dir, 'audited', 'summary.json'), 'utf8')).benchmark_summary.gold.rows.find(
      (x: { type: string }) => x.type === 'overall',
    );
    // The same two figures from the other side: nothing re-read, the same judge replies (cache).
    expect(overall.original).toBeCloseTo(audited.original, 10);
    expect(overall.audited).toBeCloseTo(audited.audited, 10);
    expect(r.stdout).toMatch(/Gold: original \(the official protocol\)/);
  });

  it('offline run: -B gold=audited prints the ceiling (no judge needed); the 1,540-question figure is in the unit test', async () => {
    const r = await rawragInProcess(
      ['run', 'locomo', '-B', 'categories=2', '-B', 'gold=audited', '--out', join(dir, 'offline'), '--no-progress'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/26 of 321 questions have a wrong original gold per the audit .*ceiling 91\.90 %/);
    expect(JSON.parse(readFileSync(join(dir, 'offline', 'manifest.json'), 'utf8')).setting).toBe(
      'locomo/categories=2/gold=audited/no-reader',
    );
  });

  it('-B categories=5: the official reader prompt and rule, a judge asked whether the answer declines, a row of its own', async () => {
    const out = join(dir, 'adv');
    const before = api.count();
    // Six single-hop and twelve adversarial questions of conv-26.
    const ds = await locomo.load({ path, options: { categories: '4,5' } });
    const ids = [...ds.questions.filter((q) => q.typeId === 4).slice(0, 6), ...ds.questions.filter((q) => q.typeId === 5).slice(0, 12)].map(
      (q) => q.id,
    );
    writeFileSync(join(dir, 'ids.txt'), ids.join('\n') + '\n');
    const r = await rawragInProcess(
      ['run', 'locomo', '-B', 'categories=4,5', '--ids', join(dir, 'ids.txt'), '--reader', 'gpt-4o-mini', '--out', out, ...common()],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const its = items(out);
    const adv = its.filter((i) => i.type === 'adversarial');
    expect(adv).toHaveLength(12);
    const readerReqs = api.requests.slice(before).filter((x) => JSON.stringify(x.body.messages).includes('Select the correct answer'));
    expect(readerReqs).toHaveLength(adv.length);
    const q = readerReqs[0]!.body;
    expect(q.max_tokens ?? q.max_completion_tokens).toBe(32);
    expect(q.messages).toHaveLength(1);
    // Upstream: query_conv + '\n\n' + QA_PROMPT_CAT_5.format(question + " Select the correct answer: (a) {} (b) {}. "), byte for byte.
    expect(q.messages[0].content).toMatch(
      /\n\n\nBased on the above context, answer the following question\.\n\nQuestion: .+ Select the correct answer: \(a\) .+ \(b\) .+\.  Short answer:\n$/,
    );
    // The letter becomes its option's text; the official rule and the declines judge agree here.
    for (const i of adv) {
      expect(['a', 'b']).not.toContain(i.answer);
      const declined = /not mentioned/i.test(i.answer);
      expect(i.metrics.f1).toBe(declined ? 1 : 0);
      expect(i.score).toBe(declined ? 1 : 0);
    }
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.outside_headline).toEqual(['adversarial']);
    expect(summary.overall.n).toBe(its.length - adv.length);
    const a = summary.benchmark_summary.adversarial;
    expect(a.n).toBe(adv.length);
    expect(a.official_rule).toBeCloseTo(adv.filter((i) => /not mentioned/i.test(i.answer)).length / adv.length, 10);
    expect(r.stdout).toMatch(/\| adversarial \(not in overall\) \|/);
    expect(r.stdout).toMatch(/Category 5 \(adversarial\): its own row, not in the headline/);
    // rawrag stats: the adversarial row is shown, the headline is the six single-hop questions.
    const s = await rawragInProcess(['stats', out, '--out', join(dir, 'adv-stats'), '--no-report', '--resamples', '100'], env);
    expect(s.code, s.stderr).toBe(0);
    const fam = JSON.parse(readFileSync(join(dir, 'adv-stats', 'stats.json'), 'utf8')).families[0];
    expect(fam.headline_questions).toBe(6);
    expect(fam.leaderboard[0].columns.overall.n).toBe(6);
    expect(fam.leaderboard[0].by_type.adversarial.n).toBe(12);
  });

  it('the 446 adversarial questions load with their seeded two-option order', async () => {
    const ds = await locomo.load({ path, options: { categories: '5' } });
    expect(ds.questions).toHaveLength(446);
    const again = await locomo.load({ path, options: { categories: '5' } });
    expect(again.questions.map((q) => q.meta?.adversarial)).toEqual(ds.questions.map((q) => q.meta?.adversarial));
    const first = ds.questions.filter((q) => (q.meta?.adversarial as { a: string }).a === 'Not mentioned in the conversation').length;
    expect(first).toBeGreaterThan(150);
    expect(first).toBeLessThan(296);
  });
});
