/**
 * `rawrag show RUN --wrong` on a judged LoCoMo run made against the loopback OpenAI server: the
 * reader answers with the gold when its context holds it, except for one question in three that it
 * gets wrong with the gold in front of it (reading failures); questions whose gold was not
 * retrieved are wrong by retrieval. The judge (CORRECT when the answer holds the gold) changes its
 * mind on its third run for some wrong answers, so a wrong answer may have split votes (score 1/3).
 * The list's counts, kinds and order are checked against items.jsonl.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, defaultChat, readerQuestion } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';

const LIMIT = 40;
const env = loopbackEnv({ openai: 'sk-test-WRONG0123456789' });
const KINDS = ['reading', 'partial', 'retrieval', 'unknown'];

describe('rawrag show RUN --wrong', () => {
  const root = tempDir('rawrag-show-wrong-');
  const out = join(root, 'judged');
  const offline = join(root, 'offline');
  const judgeCalls = new Map<string, number>();
  let reader: (body: any) => string = defaultChat;
  const api = new FakeApi({ chat: (body) => reader(body) });
  let items: any[] = [];

  beforeAll(async () => {
    const { locomo } = await import('../../src/benchmarks/locomo/index.js');
    const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    const questions = ds.questions.slice(0, LIMIT);
    const misread = new Set(questions.filter((_, i) => i % 3 === 1).map((q) => q.text));
    const judge = (body: any) => {
      const verdict = defaultChat(body);
      const key = JSON.stringify(body.messages);
      const n = (judgeCalls.get(key) ?? 0) + 1;
      judgeCalls.set(key, n);
      const split = n === 3 && verdict.includes('WRONG') && key.length % 2 === 0;
      return split ? JSON.stringify({ label: 'CORRECT' }) : verdict;
    };
    // The reader answers with the gold when a gold turn is in its context, except for the misread questions.
    const turns = new Map(ds.episodes.flatMap((e) => e.turns.map((t) => [`${e.id} ${t.id}`, t.text] as const)));
    const byText = new Map(questions.map((q) => [q.text, q]));
    reader = (body) => {
      const q = byText.get(readerQuestion(body) ?? '');
      if (!q) return judge(body);
      if (misread.has(q.text)) return 'Nobody said.';
      const prompt = JSON.stringify(body.messages);
      const shown = q.evidence.some((id) => prompt.includes(JSON.stringify(turns.get(`${q.episode} ${id}`) ?? '\u0000').slice(1, -1)));
      return shown ? q.gold : "I don't know";
    };
    await api.start();
    const r = await rawragInProcess(locomoRunArgs({ out, peer: api, chatOnly: true, cache: tempDir(), limit: LIMIT, json: false }), env);
    expect(r.code, r.stderr).toBe(0);
    const o = await rawragInProcess(['run', 'locomo', '--limit', '5', '--out', offline, '--no-progress']);
    expect(o.code, o.stderr).toBe(0);
    items = readItems(out);
  }, 180_000);
  afterAll(() => api.close());

  const kindOf = (i: any) => (i.coverage === null ? 'unknown' : i.coverage.all ? 'reading' : i.coverage.any ? 'partial' : 'retrieval');
  const wrong = () => items.filter((i) => i.error === null && i.score !== null && i.score < 0.5);

  it('lists every wrong answer: reading failures first, unanimous judges before split ones, counts as items.jsonl says', async () => {
    const w = wrong();
    const reading = w.filter((i) => kindOf(i) === 'reading');
    const retrieval = w.filter((i) => kindOf(i) !== 'reading');
    expect(reading.length).toBeGreaterThan(3);
    expect(retrieval.length).toBeGreaterThan(0);
    expect(
      w.some((i) => i.score > 0),
      'a wrong answer with split votes',
    ).toBe(true);

    const r = await rawragInProcess(['show', out, '--wrong', '--limit', '0']);
    expect(r.code, r.stderr).toBe(0);
    const count = (k: string) => w.filter((i) => kindOf(i) === k).length;
    expect(r.stdout).toContain(
      `${w.length} of ${items.length} judged answers wrong (score < 0.5): ${count('reading')} reading (all gold evidence shown), ${count('partial')} partial retrieval (some shown), ${count('retrieval')} retrieval (none shown)`,
    );
    expect(w.length).toBeLessThan(items.length * 0.8);
    const blocks = [
      ...r.stdout.matchAll(
        /^ *(\d+)\. (\S+) · ([^·]+) · (reading failure|partial retrieval|retrieval failure|coverage unknown): (.*) · score (\d\.\d\d)/gm,
      ),
    ];
    expect(blocks.map((b) => b[2])).toEqual(expect.arrayContaining(w.map((i) => i.id)));
    expect(blocks).toHaveLength(w.length);
    const byId = new Map(items.map((i) => [i.id, i]));
    const listed = blocks.map((b) => byId.get(b[2]!)!);
    // The order: by kind, then by score (unanimous first), then question order.
    const position = new Map(items.map((i, n) => [i.id, n]));
    for (let n = 1; n < listed.length; n++) {
      const [a, b] = [listed[n - 1]!, listed[n]!];
      const key = (i: any) => [KINDS.indexOf(kindOf(i)), i.score, position.get(i.id)!];
      const [ka, kb] = [key(a), key(b)];
      expect(
        ka[0]! < kb[0]! || (ka[0] === kb[0] && (ka[1]! < kb[1]! || (ka[1] === kb[1] && ka[2]! < kb[2]!))),
        `${a.id} before ${b.id}`,
      ).toBe(true);
    }
    expect(kindOf(listed[0])).toBe('reading');
    // A reading failure had every gold turn in front of the reader; a retrieval failure names the turns it missed.
    for (const [n, b] of blocks.entries()) {
      const item = listed[n]!;
      const missed = item.gold_evidence.filter((t: string) => !item.evidence_turns.includes(t));
      if (b[4] === 'coverage unknown') expect(item.gold_evidence).toEqual([]);
      else if (b[4] === 'reading failure') {
        expect(missed).toEqual([]);
        expect(b[5]).toBe(`all ${item.gold_evidence.length} gold turn${item.gold_evidence.length === 1 ? '' : 's'} shown`);
      } else expect(b[5]).toContain(`(missed ${missed.join(', ')})`);
      expect(b[6]).toBe(item.score.toFixed(2));
    }
    expect(r.stdout).toContain(`answer:   Nobody said.`);
  });

  it('--limit and --json: the most useful first, the counts over all of them', async () => {
    const w = wrong();
    const all = await rawragInProcess(['show', out, '--wrong', '--json', '--limit', '0']);
    expect(all.code, all.stderr).toBe(0);
    const full = JSON.parse(all.stdout);
    expect(full.wrong_total).toBe(w.length);
    expect(full.judged).toBe(items.length);
    expect(full.order).toEqual(KINDS);
    expect(full.wrong).toHaveLength(w.length);
    const first = full.wrong[0];
    const item = items.find((i) => i.id === first.id)!;
    expect(first).toMatchObject({
      kind: 'reading',
      score: item.score,
      votes: item.details.judge.votes,
      coverage: item.coverage,
      gold_turns: item.gold_evidence,
      gold_missed: [],
      question: item.question,
      gold: item.gold,
      answer: item.answer,
    });

    const five = await rawragInProcess(['show', out, '--wrong', '--json', '--limit', '5']);
    const limited = JSON.parse(five.stdout);
    expect(limited.wrong.map((x: any) => x.id)).toEqual(full.wrong.slice(0, 5).map((x: any) => x.id));
    expect(limited.counts).toEqual(full.counts);
    const text = await rawragInProcess(['show', out, '--wrong', '--limit', '3']);
    expect(text.stdout.match(/^ *\d+\. /gm)).toHaveLength(3);
    expect(text.stdout).toContain(`3 of ${w.length} shown (--limit 0 shows all)`);
    // The default: 20.
    const byDefault = JSON.parse((await rawragInProcess(['show', out, '--wrong', '--json'])).stdout);
    expect(byDefault.wrong).toHaveLength(Math.min(20, w.length));
  });

  it('--out writes the full log of each listed item', async () => {
    const logs = join(root, 'logs');
    const r = await rawragInProcess(['show', out, '--wrong', '--limit', '2', '--out', logs]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(logs).sort()).toHaveLength(2);
    expect(r.stdout).toContain(`2 item logs written to ${logs}`);
  });

  it('refuses what it cannot do: ids with --wrong, --json without it (usage, 1); an unjudged run (bad input, 2)', async () => {
    const both = await rawragInProcess(['show', out, items[0].id, '--wrong']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('give item ids or --wrong, not both');
    const json = await rawragInProcess(['show', out, items[0].id, '--json']);
    expect(json.code).toBe(1);
    expect(json.stderr).toContain('--json and --limit go with --wrong');
    const unjudged = await rawragInProcess(['show', offline, '--wrong']);
    expect(unjudged.code).toBe(2);
    expect(unjudged.stderr).toMatch(
      /offline[/\\]items\.jsonl: no judged answer in this run \(5 items\): --wrong needs a run with a reader and a judge/,
    );
    const missing = await rawragInProcess(['show', join(root, 'nope'), '--wrong']);
    expect(missing.code).toBe(2);
    expect(existsSync(join(root, 'nope'))).toBe(false);
  });
});
