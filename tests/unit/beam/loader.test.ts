/** The BEAM loader on the real 100K conversation (tests/fixtures/beam/100K/5, see SOURCE.md). */
import { describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beam } from '../../../src/benchmarks/beam/index.js';
import { ABILITIES } from '../../../src/benchmarks/beam/format.js';
import { flattenChatIds, parseSizes } from '../../../src/benchmarks/beam/load.js';
import { EpisodeSchema, QuestionSchema } from '../../../src/core/schema.js';
import { InputError } from '../../../src/util/errors.js';
import { ROOT, tempDir } from '../../helpers/cli.js';

const CONV = join(ROOT, 'tests/fixtures/beam/100K/5');

/** A BEAM checkout layout (chats/100K/5) around a copy of the fixture, optionally edited. */
function checkout(edit?: (convDir: string) => void): string {
  const root = tempDir('rawrag-beam-');
  const dir = join(root, 'chats', '100K', '5');
  mkdirSync(dir, { recursive: true });
  cpSync(CONV, dir, { recursive: true });
  edit?.(dir);
  return root;
}

const editJson = (file: string, f: (v: any) => void) => {
  const v = JSON.parse(readFileSync(file, 'utf8'));
  f(v);
  writeFileSync(file, JSON.stringify(v));
};

