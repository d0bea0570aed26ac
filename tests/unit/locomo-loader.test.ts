import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { locomo, parseCategories } from '../../src/benchmarks/locomo/index.js';
import { parseEvidence } from '../../src/benchmarks/locomo/evidence.js';
import { QuestionSchema, EpisodeSchema } from '../../src/core/schema.js';
import { InputError } from '../../src/util/errors.js';
import { ROOT, tempDir } from '../helpers/cli.js';

const DATA = join(ROOT, 'datasets/locomo/locomo10.json');

describe('LoCoMo loader on the bundled release', async () => {
  const ds = await locomo.load({ path: DATA, options: {} });

  it('loads 10 conversations, 272 sessions and 5,882 turns', () => {
    expect(ds.episodes.map((e) => e.id)).toEqual([
      'conv-26',
      'conv-30',
      'conv-41',
      'conv-42',
      'conv-43',
      'conv-44',
      'conv-47',
      'conv-48',
      'conv-49',
      'conv-50',
    ]);
    expect(ds.episodes.reduce((s, e) => s + e.turns.length, 0)).toBe(5882);
    expect(new Set(ds.episodes.flatMap((e) => e.turns.map((t) => `${e.id}/${t.session}`))).size).toBe(272);
  });

  it('selects categories 1-4 by default: 1,540 questions with the true category names', () => {
    expect(ds.questions).toHaveLength(1540);
    const count = (t: string) => ds.questions.filter((q) => q.type === t).length;
    expect([count('multi-hop'), count('temporal'), count('open-domain'), count('single-hop')]).toEqual([282, 321, 96, 841]);
    const ids = new Map(ds.questions.map((q) => [q.type, q.typeId]));
    expect(Object.fromEntries(ids)).toEqual({ 'multi-hop': 1, temporal: 2, 'open-domain': 3, 'single-hop': 4 });
  });

  it('uses stable ids <sample_id>:q<index in the original qa list>', () => {
    expect(ds.questions[0]!.id).toBe('conv-26:q0');
    expect(ds.questions[0]!.text).toBe('When did Caroline go to the LGBTQ support group?');
    expect(new Set(ds.questions.map((q) => q.id)).size).toBe(1540);
    // Category-5 items are skipped but keep their slot in the numbering.
    const idx = ds.questions.filter((q) => q.episode === 'conv-26').map((q) => q.id);
    expect(idx).toHaveLength(152);
    expect(idx.at(-1)).toBe('conv-26:q151');
  });

  it('keeps integer answers as strings and every record passes the schema', () => {
    expect(ds.questions.filter((q) => /^\d+$/.test(q.gold)).length).toBeGreaterThanOrEqual(6);
    for (const q of ds.questions) expect(QuestionSchema.safeParse(q).success).toBe(true);
    for (const e of ds.episodes) expect(EpisodeSchema.safeParse(e).success).toBe(true);
  });

  it('carries image captions on image turns (1,226 of them)', () => {
    const withCaption = ds.episodes.flatMap((e) => e.turns).filter((t) => t.captions.length > 0);
    expect(withCaption).toHaveLength(1226);
    const d15 = ds.episodes[0]!.turns.find((t) => t.id === 'D1:5')!;
    expect(d15.captions).toEqual(['a photo of a dog walking past a wall with a painting of a woman']);
  });

  it('takes dates from session_<n>_date_time and ignores date keys without sessions', () => {
    const e = ds.episodes[0]!;
    expect(e.turns[0]!.date).toBe('1:56 pm on 8 May, 2023');
    expect(new Set(e.turns.map((t) => t.session)).size).toBe(19);
  });

  it('parses every evidence form and reports, not drops, the malformed ones', () => {
    const multi = ds.questions.find((q) => q.evidence.includes('D8:6') && q.evidence.includes('D9:17'));
    expect(multi).toBeDefined();
    expect(ds.questions.filter((q) => q.evidence.length > 0)).toHaveLength(1536);
    const msgs = ds.warnings.map((w) => `${w.place} ${w.message}`);
    expect(msgs.some((m) => m.includes("'D'") && m.includes('conv-42:q88'))).toBe(true);
    expect(msgs.some((m) => m.includes("'D10:19'"))).toBe(true);
    expect(msgs.some((m) => m.includes("'D30:05' repaired to 'D30:5'"))).toBe(true);
    expect(msgs.some((m) => m.includes("'D:11:26' repaired to 'D11:26'"))).toBe(true);
    expect(msgs.filter((m) => m.includes('no gold evidence given'))).toHaveLength(4);
  });
});

