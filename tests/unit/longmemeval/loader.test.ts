/**
 * LongMemEval loader: the real samples (tests/fixtures/longmemeval, see SOURCE.md) and constructed
 * edge cases for the quirks the spec lists (the constructed instances are marked as such).
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadLongMemEval, checkCounts } from '../../../src/benchmarks/longmemeval/load.js';
import { FULL_RELEASE, QUESTION_TYPES } from '../../../src/benchmarks/longmemeval/format.js';
import type { Dataset } from '../../../src/core/schema.js';
import { ROOT, tempDir } from '../../helpers/cli.js';

const FIX = resolve(ROOT, 'tests/fixtures/longmemeval');
const ORACLE = join(FIX, 'longmemeval_oracle.sample.json');
const S = join(FIX, 'longmemeval_s_cleaned.sample.json');

const load = (path: string, options: Record<string, string | undefined> = {}, chunk?: number) => loadLongMemEval({ path, options }, chunk);
const q = (d: Dataset, id: string) => d.questions.find((x) => x.id === id)!;
const ep = (d: Dataset, id: string) => d.episodes.find((x) => x.id === id)!;

/** A constructed instance (not real data) with the official 9 keys. */
function instance(over: Record<string, unknown> = {}) {
  return {
    question_id: 'c0ffee01',
    question_type: 'single-session-user',
    question: 'What did I buy?',
    answer: 'a bike',
    question_date: '2023/05/30 (Tue) 10:00',
    haystack_session_ids: ['sharegpt_a_0', 'answer_c0ffee01'],
    haystack_dates: ['2023/05/20 (Sat) 09:00', '2023/05/21 (Sun) 09:00'],
    haystack_sessions: [
      [
        { role: 'assistant', content: 'Hello, how can I help?' },
        { role: 'user', content: 'Tell me a joke.' },
      ],
      [
        { role: 'user', content: 'I bought a bike today.', has_answer: true },
        { role: 'assistant', content: 'Nice!', has_answer: false },
      ],
    ],
    answer_session_ids: ['answer_c0ffee01'],
    ...over,
  };
}

function writeData(values: unknown[], name = 'data.json'): string {
  const dir = tempDir();
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(values, null, 1));
  return file;
}

describe('LongMemEval loader on the real oracle sample', () => {
  it('maps every instance to its own episode and question', async () => {
    const d = await load(ORACLE);
    expect(d.benchmark).toBe('longmemeval');
    expect(d.questions).toHaveLength(7);
    expect(d.episodes.map((e) => e.id)).toEqual(d.questions.map((x) => x.id));
    expect(d.questions.every((x) => x.episode === x.id)).toBe(true);
    expect(new Set(d.questions.map((x) => x.type))).toEqual(new Set(QUESTION_TYPES));
    expect(d.source.sha256).toBe('efe292f4ed98a575978589813ac27f8405238554d20f43ae51f39691cdd82d8b');
    // The variant is read from the file name: the oracle file is labelled oracle, not the default s_cleaned.
    expect(d.source.version).toBe('LongMemEval oracle (longmemeval_oracle.sample.json)');
    // A partial file: the count check is skipped, with a warning that says so.
    expect(d.warnings).toEqual([
      { place: 'file', important: true, message: '7 questions, not a full release (500): per-type count check skipped' },
    ]);
  });

  it('keeps integer answers as strings and the question date as given', async () => {
    const d = await load(ORACLE);
    const tr = q(d, '5e1b23de');
    expect(tr.gold).toBe('3');
    expect(tr.acceptable).toEqual(['3']);
    expect(tr.questionDate).toBe('2024/02/01 (Thu) 22:41');
    expect(q(d, '001be529').gold).toBe('over a year');
  });

  it('derives gold evidence as the official retrieval evaluation does', async () => {
    const d = await load(ORACLE);
    const ku = q(d, '01493427');
    expect(ku.meta).toMatchObject({ abstention: false, goldSessions: ['answer_a7b44747_1', 'answer_a7b44747_2'], retrievalExcluded: null });
    expect(ku.evidence).toEqual(ku.meta!.goldTurns);
    expect(ku.evidence.every((id) => /^answer_a7b44747_[12]:\d+$/.test(id))).toBe(true);
    // The turn id's number is the 1-based position in the session, assistant turns counted.
    const turns = ep(d, '01493427').turns;
    for (const id of ku.evidence) {
      const t = turns.find((x) => x.id === id)!;
      expect(t.speaker).toBe('user');
      const session = turns.filter((x) => x.session === t.session);
      expect(session[Number(id.split(':')[1]) - 1]).toBe(t);
    }
    // single-session-assistant: the evidence is an assistant turn, so it is coverage gold but
    // the official retrieval averages leave the question out.
    const ssa = q(d, '0e5e2d1a');
    expect(ssa.evidence).toHaveLength(1);
    expect(ep(d, '0e5e2d1a').turns.find((t) => t.id === ssa.evidence[0])!.speaker).toBe('assistant');
    expect(ssa.meta).toMatchObject({ goldTurns: [], goldSessions: [], retrievalExcluded: 'no user-side has_answer turn' });
  });

  it('flags abstention questions and keeps them in their type', async () => {
    const d = await load(ORACLE);
    const abs = q(d, '09ba9854_abs');
    expect(abs.type).toBe('multi-session');
    expect(abs.meta).toMatchObject({
      abstention: true,
      retrievalExcluded: 'abstention',
      answerSessionIds: ['answer_96c743d0_abs_2', 'answer_96c743d0_abs_1'],
    });
    expect(abs.evidence).toEqual([]);
    expect(d.questions.filter((x) => x.meta!.abstention)).toHaveLength(1);
  });

  it('records the reader template option on every question', async () => {
    expect((await load(ORACLE)).questions.every((x) => x.meta!.reading === 'con')).toBe(true);
    expect((await load(ORACLE, { reading: 'direct' })).questions[0]!.meta!.reading).toBe('direct');
    await expect(load(ORACLE, { reading: 'fast' })).rejects.toThrow(/-B reading: unknown reading method 'fast'/);
  });
});

