/**
 * The rule-based wrong answers of `rawrag calibrate-judge`: each rule on a small episode, the same
 * set for the same seed, and on the real LoCoMo file how many probes each rule makes.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT } from '../../helpers/cli.js';
import { perturb } from '../../../src/calibrate/perturb.js';
import { buildProbes } from '../../../src/calibrate/probes.js';
import { cohenKappa } from '../../../src/stats/cohen.js';
import { locomo } from '../../../src/benchmarks/locomo/index.js';
import type { Episode, Question } from '../../../src/core/schema.js';

const episode: Episode = {
  id: 'e1',
  turns: [
    {
      id: 'D1:1',
      session: 's1',
      date: null,
      speaker: 'Ann',
      text: 'I went with my friend Bob to see Paris last week, and then Bob left.',
      captions: [],
    },
    {
      id: 'D1:2',
      session: 's1',
      date: null,
      speaker: 'Cid',
      text: 'Nice, say hi to Bob and to Dora from me. We met Dora in Paris too.',
      captions: [],
    },
  ],
  meta: { speakers: ['Ann', 'Cid'] },
};
const q = (id: string, text: string, gold: string, type = 'single-hop'): Question => ({
  id,
  episode: 'e1',
  type,
  typeId: 4,
  text,
  gold,
  acceptable: [gold],
  questionDate: null,
  evidence: [],
  options: null,
  visibleTurns: null,
});
const kinds = (qq: Question, same: Question[] = [], seed = 0) =>
  Object.fromEntries(perturb(qq, episode, same, seed).map((p) => [p.kind, p]));

describe('perturbations', () => {
  it('dates: shifted (specific) and dropped to "some time that year" (vague)', () => {
    const p = kinds(q('a', 'When did Ann go to the park?', '7 May 2023'));
    expect(p.specific!.rules).toEqual(['date-shift']);
    expect(p.specific!.answer).toMatch(/^\d{1,2} [A-Z][a-z]+ \d{4}$/);
    expect(p.specific!.answer).not.toBe('7 May 2023');
    expect(p.vague).toMatchObject({ answer: 'some time that year', rules: ['date-vague'] });
  });

  it('numbers: changed (specific) and "a few" (vague)', () => {
    const p = kinds(q('b', 'How long has Ann had turtles?', '3 years'));
    expect(p.specific!.rules).toEqual(['number']);
    expect(p.specific!.answer).toMatch(/^\d+ years$/);
    expect(p.specific!.answer).not.toBe('3 years');
    expect(p.vague).toMatchObject({ answer: 'a few years', rules: ['count-vague'] });
  });

  it('names: swapped with another name of the conversation (specific) and a role word (vague)', () => {
    const p = kinds(q('c', 'Who went with Ann?', 'Bob'));
    expect(p.specific!.rules).toEqual(['name-swap']);
    expect(['Ann', 'Cid', 'Dora', 'Paris']).toContain(p.specific!.answer);
    expect(p.vague).toMatchObject({ answer: 'someone', rules: ['name-vague'] });
    expect(kinds(q('d', 'Where did Ann go?', 'Paris')).vague!.answer).toBe('somewhere');
    expect(kinds(q('e', 'Who said hi?', 'Cid')).vague!.answer).toBe('a friend');
  });

  it('no specifics: another answer of the same type and conversation (specific), the topic only (vague)', () => {
    const target = q('f', 'What kind of art does Ann make?', 'abstract art');
    const other = q('g', 'What does Cid cook?', 'pasta with clams');
    const p = kinds(target, [target, other]);
    expect(p.specific).toMatchObject({ answer: 'pasta with clams', rules: ['other-answer'] });
    expect(p.vague).toMatchObject({ answer: 'Something to do with art.', rules: ['topic-only'] });
    // Without another question there is no specific-but-wrong answer: none is made up.
    expect(kinds(target, [target]).specific).toBeUndefined();
  });

  it('is the same for the same seed and may differ for another', () => {
    const qq = q('h', 'When?', '12 March 2021');
    expect(perturb(qq, episode, [], 3)).toEqual(perturb(qq, episode, [], 3));
    const answers = new Set([0, 1, 2, 3, 4, 5].map((s) => perturb(qq, episode, [], s)[0]!.answer));
    expect(answers.size).toBeGreaterThan(1);
  });

  it('on the bundled LoCoMo file: one gold probe per question, 1,540 specific and 1,537 vague', async () => {
    const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    const probes = buildProbes(ds, ds.questions, 0, null);
    const count = (k: string) => probes.filter((p) => p.kind === k).length;
    expect([count('gold'), count('specific'), count('vague')]).toEqual([1540, 1540, 1537]);
    const rules = new Map<string, number>();
    for (const p of probes) for (const r of p.rules) rules.set(r, (rules.get(r) ?? 0) + 1);
    expect(Object.fromEntries(rules)).toEqual({
      'date-shift': 265,
      number: 98,
      'name-swap': 152,
      'other-answer': 1038,
      'date-vague': 265,
      'count-vague': 113,
      'name-vague': 152,
      'topic-only': 1035,
    });
    // No wrong answer equals its gold.
    const gold = new Map(ds.questions.map((x) => [x.id, x.gold.toLowerCase().trim()]));
    expect(probes.filter((p) => p.kind !== 'gold' && p.answer.toLowerCase().trim() === gold.get(p.of))).toEqual([]);
  });
});

describe("Cohen's kappa", () => {
  it('is 1 for full agreement, 0 at chance, negative below, null when undefined', () => {
    expect(cohenKappa([true, false, true], [true, false, true]).kappa).toBe(1);
    // p_o = 0.5, p_e = 0.5
    expect(cohenKappa([true, true, false, false], [true, false, true, false]).kappa).toBeCloseTo(0, 12);
    expect(cohenKappa([true, false], [false, true]).kappa).toBeCloseTo(-1, 12);
    expect(cohenKappa([true, true], [true, true]).kappa).toBeNull();
    // A textbook case: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> p_o 0.7, p_e 0.5, kappa 0.4.
    const a = [...Array(25).fill(true), ...Array(25).fill(false)];
    const b = [...Array(20).fill(true), ...Array(5).fill(false), ...Array(10).fill(true), ...Array(15).fill(false)];
    expect(cohenKappa(a, b)).toMatchObject({ n: 50, agreement: 0.7, a_only: 5, b_only: 10 });
    expect(cohenKappa(a, b).kappa).toBeCloseTo(0.4, 12);
  });
});
