import { describe, expect, it } from 'vitest';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { meme, resolveMemeFile } from '../../../src/benchmarks/meme/index.js';
import { QuestionSchema, EpisodeSchema } from '../../../src/core/schema.js';
import { InputError } from '../../../src/util/errors.js';
import { ROOT, tempDir } from '../../helpers/cli.js';

const FIXTURE = join(ROOT, 'tests/fixtures/meme/meme_fixture.json');

async function loadMutated(mutate: (eps: any[]) => void): Promise<unknown> {
  const eps = JSON.parse(readFileSync(FIXTURE, 'utf8'));
  mutate(eps);
  const file = join(tempDir(), 'meme_bad.json');
  writeFileSync(file, JSON.stringify(eps));
  try {
    await meme.load({ path: file, options: {} });
  } catch (e) {
    return e;
  }
  return null;
}

describe('MEME loader on the constructed fixture', async () => {
  const ds = await meme.load({ path: FIXTURE, options: {} });

  it('reads both episodes: every message of every session is a turn, in session order', () => {
    expect(ds.episodes.map((e) => e.id)).toEqual(['pl_001', 'sw_001']);
    expect(ds.episodes.map((e) => e.turns.length)).toEqual([61, 61]);
    for (const e of ds.episodes) expect(() => EpisodeSchema.parse(e)).not.toThrow();
    const t = ds.episodes[0]!.turns[5]!;
    expect(t).toEqual({
      id: 's1:t1',
      session: 'evidence_fact_introduction_part_1a',
      date: '2023/03/01 (Wed) 14:00',
      speaker: 'user',
      text: 'I live in Seattle. Do you have any thoughts on that?',
      captions: [],
    });
    expect(ds.warnings).toEqual([]);
  });

  it('makes 24 questions: before blocks (ER, Del, Cas, Abs) and after blocks (all six tasks)', () => {
    expect(ds.questions).toHaveLength(24);
    for (const q of ds.questions) expect(() => QuestionSchema.parse(q)).not.toThrow();
    const types = ds.questions.map((q) => q.type);
    for (const t of ['ER', 'Agg', 'Tr', 'Del', 'Cas', 'Abs', 'ER (before)', 'Del (before)', 'Cas (before)', 'Abs (before)'])
      expect(types).toContain(t);
    expect(ds.questions[0]!.id).toBe('pl_001:before:0');
    expect(ds.questions.at(-1)!.id).toBe('sw_001:after:6');
  });

  it('sets each block to see exactly the sessions up to position_after_session (inclusive)', () => {
    const pl = ds.questions.filter((q) => q.episode === 'pl_001');
    // pl_001: before at session 8 (sessions 0-8 hold 52 messages), after at session 10 (all 61).
    expect(new Set(pl.filter((q) => q.meta!.phase === 'before').map((q) => q.visibleTurns))).toEqual(new Set([52]));
    expect(new Set(pl.filter((q) => q.meta!.phase === 'after').map((q) => q.visibleTurns))).toEqual(new Set([61]));
    const sw = ds.questions.filter((q) => q.episode === 'sw_001' && q.meta!.phase === 'before');
    expect(sw[0]!.visibleTurns).toBe(48);
    expect(sw[0]!.questionDate).toBe(JSON.parse(readFileSync(FIXTURE, 'utf8'))[1].before_questions.timestamp);
  });

  it('gives the judge gold from entity_values and keeps gold_answer / expected_answer as gold', () => {
    const del = ds.questions.find((q) => q.id === 'pl_001:after:3')!;
    expect(del.gold).toBe('No — explicitly removed');
    expect(del.meta).toMatchObject({ phase: 'after', task: 'Del', entity: 'food_allergy', entity_values: { food_allergy: 'peanuts' } });
    const cas2 = ds.questions.find((q) => q.id === 'pl_001:before:3')!;
    expect(cas2.gold).toBe('40 minutes');
    expect(cas2.meta).toMatchObject({ phase: 'before', task: 'Cas', hop: 2 });
  });

  it('points evidence at the turns whose gold_facts state the judged values (0-based conveyed_in_turn)', () => {
    const byId = new Map(ds.questions.map((q) => [q.id, q]));
    expect(byId.get('pl_001:after:2')!.evidence).toEqual(['s1:t3', 's3:t1', 's5:t1']); // Tr: Acme, Globex, Initech
    expect(byId.get('pl_001:after:1')!.evidence).toEqual(['s7:t1', 's7:t3', 's7:t5']); // Agg: three entities
    expect(byId.get('pl_001:after:3')!.evidence).toEqual(['s3:t7', 's9:t3']); // Del: introduced, then deleted
    expect(byId.get('pl_001:after:4')!.evidence).toEqual(['s3:t5']); // Cas: the if-then fact stating the new value
    // Before the change event the deletion turn does not exist yet.
    expect(byId.get('pl_001:before:1')!.evidence).toEqual(['s3:t7']);
    const turnText = (id: string) => ds.episodes[0]!.turns.find((t) => t.id === id)!.text;
    expect(turnText('s3:t5')).toContain('light rail');
  });

  it('offers the three release files for `rawrag data pull` (unpinned: no published checksums)', () => {
    expect(Object.keys(meme.downloads!)).toEqual(['filler32k', 'filler128k', 'nofiller']);
    expect(meme.downloads!.filler32k).toEqual([
      {
        url: 'https://huggingface.co/datasets/meme-benchmark/MEME/resolve/main/meme_filler32k.json',
        path: 'datasets/meme/meme_filler32k.json',
        sha256: null,
      },
    ]);
    expect(meme.defaultData).toBe('datasets/meme');
  });

  it('takes the file by -B variant when --data is a folder', async () => {
    const dir = tempDir();
    copyFileSync(FIXTURE, join(dir, 'meme_nofiller.json'));
    expect(resolveMemeFile(dir, 'nofiller')).toBe(join(dir, 'meme_nofiller.json'));
    expect(() => resolveMemeFile(dir, undefined)).toThrow(/no meme_filler32k\.json/);
    expect(() => resolveMemeFile(dir, 'filler64k')).toThrow(/unknown MEME variant 'filler64k'/);
    const viaFolder = await meme.load({ path: dir, options: { variant: 'nofiller' } });
    expect(viaFolder.questions).toHaveLength(24);
    expect(viaFolder.source.version).toContain('meme_nofiller.json');
  });
});

