/**
 * `rawrag run meme` end to end through the real CLI: offline (coverage only), the phase protocol
 * (no turn after a block's horizon is ever retrieved), and a reader + 3x judge through a loopback
 * OpenAI-compatible server, where the six-task headline and the before/after rule are checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import type { ItemRecord } from '../../src/core/item.js';

const FIXTURE = join(ROOT, 'tests/fixtures/meme/meme_fixture.json');
const RAW = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Array<{ episode_id: string; sessions: Array<{ conversation: unknown[] }> }>;

function readItems(dir: string): ItemRecord[] {
  return readFileSync(join(dir, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ItemRecord);
}
const sessionOf = (turnId: string) => Number(/^s(\d+):t\d+$/.exec(turnId)![1]);

describe('rawrag run meme (offline, local retriever)', () => {
  const out = join(tempDir(), 'run');
  let r: CliResult;
  beforeAll(async () => {
    r = await rawragInProcess(['run', 'meme', '--data', FIXTURE, '--out', out, '--no-progress']);
  });

  it('runs all 24 questions with coverage and result coverage, evidence in chronological order', async () => {
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('RAW-RAG/local on meme — 24 questions, 0 errors');
    expect(r.stdout).toContain('MEME six-task score');
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.n).toBe(24);
    expect(summary.benchmark_summary.tasks.map((t: { task: string; n: number }) => `${t.task}:${t.n}`)).toEqual([
      'ER:2',
      'Agg:2',
      'Tr:2',
      'Del:2',
      'Cas:3',
      'Abs:3',
    ]);
    expect(summary.benchmark_summary.overall).toBeNull(); // nothing judged offline
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.policy.order).toBe('chronological');
    for (const item of readItems(out)) {
      expect(item.metrics.result_coverage === 0 || item.metrics.result_coverage === 1).toBe(true);
      const idx = item.evidence_turns.map((t) => sessionOf(t) * 1000 + Number(t.split(':t')[1]));
      expect(idx, item.id).toEqual([...idx].sort((a, b) => a - b));
    }
  });
});

describe('MEME phase protocol: a question block searches exactly the sessions fed so far', () => {
  const out = join(tempDir(), 'phase');
  // Rank every window (k = candidates = 128): whatever the index holds can come back.
  const args = ['run', 'meme', '--data', FIXTURE, '--out', out, '--k', '128', '--candidates', '128', '--no-rerank', '--no-progress'];
  let r: CliResult;
  beforeAll(async () => {
    r = await rawragInProcess(args);
  });

  it('never retrieves a turn after position_after_session, and retrieves the whole visible prefix', async () => {
    expect(r.code, r.stderr).toBe(0);
    const items = readItems(out);
    expect(items).toHaveLength(24);
    for (const item of items) {
      const pos = item.meta!.position_after_session as number;
      const ep = RAW.find((e) => e.episode_id === item.episode)!;
      const seen = new Set(item.retrieved.flatMap((c) => c.turns));
      for (const t of seen) expect(sessionOf(t), `${item.id} retrieved ${t}`).toBeLessThanOrEqual(pos);
      for (const t of item.evidence_turns) expect(sessionOf(t), `${item.id} shows ${t}`).toBeLessThanOrEqual(pos);
      const prefix = ep.sessions.slice(0, pos + 1).reduce((s, x) => s + x.conversation.length, 0);
      expect(seen.size, item.id).toBe(prefix);
    }
    // The before-questions of pl_001 stop at session 8: the move to Denver (session 9) is invisible to them.
    const before = items.filter((i) => i.episode === 'pl_001' && i.meta!.phase === 'before');
    expect(before.every((i) => i.retrieved.every((c) => c.turns.every((t) => sessionOf(t) <= 8)))).toBe(true);
    const after = items.filter((i) => i.episode === 'pl_001' && i.meta!.phase === 'after');
    expect(after.some((i) => i.retrieved.some((c) => c.turns.some((t) => sessionOf(t) === 9)))).toBe(true);
  });
});

/** A reader that answers from a script and a judge that applies each MEME prompt's rule literally. */
function memeChat(body: { messages: Array<{ role: string; content: string }> }): string {
  const text = body.messages.map((m) => m.content).join('\n');
  if (text.startsWith('You are a judge evaluating')) return judge(text);
  const question = /\nQuestion: ([^\n]*)$/.exec(text)?.[1] ?? '';
  if (question === 'Do I have a food allergy? If so, to what?') {
    return text.includes('Please forget my food allergy') ? "I don't have that information." : 'Peanuts.';
  }
  const script: Record<string, string> = {
    'What is my life philosophy, word for word?': 'Slow is smooth and smooth is fast',
    'What are my hobby, my pet and the sport I play?': 'Pottery, a beagle named Max, and tennis.',
    'List every employer I have had, from earliest to latest.': 'Acme Corp, Globex, Initech',
    'How do I commute to work?': 'By bus.',
    'How do I commute to work now?': 'Light rail.',
    'How long is my commute?': "I don't know.",
    'How long is my commute now?': '25 minutes',
    'What is my favorite restaurant?': 'Pho Bac',
    'What is my favorite restaurant now?': "I'm not sure anymore since you moved.",
  };
  return script[question] ?? "I don't know.";
}

