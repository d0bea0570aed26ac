/**
 * Score credibility (issue 32, part B), against a loopback judge, in-process:
 * - external answers are judged as written: LoCoMo's category-5 option letters are rawrag's own
 *   reader's, so another system's "Max" stays "Max";
 * - a category-5 item whose judge fails keeps its official-rule score (it needs only the answer);
 * - `judge --rejudge` honours `-B gold` (another setting, both golds printed) and `-B categories`
 *   (narrowing only), re-judges an imported run, warns on a torn last line, and never lets a
 *   manifest claim a judge that did not judge its items (`--out` the source run, `--force-resume`
 *   across a judge change);
 * - `import -B gold=audited` refuses votes judged against the original gold and never shares a
 *   setting with an original-gold import.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import { loadErrata } from '../../src/benchmarks/locomo/gold.js';
import { NOT_MENTIONED } from '../../src/benchmarks/locomo/adversarial.js';

const env = { OPENAI_API_KEY: 'sk-test-CRED0123456789', OPENAI_BASE_URL: undefined, RAWRAG_MODELS: undefined, RAWRAG_RETRY_BASE_MS: '1' };
const path = join(ROOT, 'datasets/locomo/locomo10.json');
const all = await locomo.load({ path, options: { categories: '1,2,3,4,5' } });
const corrected = loadErrata().errata.filter((e) => e.affects_answer && e.id.startsWith('conv-26:'));
/** The category-5 question whose judge always answers garbage. */
const unjudgeable = all.questions.filter((q) => q.typeId === 5)[1]!;

function judge(body: any): string {
  const text: string = (body.messages as Array<{ content: string }>).map((m) => m.content).join('\n');
  const adv = /Question: (.*)\nUnsupported answer: (.*)\nGenerated answer: ([\s\S]*?)\n\nFirst, provide/.exec(text);
  if (adv) {
    if (adv[1] === unjudgeable.text) return 'I cannot say.';
    return JSON.stringify({ label: /not mentioned/i.test(adv[3]!) ? 'CORRECT' : 'WRONG' });
  }
  const m = /Gold answer: (.*)\nGenerated answer: ([\s\S]*?)\n\nFirst, provide/.exec(text);
  if (!m) return "I don't know";
  return JSON.stringify({ label: m[2]!.toLowerCase().includes(m[1]!.toLowerCase().trim()) ? 'CORRECT' : 'WRONG' });
}

