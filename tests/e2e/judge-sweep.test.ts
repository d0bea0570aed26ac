/**
 * Issue 41, "the judge, measured as the field now disputes it": `rawrag judge --rejudge RUN
 * --judge-prompt A,B,...` re-scores the same answers under each named judge protocol — on an
 * imported public-format run (`rawrag import`) and on a rawrag run against the loopback API — and
 * prints accuracy per protocol with intervals, the span and the questions whose verdict flips; each
 * protocol's verdicts are a run folder of their own, which `rawrag stats` pairs.
 *
 * The loopback judge is a stand-in whose leniency depends on the protocol it is sent, as the
 * disputed judges' does: a "be generous" prompt accepts an answer sharing a content word with the
 * gold, rawrag's strict prompt only one containing the gold. Prompts without JSON mode get prose
 * with the JSON label at the end, so each protocol's own reading is exercised.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, defaultChat } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';

const env = loopbackEnv({ openai: 'sk-test-JUDGESWEEP0123456789' });

const words = (s: string): string[] => s.toLowerCase().match(/[a-z0-9]{4,}/g) ?? [];

/** Which protocols the loopback judge saw (by the text each sends). */
const seen = new Set<string>();

function judge(body: any): string | null {
  const messages = body.messages as Array<{ role: string; content: string }>;
  const text = messages.map((m) => m.content).join('\n');
  const m = /Gold answer: (.*)\n\s*Generated answer: ([\s\S]*?)\n\s*\n\s*First, provide/.exec(text);
  if (!m) return null;
  const [gold, answer] = [m[1]!.trim().toLowerCase(), m[2]!.toLowerCase()];
  const strict = text.includes('Be strict');
  seen.add(messages.length === 2 ? (text.includes('’CORRECT’') ? 'system+curly' : 'system+ascii') : strict ? 'strict' : 'user-only');
  const ok = strict ? answer.includes(gold) : answer.includes(gold) || words(gold).some((w) => words(answer).includes(w));
  const label = ok ? 'CORRECT' : 'WRONG';
  // Without JSON mode a real model often explains first: each protocol reads that its own way.
  return body.response_format ? JSON.stringify({ label }) : `The answer ${ok ? 'matches' : 'misses'} the gold. {"label": "${label}"}`;
}

describe('the judge-prompt sweep on an imported public-format run', () => {
  const api = new FakeApi({ chat: (b) => judge(b) ?? defaultChat(b) });
  const dir = tempDir('rawrag-sweep-import-');
  const imported = join(dir, 'imported');
  const sweep = join(dir, 'sweep');
  let r: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    await api.start();
    // EverMemOS's published eval_results.json format, with answers of three kinds.
    const file = JSON.parse(readFileSync(join(ROOT, 'docs/examples/eval_results.json'), 'utf8'));
    const answers: Record<string, string> = {
      locomo_0_qa5: 'On the Sunday before 25 May 2023', // the gold, reworded: every protocol accepts
      locomo_0_qa4: 'She is a woman', // topical, not specific: only the generous prompts accept
      locomo_0_qa3: 'Adoption agencies',
      locomo_0_qa2: 'Something about counseling', // topical again
      locomo_0_qa1: '2019', // wrong for all
      locomo_0_qa0: '7 May 2023',
    };
    for (const x of file.detailed_results.locomo_exp_user_0) x.generated_answer = answers[x.question_id];
    writeFileSync(join(dir, 'eval_results.json'), JSON.stringify(file));
    const imp = await rawragInProcess(
      ['import', 'evermemos', join(dir, 'eval_results.json'), '--benchmark', 'locomo', '--out', imported],
      env,
    );
    expect(imp.code, imp.stderr).toBe(0);
    r = await rawragInProcess(
      ['judge', '--rejudge', imported, '--judge-prompt', 'mem0,strict,evermemos,memos,memmachine', '--out', sweep].concat([
        '--judge-base-url',
        `${api.url}/v1`,
        '--cache-dir',
        tempDir(),
        '--no-progress',
      ]),
      env,
    );
  }, 180_000);
  afterAll(() => api.close());

  it('prints accuracy per protocol with intervals, the span and the flipping questions', () => {
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(readFileSync(join(sweep, 'judge-sweep.json'), 'utf8'));
    expect(s.n).toBe(6);
    const acc = Object.fromEntries(s.protocols.map((p: any) => [p.name, p.accuracy]));
    // Generous prompts: 5 of 6 (the wrong year only); strict: 3 of 6 (the topical answers rejected too).
    for (const name of ['mem0', 'evermemos', 'memos', 'memmachine']) expect(acc[name]).toBeCloseTo(5 / 6, 12);
    expect(acc.strict).toBeCloseTo(3 / 6, 12);
    for (const p of s.protocols) {
      expect(p.ci95.low).toBeLessThanOrEqual(p.accuracy);
      expect(p.ci95.high).toBeGreaterThanOrEqual(p.accuracy);
      expect(p.failed).toBe(0);
    }
    expect(s.span.points).toBeCloseTo(100 * (5 / 6 - 3 / 6), 9);
    expect(s.span.lowest).toBe('strict');
    expect(s.flips.map((f: any) => f.answer).sort()).toEqual(['She is a woman', 'Something about counseling']);
    for (const f of s.flips) expect(f.verdicts).toMatchObject({ mem0: 1, strict: 0, evermemos: 1, memos: 1, memmachine: 1 });
    expect(r.stdout).toContain('Judge-prompt sweep: the same answers under 5 judge protocols, on the 6 questions every protocol judged');
    expect(r.stdout).toMatch(/\| strict +\| .* \| +50\.00 \| +\[\d+\.\d\d, \d+\.\d\d\] \|/);
    expect(r.stdout).toContain('span: 33.33 points');
    expect(r.stdout).toContain('verdict flips: 2 of 6 questions change verdict between protocols');
    // Every protocol's own messages went out: Mem0's user-only prompt, the strict one, a system
    // message with ASCII quotes (EverMemOS) and one with the curly quotes (MemOS).
    expect([...seen].sort()).toEqual(['strict', 'system+ascii', 'system+curly', 'user-only']);
  });

  it('each protocol is a run folder of its own, and rawrag stats pairs them', async () => {
    for (const name of ['mem0', 'strict', 'evermemos', 'memos', 'memmachine']) {
      const m = JSON.parse(readFileSync(join(sweep, name, 'manifest.json'), 'utf8'));
      expect(m.status).toBe('complete');
      expect(readItems(join(sweep, name))).toHaveLength(6);
    }
    const st = await rawragInProcess(['stats', sweep, '--out', join(dir, 'stats'), '--resamples', '200', '--no-report']);
    expect(st.code, st.stderr).toBe(0);
    expect(st.stdout).toContain('## Judge vs judge');
    for (const tag of ['[prompt:evermemos]', '[prompt:memos]', '[prompt:memmachine]']) expect(st.stdout).toContain(tag);
  }, 120_000);
});