function judge(prompt: string): string {
  const field = (name: string) => new RegExp(`\\n${name}: ([^\\n]*)\\n`).exec(prompt)?.[1] ?? '';
  const agent = field('AGENT').toLowerCase();
  if (prompt.includes('contains specific values')) {
    const values = [...field('TARGET VALUES').matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
    return JSON.stringify({ results: values.map((v) => ({ value: v, present: agent.includes(v.toLowerCase()) })), reason: 'r' });
  }
  let ok: boolean;
  if (prompt.includes('UNCERTAINTY')) ok = /don't know|not sure/.test(agent);
  else if (prompt.includes('DELETED')) ok = !agent.includes(field('GOLD').toLowerCase());
  else if (prompt.includes('sequence of historical values')) {
    const hist = field('GOLD \\(ordered history values, comma-separated\\)').toLowerCase().split(', ');
    const pos = hist.map((h) => agent.indexOf(h));
    ok = pos.every((p, i) => p >= 0 && (i === 0 || p > pos[i - 1]!));
  } else {
    const gold = (field('GOLD') || field('GOLD \\(new cascaded value\\)')).toLowerCase();
    ok = agent.includes(gold);
  }
  return JSON.stringify({ correct: ok, reason: 'fake judge' });
}

describe('rawrag run meme --reader ... --judge ... through a loopback API', () => {
  const api = new FakeApi({ chat: memeChat });
  const out = join(tempDir(), 'judged');
  let r: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    await api.start();
    r = await rawragInProcess(
      [
        'run',
        'meme',
        '--data',
        FIXTURE,
        '--out',
        out,
        '--reader',
        'gpt-4o-mini',
        '--judge',
        'gpt-4o',
        '--reader-base-url',
        `${api.url}/v1`,
        '--judge-base-url',
        `${api.url}/v1`,
        '--cache-dir',
        tempDir('rawrag-cache-'),
        '--no-progress',
        '--json',
      ],
      { OPENAI_API_KEY: 'sk-test-meme', OPENAI_BASE_URL: undefined, RAWRAG_CACHE_DIR: undefined, RAWRAG_RETRY_BASE_MS: '5' },
    );
  }, 120_000);
  afterAll(() => api.close());

  it('ablate reports the Δ, interval and Holm p that rawrag stats reports for the same folders (MEME macro and before/after rule)', async () => {
    // A server of its own: the other tests count this describe's requests.
    const api = await new FakeApi({ chat: memeChat }).start();
    const ab = join(tempDir(), 'ab');
    const common = [
      '--data',
      FIXTURE,
      '--reader',
      'gpt-4o-mini',
      '--judge',
      'gpt-4o',
      '--reader-base-url',
      `${api.url}/v1`,
      '--judge-base-url',
      `${api.url}/v1`,
      '--cache-dir',
      tempDir('rawrag-cache-'),
      '--no-progress',
    ];
    const env = { OPENAI_API_KEY: 'sk-test-meme', OPENAI_BASE_URL: undefined, RAWRAG_CACHE_DIR: undefined, RAWRAG_RETRY_BASE_MS: '5' };
    const a = await rawragInProcess(['ablate', 'meme', ...common, '--k', '1', '--resamples', '2000', '--out', ab], env);
    expect(a.code, a.stderr).toBe(0);
    const table = JSON.parse(readFileSync(join(ab, 'ablation.json'), 'utf8')).table;
    const k1 = table.find((r: { variant: string }) => r.variant === 'k=1');
    const st = await rawragInProcess(['stats', ab, '--resamples', '2000', '--json', '--out', join(tempDir(), 'stats')], env);
    expect(st.code, st.stderr).toBe(0);
    const fam = JSON.parse(st.stdout).families[0];
    expect(fam.aggregation.overall).toBe('macro');
    const pair = fam.pairwise.find((p: { system_a: string; system_b: string }) => [p.system_a, p.system_b].includes(k1.system));
    const sign = pair.system_a === k1.system ? 1 : -1;
    expect(k1.delta).toBeCloseTo(sign * pair.delta, 12);
    expect(k1.p_holm).toBeCloseTo(pair.p_bootstrap_holm, 12);
    const ref = fam.leaderboard.find(
      (r: { system: string }) => r.system === table.find((t: { is_default: boolean }) => t.is_default).system,
    );
    expect(table.find((t: { is_default: boolean }) => t.is_default).accuracy).toBeCloseTo(ref.columns.overall.accuracy, 12);
    await api.close();
  }, 120_000);

  it('judges 3x per non-ER answer and scores ER by substring, never judging ER', async () => {
    expect(r.code, r.stderr).toBe(0);
    const items = readItems(out);
    const judged = items.filter((i) => i.meta!.task !== 'ER');
    expect(judged.every((i) => (i.details.judge as { votes: number[] }).votes.length === 3)).toBe(true);
    const judgeRequests = api
      .byPath('/v1/chat/completions')
      .filter((q) => JSON.stringify(q.body.messages).includes('You are a judge evaluating'));
    expect(judgeRequests).toHaveLength(3 * judged.length);
    expect(judgeRequests.every((q) => q.body.response_format?.type === 'json_object' && q.body.temperature === 0)).toBe(true);
    // base.py: the reader's max_tokens is 500.
    const readers = api
      .byPath('/v1/chat/completions')
      .filter((q) => !JSON.stringify(q.body.messages).includes('You are a judge evaluating'));
    expect(readers.length).toBeGreaterThan(0);
    expect(readers.every((q) => q.body.max_tokens === 500)).toBe(true);
    const er = items.filter((i) => i.type === 'ER');
    expect(er.map((i) => i.score).sort()).toEqual([0, 1]);
    expect(items.filter((i) => i.type === 'ER (before)').every((i) => i.score === null)).toBe(true);
  });

  it('applies the before/after rule: trivial passes do not count; headline = mean of six task rates', async () => {
    const s = JSON.parse(r.stdout).benchmark_summary;
    const acc = Object.fromEntries(s.tasks.map((t: { task: string; accuracy: number }) => [t.task, t.accuracy]));
    const raw = Object.fromEntries(s.tasks.map((t: { task: string; raw_accuracy: number }) => [t.task, t.raw_accuracy]));
    expect(acc.ER).toBeCloseTo(0.5);
    expect(acc.Agg).toBeCloseTo(0.5);
    expect(acc.Tr).toBeCloseTo(0.5);
    expect(acc.Del).toBeCloseTo(0.5); // sw_001: "I don't know" passes deletion, but its before-question failed
    expect(raw.Del).toBeCloseTo(1);
    expect(acc.Cas).toBeCloseTo(1 / 3); // pl_001 2-hop answered after but not before: trivial
    expect(raw.Cas).toBeCloseTo(2 / 3);
    expect(acc.Abs).toBeCloseTo(1 / 3);
    expect(raw.Abs).toBeCloseTo(1);
    expect(s.tasks.find((t: { task: string }) => t.task === 'Abs').pass_types).toEqual({
      real: 1,
      trivial: 2,
      knew_but_failed: 0,
      never_knew: 0,
    });
    expect(s.overall).toBeCloseTo((0.5 * 4 + 2 / 3) / 6);
  });
});
