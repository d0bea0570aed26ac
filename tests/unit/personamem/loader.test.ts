import { describe, expect, it } from 'vitest';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { personamem } from '../../../src/benchmarks/personamem/index.js';
import { EpisodeSchema, QuestionSchema } from '../../../src/core/schema.js';
import { InputError } from '../../../src/util/errors.js';
import { ROOT, tempDir } from '../../helpers/cli.js';

const ROOT_DIR = join(ROOT, 'tests/fixtures/personamem');
const CSV = join(ROOT_DIR, 'benchmark/text/benchmark.csv');

/** A copy of the fixture tree with the CSV text changed. */
async function loadEdited(edit: (csv: string) => string, options: Record<string, string> = {}): Promise<unknown> {
  const dir = tempDir();
  cpSync(ROOT_DIR, dir, { recursive: true });
  const csv = join(dir, 'benchmark/text/benchmark.csv');
  writeFileSync(csv, edit(readFileSync(csv, 'utf8')));
  try {
    await personamem.load({ path: dir, options });
  } catch (e) {
    return e;
  }
  return null;
}

describe('PersonaMem-v2 loader on the constructed fixture', async () => {
  const ds = await personamem.load({ path: ROOT_DIR, options: {} });

  it('reads every row as a question and every linked history as one episode', () => {
    expect(ds.questions).toHaveLength(8);
    expect(ds.episodes.map((e) => e.id)).toEqual(['chat_history_250913_163134_persona0', 'chat_history_250913_163134_persona1']);
    for (const e of ds.episodes) expect(() => EpisodeSchema.parse(e)).not.toThrow();
    for (const q of ds.questions) expect(() => QuestionSchema.parse(q)).not.toThrow();
    expect(ds.questions.map((q) => q.id)).toEqual(['row0', 'row1', 'row2', 'row3', 'row4', 'row5', 'row6', 'row7']);
    expect(ds.source.path).toBe(CSV);
    expect(ds.source.version).toContain('mcq protocol verl');
  });

  it('parses user_query (Python dict literal) and takes its content as the question', () => {
    expect(ds.questions[0]!.text).toBe('Can you suggest a dinner recipe for tonight?');
    expect(ds.questions[1]!.text).toBe("I'm writing to my manager about a deadline slip, can you draft it?");
    expect(ds.questions[3]!.text).toBe('Any ideas for a weekend activity? I want something "fun".');
  });

  it('drops the persona-profile system message, keeps "Please forget" turns and the text of multimodal parts', () => {
    const p0 = ds.episodes[0]!;
    expect(p0.turns[0]!.id).toBe('m1'); // m0 was the system prompt with the persona
    expect(p0.turns.some((t) => t.speaker === 'system')).toBe(false);
    expect(p0.turns.map((t) => t.text)).toContain('Please forget that I told you about my knee surgery last spring.');
    expect(p0.meta).toMatchObject({ persona_profile_dropped: true, persona_id: 0 });
    expect(ds.episodes[1]!.turns[0]).toMatchObject({ id: 'm1', speaker: 'user', text: 'Here is a photo of my garden.', date: null });
  });

  it('points evidence at the history messages of related_conversation_snippet', () => {
    expect(ds.questions[0]!.evidence).toEqual(['m5']);
    expect(ds.questions[4]!.evidence).toEqual(['m11']);
    expect(ds.questions.every((q) => q.evidence.length === 1)).toBe(true);
    expect(ds.warnings).toEqual([]);
  });

  it('orders the options with random.seed(42 + row) and records the correct letter (verl default)', () => {
    // Letters computed by CPython: random.seed(42 + idx); random.shuffle(all_answers[:4]).
    expect(ds.questions.map((q) => (q.meta!.correct_letters as string[]).join(''))).toEqual(['d', 'd', 'b', 'a', 'd', 'c', 'c', 'd']);
    const q0 = ds.questions[0]!;
    expect(q0.options).toHaveLength(4);
    expect(q0.options![3]).toBe('A chickpea and spinach curry with rice.');
    expect(q0.meta).toMatchObject({
      protocol: 'verl',
      seed: 42,
      row: 0,
      persona_id: 0,
      pref_type: 'stereotypical_pref',
      who: 'self',
      updated: 'False',
    });
    expect(ds.questions[7]!.meta).toMatchObject({ who: 'others' });
    expect(ds.questions[4]!.meta).toMatchObject({ updated: 'True', pref_type: 'ask_to_forget' });
  });

  it('switches to the frontier protocol and the 128k histories by option', async () => {
    const f = await personamem.load({ path: CSV, options: { mcqProtocol: 'frontier', historySize: '128k' } });
    expect(f.questions.map((q) => (q.meta!.correct_letters as string[]).join(''))).toEqual(['D', 'D', 'B', 'A', 'D', 'C', 'C', 'D']);
    expect(f.questions[0]!.meta!.letters).toEqual(['A', 'B', 'C', 'D']);
    expect(f.episodes[0]!.id).toBe('chat_history_250913_170000_persona0');
    expect(f.episodes[0]!.turns.length).toBeGreaterThan(ds.episodes[0]!.turns.length);
    expect(f.source.version).toContain('128k histories; mcq protocol frontier');
  });
});

describe('PersonaMem-v2 loader rejects input that differs from the release, naming the place', () => {
  const cases: Array<[string, (csv: string) => string, RegExp, Record<string, string>?]> = [
    ['a missing column', (c) => c.replace('pref_type,', 'preference_type,'), /header: missing column\(s\) pref_type/],
    ['an unknown pref_type', (c) => c.replace(',stereotypical_pref,', ',weird_pref,'), /row 0 \(line 2\)\.pref_type/],
    [
      'a user_query that is no literal',
      (c) => c.replace(`"{'role': 'user', 'content': 'Can you suggest a dinner recipe for tonight?'}"`, 'not a dict'),
      /row 0 \(line 2\)\.user_query: neither JSON nor a Python literal/,
    ],
    [
      'a user_query without content',
      (c) => c.replace(`'content': 'Can you suggest`, `'text': 'Can you suggest`),
      /row 0 \(line 2\)\.user_query: not a \{'role', 'content'\} message/,
    ],
    [
      'a link to a missing history',
      (c) => c.replace('chat_history_250913_163134_persona1.json', 'nope.json'),
      /row 5 \(line \d+\)\.chat_history_32k_link: chat history 'data\/chat_history_32k\/nope\.json' not found/,
    ],
    ['a bad persona_id', (c) => c.replace(/\r\n0,data/, '\r\nzero,data'), /row 0 \(line 2\)\.persona_id: not a whole number/],
    ['a broken quote', (c) => c.replace(',A chickpea', ',"A "chickpea'), /not a valid CSV: line 2/],
    ['an unknown protocol', (c) => c, /-B mcq-protocol: 'v3' is not one of verl, frontier/, { mcqProtocol: 'v3' }],
  ];
  for (const [name, edit, re, options] of cases) {
    it(name, async () => {
      const err = await loadEdited(edit, options);
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toMatch(re);
    });
  }

  it('a row with fewer than 4 options cannot be asked under verl', async () => {
    const err = await loadEdited((c) => c.replace('"[""A grilled steak with peppercorn sauce."", ', '"['));
    expect((err as Error).message).toMatch(/row 0 \(line 2\)\.incorrect_answers: protocol verl needs 4 options; the row has 3/);
  });
});