describe('LoCoMo categories and evidence parsing', () => {
  it('parses -B categories and rejects unknown ones', () => {
    expect(parseCategories('4,1,1')).toEqual([1, 4]);
    expect(parseCategories(undefined)).toEqual([1, 2, 3, 4]);
    expect(() => parseCategories('1,7')).toThrow(/unknown LoCoMo category '7'/);
    expect(() => parseCategories(' , ')).toThrow(InputError);
  });

  it('category 5 uses adversarial_answer', async () => {
    const ds = await locomo.load({ path: DATA, options: { categories: '5' } });
    expect(ds.questions).toHaveLength(446);
    // Skipped categories keep their slot in the numbering: conv-26's adversarial items start at q152.
    expect(ds.questions[0]!.id).toBe('conv-26:q152');
    expect(ds.questions.every((q) => q.type === 'adversarial' && q.gold.length > 0)).toBe(true);
  });

  it('splits combined evidence strings', () => {
    const known = new Set(['D1:1', 'D2:3', 'D4:4', 'D4:6']);
    expect(parseEvidence(['D1:1; D2:3'], known)).toEqual({ ids: ['D1:1', 'D2:3'], problems: [] });
    expect(parseEvidence(['D4:4 D4:6', 'D4:4'], known).ids).toEqual(['D4:4', 'D4:6']);
    const bad = parseEvidence(['D', 'D9:9'], known);
    expect(bad.ids).toEqual([]);
    expect(bad.problems).toHaveLength(2);
  });
});

describe('LoCoMo loader rejects bad files with file and place', () => {
  const dir = tempDir();
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('invalid JSON names the line', async () => {
    const p = write('bad.json', '[\n{"sample_id": "x",\n oops}]');
    await expect(locomo.load({ path: p, options: {} })).rejects.toThrow(/bad\.json: line 3/);
  });

  it('a missing field names its path', async () => {
    const p = write(
      'nofield.json',
      JSON.stringify([{ sample_id: 's', conversation: { session_1: [] }, qa: [{ question: 'q', evidence: [] }] }]),
    );
    await expect(locomo.load({ path: p, options: {} })).rejects.toThrow(/nofield\.json: \[0\]\.qa\[0\]\.category/);
  });

  it('an unknown category in the file is an error', async () => {
    const conv = { speaker_a: 'A', speaker_b: 'B', session_1: [{ speaker: 'A', dia_id: 'D1:1', text: 'hi' }] };
    const p = write(
      'cat.json',
      JSON.stringify([{ sample_id: 's', conversation: conv, qa: [{ question: 'q', answer: 'a', evidence: [], category: 9 }] }]),
    );
    await expect(locomo.load({ path: p, options: {} })).rejects.toThrow(/\[0\]\.qa\[0\]\.category: unknown category 9/);
  });

  it('a turn without text names the turn', async () => {
    const conv = { session_1: [{ speaker: 'A', dia_id: 'D1:1' }] };
    const p = write('turn.json', JSON.stringify([{ sample_id: 's', conversation: conv, qa: [] }]));
    await expect(locomo.load({ path: p, options: {} })).rejects.toThrow(/session_1\[0\]\.text/);
  });
});