describe('LongMemEval loader on the real S sample', () => {
  it('orders sessions by their full date and dates every turn', async () => {
    const d = await load(S, {}, 4096);
    expect(d.questions.map((x) => x.id)).toEqual(['5e1b23de', '0e5e2d1a']);
    const e = ep(d, '5e1b23de');
    const dates = e.turns.map((t) => t.date!);
    expect([...dates].sort()).toEqual(dates);
    expect(new Set(e.turns.map((t) => t.session)).size).toBe(e.meta!.sessions);
    expect(e.turns.every((t) => t.id === `${t.session}:${t.id.split(':').pop()}`)).toBe(true);
    expect(new Set(e.turns.map((t) => t.id)).size).toBe(e.turns.length);
  });

  it("re-reads an episode's turns from the file identically", async () => {
    const d = await load(S, {}, 777);
    const first = JSON.stringify(d.episodes.map((e) => e.turns));
    expect(JSON.stringify(d.episodes.map((e) => e.turns))).toBe(first);
    expect(Object.keys(d.episodes[0]!)).toEqual(['id', 'meta', 'turns']);
    expect(d.episodes[0]!.turns.length).toBeGreaterThan(100);
  });
});

describe('LongMemEval loader: constructed edge cases (not real data)', () => {
  it('keys turns by position when a session id repeats in the haystack', async () => {
    const inst = instance({
      haystack_session_ids: ['ultrachat_1', 'answer_c0ffee01', 'ultrachat_1'],
      haystack_dates: ['2023/05/20 (Sat) 09:00', '2023/05/21 (Sun) 09:00', '2023/05/22 (Mon) 09:00'],
      haystack_sessions: [[{ role: 'user', content: 'same' }], instance().haystack_sessions[1], [{ role: 'user', content: 'same' }]],
    });
    const d = await load(writeData([inst]));
    const e = d.episodes[0]!;
    expect(e.turns.map((t) => t.id)).toEqual(['ultrachat_1:1', 'answer_c0ffee01:1', 'answer_c0ffee01:2', 'ultrachat_1~2:1']);
    expect(e.meta!.duplicateSessions).toEqual({ 'ultrachat_1~2': 'ultrachat_1' });
    expect(d.warnings.map((w) => w.message).join('\n')).toMatch(/session id repeated in the haystack.*ultrachat_1/);
  });

  it('sorts sessions stably by the full date string (S is sorted by day only)', async () => {
    const inst = instance({
      haystack_session_ids: ['late', 'answer_c0ffee01', 'early', 'tie'],
      haystack_dates: ['2023/05/21 (Sun) 18:00', '2023/05/21 (Sun) 18:00', '2023/05/21 (Sun) 07:00', '2023/05/21 (Sun) 18:00'],
      haystack_sessions: [
        [{ role: 'user', content: 'a' }],
        instance().haystack_sessions[1],
        [{ role: 'user', content: 'b' }],
        [{ role: 'user', content: 'c' }],
      ],
    });
    const d = await load(writeData([inst]));
    expect([...new Set(d.episodes[0]!.turns.map((t) => t.session))]).toEqual(['early', 'late', 'answer_c0ffee01', 'tie']);
  });

  it('keeps empty turns, assistant-first sessions and non-alternating roles as given', async () => {
    const inst = instance({
      haystack_sessions: [
        [
          { role: 'assistant', content: '' },
          { role: 'assistant', content: 'twice' },
          { role: 'user', content: '' },
          { role: 'user', content: 'again' },
        ],
        instance().haystack_sessions[1],
      ],
    });
    const d = await load(writeData([inst]));
    const turns = d.episodes[0]!.turns;
    expect(turns.slice(0, 4).map((t) => [t.speaker, t.text])).toEqual([
      ['assistant', ''],
      ['assistant', 'twice'],
      ['user', ''],
      ['user', 'again'],
    ]);
    expect(d.warnings.filter((w) => w.place !== 'file')).toEqual([]);
  });

  it('accepts sessions later on the question day, warns about a later day', async () => {
    const sameDay = instance({ haystack_dates: ['2023/05/20 (Sat) 09:00', '2023/05/30 (Tue) 23:59'] });
    const d = await load(writeData([sameDay]));
    expect(d.warnings.filter((w) => w.place !== 'file')).toEqual([]);
    const laterDay = instance({ haystack_dates: ['2023/05/20 (Sat) 09:00', '2023/06/02 (Fri) 08:00'] });
    const d2 = await load(writeData([laterDay]));
    expect(d2.warnings.map((w) => w.message).join('\n')).toMatch(/1 session\(s\) dated on a day after the question \(2023\/05\/30\)/);
    expect(d2.episodes[0]!.turns.at(-1)!.date).toBe('2023/06/02 (Fri) 08:00');
  });

  it('keeps integer answers (JSON numbers) as their string form', async () => {
    const d = await load(writeData([instance({ answer: 1300 })]));
    expect(d.questions[0]!.gold).toBe('1300');
  });

  it('rejects malformed instances, naming the file and the place', async () => {
    await expect(load(writeData([instance(), instance({ question_type: 'abstention' })]))).rejects.toThrow(
      /data\.json: \[1\]\.question_type: not a LongMemEval instance/,
    );
    await expect(load(writeData([instance({ haystack_dates: ['2023/05/20 (Sat) 09:00'] })]))).rejects.toThrow(
      /\[0\] \(c0ffee01\): haystack_session_ids \(2\), haystack_dates \(1\) and haystack_sessions \(2\) differ in length/,
    );
    await expect(load(writeData([instance(), instance()]))).rejects.toThrow(/\[1\]: question_id 'c0ffee01' appears twice/);
    await expect(load(writeData([]))).rejects.toThrow(/holds no LongMemEval instance/);
    const roles = instance();
    (roles.haystack_sessions as Array<Array<Record<string, unknown>>>)[0]![0]!.role = 'system';
    await expect(load(writeData([roles]))).rejects.toThrow(/\[0\]\.haystack_sessions\[0\]\[0\]\.role/);
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), '[{"question_id": "x",]');
    await expect(load(join(dir, 'bad.json'))).rejects.toThrow(/bad\.json: \[0\] \(bytes 1-22\): invalid JSON in element/);
  });

  it('warns about answer sessions missing from the haystack and undated formats', async () => {
    const d = await load(writeData([instance({ answer_session_ids: ['answer_zzz'], question_date: '30 May 2023' })]));
    const text = d.warnings.map((w) => w.message).join('\n');
    expect(text).toMatch(/answer_session_ids not in the haystack: answer_zzz/);
    expect(text).toMatch(/question_date '30 May 2023' not of the form/);
  });

  it('reads a folder by variant, and says how to fetch a missing file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'longmemeval_oracle.json'), JSON.stringify([instance()]));
    mkdirSync(join(dir, 'original'));
    writeFileSync(join(dir, 'original', 'longmemeval_oracle.json'), JSON.stringify([instance({ question_id: 'orig' })]));
    expect((await load(dir, { variant: 'oracle' })).questions[0]!.id).toBe('c0ffee01');
    expect((await load(dir, { variant: 'oracle_original' })).questions[0]!.id).toBe('orig');
    await expect(load(dir, { variant: 'm_cleaned' })).rejects.toThrow(
      /no longmemeval_m_cleaned\.json in this folder \(variant m_cleaned\)/,
    );
    await expect(load(dir, { variant: 'xl' })).rejects.toThrow(/-B variant: unknown LongMemEval variant 'xl'/);
  });

  it('checks per-type counts only on a full 500-question release', async () => {
    const full = [];
    let n = 0;
    for (const t of QUESTION_TYPES) {
      for (let i = 0; i < FULL_RELEASE.byType[t]; i++) full.push({ id: `q${n++}`, type: t, meta: { abstention: false } });
    }
    for (let i = 0; i < 30; i++) full[i * 7]!.meta.abstention = true;
    const asQuestions = full as unknown as Parameters<typeof checkCounts>[0];
    expect(checkCounts(asQuestions)).toEqual([]);
    full[0]!.type = 'multi-session';
    full[1]!.meta.abstention = true;
    expect(checkCounts(asQuestions).map((w) => w.message)).toEqual([
      '69 single-session-user questions, the release has 70',
      '134 multi-session questions, the release has 133',
      '31 abstention (_abs) questions, the release has 30',
    ]);
    expect(checkCounts(asQuestions.slice(1))[0]!.message).toMatch(/499 questions, not a full release/);
  });

  it('streams a large array without keeping turns: episodes hold a byte range, turns come back on demand', async () => {
    const many = Array.from({ length: 40 }, (_, i) => instance({ question_id: `q${i}`, question: `question ${i}` }));
    const d = await load(writeData(many), {}, 97);
    expect(d.questions).toHaveLength(40);
    expect(d.episodes[39]!.turns[2]!.text).toBe('I bought a bike today.');
    expect(d.episodes[0]!.turns.map((t) => t.id)).toEqual(['sharegpt_a_0:1', 'sharegpt_a_0:2', 'answer_c0ffee01:1', 'answer_c0ffee01:2']);
  });

  it('reads JSONL (one instance per line), as the official loaders also do', async () => {
    const file = join(tempDir(), 'data.jsonl');
    writeFileSync(file, [instance({ question_id: 'a' }), instance({ question_id: 'b' })].map((x) => JSON.stringify(x)).join('\n') + '\n');
    const d = await load(file);
    expect(d.questions.map((x) => x.id)).toEqual(['a', 'b']);
    expect(d.episodes[1]!.turns[2]!.text).toBe('I bought a bike today.');
  });

  it('warns when a file named like the pinned S release does not match its sha256', async () => {
    const d = await load(writeData([instance()], 'longmemeval_s_cleaned.json'));
    expect(d.warnings.map((w) => w.message).join('\n')).toMatch(
      /named like the s_cleaned release but its sha256 [0-9a-f]{12}\.\.\. differs from the pinned d6f21ea9d60a\.\.\./,
    );
    expect(d.source.version).toBe('LongMemEval s_cleaned (longmemeval_s_cleaned.json)');
  });

  it('refuses to re-read turns from a file that changed after loading', async () => {
    const file = writeData(Array.from({ length: 6 }, (_, i) => instance({ question_id: `q${i}` })));
    const d = await load(file);
    // Touch every episode: the small cache keeps only the last few, so q0 must come from disk again.
    for (const e of d.episodes) expect(e.turns).toHaveLength(4);
    writeFileSync(file, JSON.stringify([instance({ question_id: 'other' })]));
    expect(() => d.episodes[0]!.turns).toThrow(/data\.json: the data file changed after it was loaded/);
  });
});