async function loadError(root: string, options: Record<string, string> = {}): Promise<InputError> {
  try {
    await beam.load({ path: root, options });
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('expected the load to fail');
}

describe('BEAM loader on the shared 100K conversation', async () => {
  const ds = await beam.load({ path: CONV, options: {} });
  const ep = ds.episodes[0]!;

  it('reads chat_trunecated.json (preferred, as the official runner): 232 messages, 3 batches', () => {
    expect(ds.episodes).toHaveLength(1);
    expect(ep.id).toBe('100K/5');
    expect(ep.turns).toHaveLength(232);
    expect(ep.meta).toMatchObject({ size: '100K', conversation: '5', chat_files: ['chat_trunecated.json'], batches: 3, messages: 232 });
    expect(() => EpisodeSchema.parse(ep)).not.toThrow();
  });

  it('carries message ids, batches and time_anchor dates into turns', () => {
    expect(ep.turns.map((t) => t.id)).toEqual(Array.from({ length: 232 }, (_, i) => String(i)));
    expect([...new Set(ep.turns.map((t) => t.session))]).toEqual(['batch-1', 'batch-2', 'batch-3']);
    // One anchor per batch, on its first user message; every later message inherits it.
    expect([
      ep.turns[0]!.date,
      ep.turns[67]!.date,
      ep.turns[68]!.date,
      ep.turns[137]!.date,
      ep.turns[138]!.date,
      ep.turns[231]!.date,
    ]).toEqual(['January-10-2024', 'January-10-2024', 'February-15-2024', 'February-15-2024', 'April-05-2024', 'April-05-2024']);
    expect(ep.turns[68]!.session).toBe('batch-2');
    expect(ep.turns.slice(0, 2).map((t) => t.speaker)).toEqual(['user', 'assistant']);
    expect(ep.turns[0]!.text).toMatch(/^I'm trying to figure out what day it will be in a week from January 10, 2024/);
  });

  it('has 20 questions, 2 per ability, ids <size>/<conversation>:<ability>:<index>', () => {
    expect(ds.questions).toHaveLength(20);
    expect(ds.questions.map((q) => q.type)).toEqual(ABILITIES.flatMap((a) => [a, a]));
    expect(ds.questions[0]!.id).toBe('100K/5:abstention:0');
    expect(ds.questions[19]!.id).toBe('100K/5:temporal_reasoning:1');
    for (const q of ds.questions) expect(() => QuestionSchema.parse(q)).not.toThrow();
    expect(ds.warnings).toEqual([]);
  });

  it("takes the gold from the ability's own field, the rubric and evidence into meta/evidence", () => {
    const by = (id: string) => ds.questions.find((q) => q.id === id)!;
    const ku = by('100K/5:knowledge_update:0');
    expect(ku.gold).toBe('4 hours in total, with an extra hour specifically spent practicing dice roll problems');
    expect(ku.evidence).toEqual(['44', '62']); // source_chat_ids {original_info: [44], updated_info: [62]}
    expect(ku.meta).toMatchObject({
      ability: 'knowledge_update',
      rubric: ['LLM response should state: 4 hours in total'],
      subtype: 'study_duration_extension',
      difficulty: 'easy',
      official_defects: true,
      size: '100K',
    });
    expect(by('100K/5:abstention:0').gold).toMatch(/^Based on the provided chat, there is no information/);
    expect(by('100K/5:abstention:0').evidence).toEqual([]);
    expect(by('100K/5:abstention:0').meta!.plan_reference).toBe('Batch 1, Bullet 13');
    expect(by('100K/5:contradiction_resolution:0').gold).toMatch(/^I notice you've mentioned contradictory information/);
    expect(by('100K/5:instruction_following:0').gold).toMatch(/^Response should include a clear, sequential explanation/);
    expect(by('100K/5:summarization:0').gold).toMatch(/^Your understanding of probability progressed/);
    const eo = by('100K/5:event_ordering:0');
    expect(eo.evidence).toEqual(['6', '10', '14', '34', '16', '18', '30', '20', '24', '50', '56', '58']);
    expect(eo.meta!.rubric).toHaveLength(6);
  });

  it('records a fingerprint of every file read', () => {
    expect(ds.source.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(ds.source.bytes).toBe(
      readFileSync(join(CONV, 'chat_trunecated.json')).length + readFileSync(join(CONV, 'probing_questions/probing_questions.json')).length,
    );
  });

  it('the official rubric is the default; -B beam-rubric=corrected travels with every question', async () => {
    const off = await beam.load({ path: CONV, options: { beamOfficialDefects: 'true' } });
    expect(off.questions.every((q) => q.meta!.official_defects === true)).toBe(true);
    const corrected = await beam.load({ path: CONV, options: { beamRubric: 'corrected' } });
    expect(corrected.questions.every((q) => q.meta!.official_defects === false)).toBe(true);
    await expect(beam.load({ path: CONV, options: { beamRubric: 'fixed' } })).rejects.toThrow(/-B beam-rubric/);
  });
});

describe('BEAM layouts and the size option', () => {
  it('reads chat.json when there is no truncated chat (238 messages)', async () => {
    const root = checkout((d) => rmSync(join(d, 'chat_trunecated.json')));
    const ds = await beam.load({ path: root, options: {} });
    expect(ds.episodes[0]!.turns).toHaveLength(238);
    expect(ds.episodes[0]!.meta!.chat_files).toEqual(['chat.json']);
  });

  it('finds conversations from a checkout, chats/ or a size folder alike', async () => {
    const root = checkout();
    for (const p of [root, join(root, 'chats'), join(root, 'chats', '100K')]) {
      const ds = await beam.load({ path: p, options: { size: '100K' } });
      expect(ds.episodes.map((e) => e.id)).toEqual(['100K/5']);
      expect(ds.questions).toHaveLength(20);
    }
    expect((await beam.load({ path: root, options: { size: 'all' } })).episodes).toHaveLength(1);
  });

  it('rejects sizes that are unknown or absent', async () => {
    expect(() => parseSizes('2M')).toThrow(/unknown BEAM size '2M'/);
    expect(parseSizes('1m, 100k')).toEqual(['1M', '100K']);
    expect(parseSizes('all')).toBeNull();
    expect((await loadError(checkout(), { size: '500K' })).message).toMatch(/size folder 500K not found/);
    expect((await loadError(CONV, { size: '1M' })).message).toMatch(/belongs to size 100K/);
    expect((await loadError(join(checkout(), 'chats', '100K'), { size: '10M' })).message).toMatch(/holds size 100K, not 10M/);
  });

  it('flattens source_chat_ids of every shape', () => {
    expect(flattenChatIds([1, [2, 3], { a: [4], b: 5 }, '6', 1])).toEqual({ ids: ['1', '2', '3', '4', '5', '6'], odd: [] });
    expect(flattenChatIds({ first_statement: [7], second_statement: 'later' })).toEqual({ ids: ['7'], odd: ['later'] });
    expect(flattenChatIds(undefined)).toEqual({ ids: [], odd: [] });
  });

  it('warns about evidence ids the (truncated) chat does not hold, and drops them', async () => {
    const root = checkout((d) =>
      editJson(join(d, 'probing_questions/probing_questions.json'), (p) => {
        p.information_extraction[0].source_chat_ids = [16, 236];
      }),
    );
    const ds = await beam.load({ path: root, options: {} });
    expect(ds.questions.find((q) => q.id === '100K/5:information_extraction:0')!.evidence).toEqual(['16']);
    expect(ds.warnings).toEqual([
      {
        place: '100K/5:information_extraction:0 (information_extraction[0].source_chat_ids)',
        message: 'message ids not in the chat read (truncated away?): 236',
      },
    ]);
  });
});

describe('BEAM strict validation names the file and the place', () => {
  const chat = (d: string) => join(d, 'chat_trunecated.json');
  const probing = (d: string) => join(d, 'probing_questions/probing_questions.json');
  const cases: Array<[string, (d: string) => void, RegExp]> = [
    [
      'a bad role',
      (d) => editJson(chat(d), (c) => (c[0].turns[1][0].role = 'system')),
      /chat_trunecated\.json: \[0\]\.turns\[1\]\[0\]\.role: not a BEAM chat file/,
    ],
    ['a string id', (d) => editJson(chat(d), (c) => (c[1].turns[0][1].id = 'x')), /\[1\]\.turns\[0\]\[1\]\.id/],
    ['a repeated id', (d) => editJson(chat(d), (c) => (c[2].turns[0][0].id = 3)), /\[2\]\.turns\[0\]\[0\]\.id: message id 3 appears twice/],
    [
      'an unknown question_type',
      (d) => editJson(chat(d), (c) => (c[0].turns[0][0].question_type = 'chit_chat')),
      /\[0\]\.turns\[0\]\[0\]\.question_type/,
    ],
    [
      'an unknown ability',
      (d) => editJson(probing(d), (p) => (p.memory_magic = [])),
      /probing_questions\.json: memory_magic: unknown ability/,
    ],
    [
      'an empty rubric',
      (d) => editJson(probing(d), (p) => (p.summarization[1].rubric = [])),
      /summarization\[1\]\.rubric: not a BEAM probing question: rubric is empty/,
    ],
    [
      'a missing gold field',
      (d) => editJson(probing(d), (p) => delete p.temporal_reasoning[0].answer),
      /temporal_reasoning\[0\]\.answer: temporal_reasoning question has no 'answer' string/,
    ],
    ['no probing questions', (d) => rmSync(probing(d)), /5: no probing_questions\/probing_questions\.json/],
  ];
  for (const [name, edit, pattern] of cases) {
    it(name, async () => {
      const e = await loadError(checkout(edit));
      expect(e.message).toMatch(pattern);
    });
  }

  it('a folder holding no conversations', async () => {
    const empty = tempDir('rawrag-beam-empty-');
    mkdirSync(join(empty, 'chats', '100K', '7'), { recursive: true });
    expect((await loadError(empty)).message).toMatch(/7: no chat_trunecated\.json, chat\.json or plan-<k>\/ folders/);
  });
});