describe('the judge-prompt sweep on a rawrag run against the loopback API', () => {
  let golds = new Map<string, string>();
  /** The reader answers the gold for even questions and a topical half-answer for odd ones. */
  function reader(body: any): string {
    const user: string = (body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')?.content ?? '';
    const q = /# Question: \n([\s\S]*?)\n\n# Context: \n/.exec(user)?.[1];
    const gold = q ? golds.get(q) : undefined;
    if (gold === undefined) return "I don't know";
    const i = [...golds.keys()].indexOf(q!);
    const last = words(gold).pop();
    return i % 2 === 0 || !last ? gold : `Something to do with ${last}`;
  }
  const api = new FakeApi({ chat: (b) => judge(b) ?? reader(b) });
  const dir = tempDir('rawrag-sweep-run-');
  const run = join(dir, 'run');
  const sweep = join(dir, 'sweep');
  const cache = tempDir('rawrag-sweep-cache-');
  let r: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    const { locomo } = await import('../../src/benchmarks/locomo/index.js');
    const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    golds = new Map(ds.questions.slice(0, 8).map((q) => [q.text, q.gold]));
    await api.start();
    const first = await rawragInProcess(locomoRunArgs({ out: run, peer: api, chatOnly: true, cache, limit: 8, json: false }), env);
    expect(first.code, first.stderr).toBe(0);
    r = await rawragInProcess(
      ['judge', '--rejudge', run, '--judge-prompt', 'official,strict,evermemos', '--out', sweep, '--json'].concat([
        '--judge-base-url',
        `${api.url}/v1`,
        '--cache-dir',
        cache,
        '--no-progress',
      ]),
      env,
    );
  }, 240_000);
  afterAll(() => api.close());

  it("re-scores the run's answers under each protocol; the official one agrees with the run's own verdicts", () => {
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.n).toBe(8);
    const items = readItems(run);
    const own = items.reduce((a: number, i: any) => a + i.score, 0) / items.length;
    const acc = Object.fromEntries(s.protocols.map((p: any) => [p.name, p.accuracy]));
    expect(acc.official).toBeCloseTo(own, 12);
    // The strict prompt rejects the topical half-answers the generous ones accept (those that do not hold the whole gold).
    const topical = items.filter(
      (i: any) =>
        /^Something to do with/.test(i.answer) && i.score === 1 && !i.answer.toLowerCase().includes(golds.get(i.question)!.toLowerCase()),
    );
    expect(topical.length).toBeGreaterThan(0);
    expect(acc.official - acc.strict).toBeCloseTo(topical.length / 8, 12);
    expect(acc.evermemos).toBeCloseTo(acc.official, 12);
    expect(s.flips.map((f: any) => f.id).sort()).toEqual(topical.map((i: any) => i.id).sort());
    for (const f of s.flips) expect(f.verdicts).toEqual({ official: 1, strict: 0, evermemos: 1 });
  });

  it('a name that is not a protocol is refused before anything is sent, naming the known ones', async () => {
    const bad = await rawragInProcess(['judge', '--rejudge', run, '--judge-prompt', 'official,lenient', '--out', join(dir, 'bad')], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(
      /'lenient' is neither a judge protocol of locomo \(official, mem0, locomo, strict, evermemos, memos, memmachine\) nor a file/,
    );
  });
});