describe('MEME loader reports values no gold fact states (one warning)', () => {
  it('leaves such questions without gold evidence and says how many', async () => {
    const eps = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    eps[0].after_questions.questions[4].entity_values.commute_method = 'scooter';
    const file = join(tempDir(), 'meme_x.json');
    writeFileSync(file, JSON.stringify(eps));
    const ds = await meme.load({ path: file, options: {} });
    expect(ds.warnings).toHaveLength(1);
    expect(ds.warnings[0]!.place).toBe(
      "1 of 24 questions (e.g. pl_001:after:4 ([0].after_questions.questions[4]: commute_method='scooter'))",
    );
    expect(ds.questions.find((q) => q.id === 'pl_001:after:4')!.evidence).toEqual([]);
  });
});

describe('MEME loader rejects files that are not the release format, naming field and place', () => {
  const cases: Array<[string, (eps: any[]) => void, RegExp]> = [
    [
      'a missing gold_answer',
      (e) => delete e[0].after_questions.questions[1].gold_answer,
      /\[0\]\.after_questions\.questions\[1\]\.gold_answer/,
    ],
    [
      'an unknown task type',
      (e) => (e[1].after_questions.questions[0].task_type = 'Exact'),
      /\[1\]\.after_questions\.questions\[0\]\.task_type/,
    ],
    [
      'ER asked before the change as Agg',
      (e) => (e[0].before_questions.questions[0].task_type = 'Agg'),
      /\[0\]\.before_questions\.questions\[0\]\.task_type/,
    ],
    [
      'a Cas question without hop',
      (e) => delete e[0].after_questions.questions[4].hop,
      /Cas question without hop.*|after_questions\.questions\[4\]\.hop/,
    ],
    ['an evidence session without gold_facts', (e) => delete e[0].sessions[1].gold_facts, /sessions\[1\]\.gold_facts/],
    [
      'a message without content',
      (e) => delete e[0].sessions[2].conversation[1].content,
      /\[0\]\.sessions\[2\]\.conversation\[1\]\.content/,
    ],
    [
      'a position past the last session',
      (e) => (e[0].after_questions.position_after_session = 11),
      /after_questions\.position_after_session.*past the last session/,
    ],
    ['total_sessions that disagrees', (e) => (e[0].total_sessions = 12), /\[0\]\.total_sessions/],
    ['evidence indices that disagree', (e) => (e[0].evidence_session_indices = [1, 3]), /evidence_session_indices/],
    [
      'a conveyed_in_turn past the session',
      (e) => (e[0].sessions[1].gold_facts[0].conveyed_in_turn = 99),
      /sessions\[1\]\.gold_facts\[0\]\.conveyed_in_turn/,
    ],
    ['an entity without entity_values', (e) => e[0].after_questions.questions[1].entity.push('cat'), /entity 'cat' has no entry/],
    ['a duplicated episode', (e) => (e[1].episode_id = 'pl_001'), /episode_id 'pl_001' appears twice/],
    ['a timestamp that is missing', (e) => delete e[1].sessions[0].timestamp, /\[1\]\.sessions\[0\]\.timestamp/],
  ];
  for (const [name, mutate, place] of cases) {
    it(`${name}`, async () => {
      const err = await loadMutated(mutate);
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toMatch(place);
      expect((err as Error).message).toContain('meme_bad.json');
    });
  }
});