const items = (dir: string) =>
  readFileSync(join(dir, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('score credibility', () => {
  const api = new FakeApi({ chat: judge });
  const dir = tempDir('rawrag-cred-');
  const common = () => ['--judge-base-url', `${api.url}/v1`, '--cache-dir', join(dir, 'cache'), '--no-progress'];
  // Ten answers of categories 1-4 of conv-26: the corrected questions answered with their corrected gold, the others with their gold.
  const headline = all.questions.filter((q) => q.typeId !== 5 && q.episode === 'conv-26');
  const others = headline.filter((q) => !corrected.some((e) => e.id === q.id)).slice(0, 10 - Math.min(5, corrected.length));
  const answered = [
    ...corrected.slice(0, 5).map((e) => ({ id: e.id, answer: e.corrected_answer })),
    ...others.map((q) => ({ id: q.id, answer: q.gold })),
  ];
  const official = join(dir, 'official');

  beforeAll(async () => {
    await api.start();
    writeFileSync(join(dir, 'answers.jsonl'), answered.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await rawragInProcess(
      ['judge', join(dir, 'answers.jsonl'), '--benchmark', 'locomo', '--system', 'mine', '--out', official, ...common()],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(() => api.close());

  it("external answers are judged as written: category 5's option letters are rawrag's own reader's", async () => {
    const [q1, , q3] = all.questions.filter((q) => q.typeId === 5);
    const trap = `${q1!.id}`;
    const file = join(dir, 'adv.jsonl');
    writeFileSync(
      file,
      [
        { id: trap, answer: 'Max' },
        { id: q3!.id, answer: ' b ' },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const out = join(dir, 'adv');
    const r = await rawragInProcess(['judge', file, '--benchmark', 'locomo', '-B', 'categories=5', '--out', out, ...common()], env);
    expect(r.code, r.stderr).toBe(0);
    const byId = Object.fromEntries(items(out).map((i) => [i.id, i]));
    expect(byId[trap].answer).toBe('Max');
    expect(byId[q3!.id].answer).toBe('b');
    // Neither is one of the two option texts, so neither declines: the official rule and the judge give 0.
    for (const id of [trap, q3!.id]) {
      expect(byId[id].metrics.f1).toBe(0);
      expect(byId[id].score).toBe(0);
    }
    expect(api.requests.some((x) => JSON.stringify(x.body.messages).includes('Generated answer: Max\\n'))).toBe(true);
    expect(JSON.stringify(api.requests.map((x) => x.body.messages))).not.toContain(`Generated answer: ${NOT_MENTIONED}`);
  });

  it('a category-5 item whose judge fails keeps its official-rule score', async () => {
    const adv = all.questions.filter((q) => q.typeId === 5).slice(0, 3);
    expect(adv.map((q) => q.id)).toContain(unjudgeable.id);
    const file = join(dir, 'declines.jsonl');
    writeFileSync(
      file,
      adv.map((q) => JSON.stringify({ id: q.id, answer: 'That is not mentioned in the conversation.' })).join('\n') + '\n',
    );
    const out = join(dir, 'declines');
    const r = await rawragInProcess(
      [
        'judge',
        file,
        '--benchmark',
        'locomo',
        '-B',
        'categories=5',
        '--out',
        out,
        '--max-error-rate',
        '1',
        '--max-retries',
        '0',
        ...common(),
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const failed = items(out).find((i) => i.id === unjudgeable.id);
    expect(failed.error.stage).toBe('judge');
    expect(failed.metrics.f1).toBe(1);
    const a = json(join(out, 'summary.json')).benchmark_summary.adversarial;
    expect(a).toMatchObject({ n: 3, failed: 1, failed_at_judge: 1, official_rule: 1 });
    expect(a.judge_declines).toBeCloseTo(2 / 3, 10);
    expect(r.stdout).toMatch(/1 failed at judging \(count 0 for the judge; the official rule scores their answers\)/);
    expect(r.stdout).toMatch(/\| adversarial \| +5 \| +3 \| +100\.00 \| +66\.67 \|/);
  });

  it('--rejudge -B gold=audited: the corrected gold judged, another setting, both golds printed', async () => {
    const out = join(dir, 'audited');
    const r = await rawragInProcess(['judge', '--rejudge', official, '-B', 'gold=audited', '--out', out, ...common()], env);
    expect(r.code, r.stderr).toBe(0);
    const m = json(join(out, 'manifest.json'));
    expect(m.setting).toBe('locomo/gold=audited/mine');
    expect(m.config.options.gold).toBe('audited');
    const byId = Object.fromEntries(items(out).map((i) => [i.id, i]));
    for (const e of corrected.slice(0, 5)) {
      expect(byId[e.id].gold).toBe(e.corrected_answer);
      expect(byId[e.id].score).toBe(1);
      expect(byId[e.id].details.other_gold).toMatchObject({ version: 'original', gold: e.original_answer });
    }
    expect(r.stdout).toMatch(/Gold: audited \(errata applied\); 5 of 10 questions have a wrong original gold/);
    expect(r.stdout).toMatch(/accuracy original gold % \| accuracy audited gold %/);
    const overall = json(join(out, 'summary.json')).benchmark_summary.gold.rows.find((x: { type: string }) => x.type === 'overall');
    expect(overall.audited).toBe(1);
    // The source run judged the same answers against the original gold: the same two figures from its side.
    const src = json(join(official, 'summary.json')).benchmark_summary.gold.rows.find((x: { type: string }) => x.type === 'overall');
    expect(overall.original).toBeCloseTo(src.original, 10);
    // Same judge and gold again: refused, as before.
    const same = await rawragInProcess(['judge', '--rejudge', out, '--out', join(dir, 'again'), ...common()], env);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/same judge model, prompt and runs, and the same benchmark options/);
  });

  it('--rejudge -B categories=narrows the questions (the rest left out and counted); widening is refused', async () => {
    const out = join(dir, 'temporal');
    const temporal = answered.filter((a) => all.questions.find((q) => q.id === a.id)!.typeId === 2).length;
    expect(temporal).toBeGreaterThan(0);
    expect(temporal).toBeLessThan(answered.length);
    const r = await rawragInProcess(
      ['judge', '--rejudge', official, '-B', 'categories=2', '--judge-prompt', 'strict', '--out', out, ...common()],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(items(out)).toHaveLength(temporal);
    expect(items(out).every((i) => i.type_id === 2)).toBe(true);
    expect(json(join(out, 'manifest.json')).setting).toBe('locomo/categories=2/mine');
    expect(r.stderr).toContain(
      `note: ${answered.length - temporal} of the run's ${answered.length} answers are outside -B categories=2: left out`,
    );
    const wide = await rawragInProcess(
      ['judge', '--rejudge', official, '-B', 'categories=1,2,3,4,5', '-B', 'gold=audited', '--out', join(dir, 'wide'), ...common()],
      env,
    );
    expect(wide.code).toBe(2);
    expect(wide.stderr).toMatch(
      /with -B categories=1,2,3,4,5 -B gold=audited the data selects 446 question\(s\) the run never asked \(first: conv-26:q\d+\).*it can only narrow the run's questions/,
    );
  });

  it('a manifest never claims a judge that did not judge its items: --out the source run, --force-resume across judges', async () => {
    const before = readFileSync(join(official, 'manifest.json'), 'utf8');
    const self = await rawragInProcess(
      ['judge', '--rejudge', official, '--judge-model', 'gpt-4o', '--out', official, '--force-resume', ...common()],
      env,
    );
    expect(self.code).toBe(1);
    expect(self.stderr).toMatch(/--out names the run being re-judged/);
    expect(readFileSync(join(official, 'manifest.json'), 'utf8')).toBe(before);

    const strict = join(dir, 'strict');
    const s = await rawragInProcess(['judge', '--rejudge', official, '--judge-prompt', 'strict', '--out', strict, ...common()], env);
    expect(s.code, s.stderr).toBe(0);
    const strictManifest = readFileSync(join(strict, 'manifest.json'), 'utf8');
    const forced = await rawragInProcess(
      ['judge', '--rejudge', official, '--judge-model', 'gpt-4o', '--out', strict, '--force-resume', ...common()],
      env,
    );
    expect(forced.code).toBe(2);
    expect(forced.stderr).toMatch(
      /--force-resume cannot keep these items: their scores would be credited to a judge or gold that did not score them/,
    );
    expect(forced.stderr).toMatch(/judge\.model gpt-4o-mini \(now gpt-4o\)/);
    expect(readFileSync(join(strict, 'manifest.json'), 'utf8')).toBe(strictManifest);

    // stats: the run and its re-judged copy are two judges of one system, neither dropped as a duplicate.
    const st = await rawragInProcess(
      ['stats', official, strict, '--out', join(dir, 'stats-judges'), '--no-report', '--resamples', '100'],
      env,
    );
    expect(st.code, st.stderr).toBe(0);
    expect(st.stdout).not.toMatch(/duplicate/);
    expect(st.stdout).toContain('## Judge vs judge');
  });

  it('--rejudge warns about a torn last line of items.jsonl instead of dropping it in silence', async () => {
    const torn = join(dir, 'torn');
    cpSync(official, torn, { recursive: true });
    const lines = readFileSync(join(torn, 'items.jsonl'), 'utf8').trim().split('\n');
    writeFileSync(join(torn, 'items.jsonl'), lines.slice(0, -1).join('\n') + '\n');
    appendFileSync(join(torn, 'items.jsonl'), lines[lines.length - 1]!.slice(0, 40));
    const r = await rawragInProcess(
      ['judge', '--rejudge', torn, '--judge-prompt', 'strict', '--out', join(dir, 'torn-strict'), ...common()],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `note: .*items\\.jsonl: last line ${lines.length} is incomplete \\(no newline, not valid JSON\\) and was skipped: that item is not re-judged`,
      ),
    );
    expect(items(join(dir, 'torn-strict'))).toHaveLength(lines.length - 1);
  });

  describe('imports', () => {
    /** JSON lines of the answered questions with judge votes (as another harness judged them against the release's gold). */
    const jsonl = (rows: typeof answered, votes: boolean) =>
      rows
        .map((a) => {
          const q = all.questions.find((x) => x.id === a.id)!;
          const index = all.episodes.findIndex((e) => e.id === q.episode);
          return JSON.stringify({ conversation: index, question: q.text, answer: a.answer, ...(votes ? { votes: [1, 0, 1] } : {}) });
        })
        .join('\n') + '\n';

    it('re-judging an imported run is not refused as the same judge (the import recorded none of rawrag)', async () => {
      writeFileSync(join(dir, 'voted.jsonl'), jsonl(answered, true));
      const imp = join(dir, 'imported');
      const i = await rawragInProcess(
        ['import', 'jsonl', join(dir, 'voted.jsonl'), '--benchmark', 'locomo', '--system', 'theirs', '--out', imp],
        env,
      );
      expect(i.code, i.stderr).toBe(0);
      // The file's votes are its own judge's: the import's manifest names no rawrag judge.
      expect(json(join(imp, 'manifest.json')).config.judge.model).toBeNull();
      const out = join(dir, 'imported-rejudged');
      const r = await rawragInProcess(['judge', '--rejudge', imp, '--out', out, ...common()], env);
      expect(r.code, r.stderr).toBe(0);
      expect(items(out)).toHaveLength(answered.length);
      expect(items(out).every((x) => Array.isArray(x.details.judge.votes) && x.details.judge.model === 'gpt-4o-mini')).toBe(true);
      // And under the audited gold, straight from the import.
      const audited = await rawragInProcess(
        ['judge', '--rejudge', imp, '-B', 'gold=audited', '--out', join(dir, 'imported-audited'), ...common()],
        env,
      );
      expect(audited.code, audited.stderr).toBe(0);
      expect(json(join(dir, 'imported-audited', 'manifest.json')).setting).toBe('locomo/gold=audited/theirs');
    });

    it('import -B gold=audited refuses votes judged against the original gold; an audited import is in a setting of its own', async () => {
      const out = join(dir, 'imp-audited');
      const r = await rawragInProcess(
        ['import', 'jsonl', join(dir, 'voted.jsonl'), '--benchmark', 'locomo', '--system', 'theirs', '-B', 'gold=audited', '--out', out],
        env,
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `voted\\.jsonl: line \\d+: 5 of the file's judged answers were judged against another gold than this import's \\(first: ${corrected[0]!.id}`,
        ),
      );
      expect(r.stderr).toMatch(/rawrag judge --rejudge <that run directory> -B gold/);
      // Votes only on questions the errata leave alone: they hold under both golds; the setting names the gold.
      writeFileSync(join(dir, 'voted-others.jsonl'), jsonl(answered.slice(5), true));
      const ok = await rawragInProcess(
        [
          'import',
          'jsonl',
          join(dir, 'voted-others.jsonl'),
          '--benchmark',
          'locomo',
          '--system',
          'theirs',
          '-B',
          'gold=audited',
          '--out',
          out,
        ],
        env,
      );
      expect(ok.code, ok.stderr).toBe(0);
      expect(json(join(out, 'manifest.json')).setting).toBe('locomo/gold=audited/theirs');
      const orig = join(dir, 'imp-original');
      const o = await rawragInProcess(
        ['import', 'jsonl', join(dir, 'voted-others.jsonl'), '--benchmark', 'locomo', '--system', 'theirs-too', '--out', orig],
        env,
      );
      expect(o.code, o.stderr).toBe(0);
      expect(json(join(orig, 'manifest.json')).setting).toBe('locomo/theirs-too');
      // A setting that would put the audited import beside original-gold runs is refused.
      const shared = await rawragInProcess(
        [
          'import',
          'jsonl',
          join(dir, 'voted-others.jsonl'),
          '--benchmark',
          'locomo',
          '-B',
          'gold=audited',
          '--setting',
          'locomo/shared',
          '--out',
          join(dir, 'imp-shared'),
        ],
        env,
      );
      expect(shared.code).toBe(2);
      expect(shared.stderr).toMatch(
        /--setting: 'locomo\/shared' does not name the data these answers were judged on: a setting here is locomo\/gold=audited\//,
      );
      // stats never pairs the two imports as two systems of one setting.
      const st = await rawragInProcess(['stats', out, orig, '--out', join(dir, 'stats-imports'), '--no-report', '--resamples', '100'], env);
      expect(st.code, st.stderr).toBe(0);
      const families = json(join(dir, 'stats-imports', 'stats.json')).families as Array<{ setting: string; leaderboard: unknown[] }>;
      expect(families.map((f) => f.setting).sort()).toEqual(['locomo/gold=audited/theirs', 'locomo/theirs-too']);
      expect(families.every((f) => f.leaderboard.length === 1)).toBe(true);
      // Without votes an audited import is allowed, and its judge command carries the gold.
      writeFileSync(join(dir, 'plain.jsonl'), jsonl(answered, false));
      const plain = await rawragInProcess(
        ['import', 'jsonl', join(dir, 'plain.jsonl'), '--benchmark', 'locomo', '-B', 'gold=audited', '--out', join(dir, 'imp-plain')],
        env,
      );
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toMatch(/rawrag judge .*answers\.jsonl --benchmark locomo --system external -B gold=audited/);
    });
  });
});
