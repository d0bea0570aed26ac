import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { locomo } from '../../../src/benchmarks/locomo/index.js';
import { parseIdList, readIdList, selectQuestions, stratifiedSample } from '../../../src/benchmarks/select.js';
import type { Dataset, Question } from '../../../src/core/schema.js';
import { InputError } from '../../../src/util/errors.js';
import { ROOT, tempDir } from '../../helpers/cli.js';

function q(id: string, episode: string, type: string): Question {
  return { id, episode, type, typeId: null, text: id, gold: '', acceptable: [], questionDate: null, evidence: [], options: null, visibleTurns: null };
}

/** 3 episodes x 2 types, unbalanced: e1 has 40 'a' + 20 'b', e2 20 'a', e3 20 'b'. */
function toy(): Dataset {
  const qs: Question[] = [];
  const add = (ep: string, type: string, n: number) => {
    for (let i = 0; i < n; i++) qs.push(q(`${ep}:${type}${i}`, ep, type));
  };
  add('e1', 'a', 40);
  add('e1', 'b', 20);
  add('e2', 'a', 20);
  add('e3', 'b', 20);
  return { benchmark: 'toy', episodes: [], questions: qs, source: { path: 'toy.json', sha256: '', bytes: 0, version: '' }, warnings: [] };
}

describe('selectQuestions', () => {
  it('--limit says what the first N are', () => {
    const s = selectQuestions(toy(), { limit: 50 });
    expect(s.questions.map((x) => x.id)).toEqual(toy().questions.slice(0, 50).map((x) => x.id));
    expect(s.description).toBe('first 50 of all 100 questions: 1 of 3 episodes, 2 of 2 question types');
    expect(selectQuestions(toy(), {}).description).toBe('all 100 questions: 3 of 3 episodes, 2 of 2 question types');
  });

  it('--limit A-B takes questions A to B (1-based, inclusive, as inspect), clamped at the end, after --sample', () => {
    const ids = toy().questions.map((x) => x.id);
    const s = selectQuestions(toy(), { limit: '11-20' });
    expect(s.questions.map((x) => x.id)).toEqual(ids.slice(10, 20));
    expect(s.description).toBe('questions 11-20 of all 100 questions: 1 of 3 episodes, 1 of 2 question types');
    expect(selectQuestions(toy(), { limit: '95-120' }).questions.map((x) => x.id)).toEqual(ids.slice(94));
    expect(selectQuestions(toy(), { limit: '95-120' }).description).toMatch(/^questions 95-100 of all 100 questions/);
    const sampled = selectQuestions(toy(), { sample: 20, seed: 7 }).questions;
    expect(selectQuestions(toy(), { sample: 20, seed: 7, limit: '5-6' }).questions).toEqual(sampled.slice(4, 6));
    expect(() => selectQuestions(toy(), { limit: '101-120' })).toThrow(/--limit: range 101-120 starts after the last question \(all 100 questions\): give a range within 1-100/);
  });

  it('--sample is stratified by type x episode, in proportion, deterministic per seed, in dataset order', () => {
    const ds = toy();
    const s = selectQuestions(ds, { sample: 20, seed: 7 });
    expect(s.questions).toHaveLength(20);
    const per = (ep: string, type: string) => s.questions.filter((x) => x.episode === ep && x.type === type).length;
    expect([per('e1', 'a'), per('e1', 'b'), per('e2', 'a'), per('e3', 'b')]).toEqual([8, 4, 4, 4]);
    expect(s.description).toBe('20 questions drawn at random (seed 7, stratified by question type and episode) from all 100 questions: 3 of 3 episodes, 2 of 2 question types');
    const order = ds.questions.map((x) => x.id);
    const idx = s.questions.map((x) => order.indexOf(x.id));
    expect(idx).toEqual([...idx].sort((a, b) => a - b));
    expect(selectQuestions(ds, { sample: 20, seed: 7 }).questions).toEqual(s.questions);
    expect(selectQuestions(ds, { sample: 20, seed: 8 }).questions.map((x) => x.id)).not.toEqual(s.questions.map((x) => x.id));
  });

  it('largest remainders fill the sample exactly, never over a stratum', () => {
    const ds = toy();
    for (const n of [1, 3, 7, 99]) {
      const got = stratifiedSample(ds.questions, n, 0);
      expect(got).toHaveLength(n);
      expect(new Set(got.map((x) => x.id)).size).toBe(n);
    }
    expect(selectQuestions(ds, { sample: 100 }).questions).toHaveLength(100);
  });

  it('--sample larger than the population is an input error naming the flag (not a silent full run under another config)', () => {
    expect(() => selectQuestions(toy(), { sample: 500 })).toThrow(/--sample: --sample 500 asks for more questions than there are \(all 100 questions\)/);
  });

  it('--ids keeps the listed questions (dataset order); unknown ids are an input error naming file and line', () => {
    const ds = toy();
    const dir = tempDir();
    const file = join(dir, 'ids.txt');
    writeFileSync(file, '# my subset\ne2:a3\n\ne1:b0\n{"id": "e3:b5", "answer": "x"}\n');
    const s = selectQuestions(ds, { ids: readIdList(file) });
    expect(s.questions.map((x) => x.id)).toEqual(['e1:b0', 'e2:a3', 'e3:b5']);
    expect(s.description).toBe(`the 3 questions listed in ${file}: 3 of 3 episodes, 2 of 2 question types`);
    const bad = parseIdList('e1:a0\nconv-26:q0\ne1:a1\nnope\n', 'mine.txt');
    let err: unknown;
    try {
      selectQuestions(ds, { ids: bad });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe("mine.txt: line 2: 2 ids are not questions of toy: 'conv-26:q0' (line 2), 'nope' (line 4); ids look like 'e1:a0'");
    expect(() => selectQuestions(ds, { ids: parseIdList('e1:a0\ne1:a0\n', 'd.txt') })).toThrow("d.txt: line 2: id 'e1:a0' is listed twice (first on line 1)");
    expect(() => parseIdList('{"id": 3}\n', 'j.txt')).toThrow('j.txt: line 1: a JSON line needs a string "id"');
    expect(() => readIdList(join(dir, 'missing.txt'))).toThrow(/cannot read the id list \(ENOENT\)/);
  });

  it('lists at most five unknown ids', () => {
    const list = parseIdList(Array.from({ length: 8 }, (_, i) => `x${i}`).join('\n'), 'many.txt');
    expect(() => selectQuestions(toy(), { ids: list })).toThrow(/'x4' \(line 5\) and 3 more/);
  });

  it('on LoCoMo, the first 100 questions are one conversation; a sample of 100 spans all ten', async () => {
    const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    expect(selectQuestions(ds, { limit: 100 }).description).toBe('first 100 of all 1,540 questions: 1 of 10 episodes, 4 of 4 question types');
    const s = selectQuestions(ds, { sample: 100, seed: 0 });
    expect(s.questions).toHaveLength(100);
    expect(new Set(s.questions.map((x) => x.episode)).size).toBe(10);
    // Fewer questions than type x episode strata (40): the type mix still follows the data.
    const small = selectQuestions(ds, { sample: 20, seed: 3 }).questions;
    const byType = (qs: typeof small, t: string) => qs.filter((x) => x.type === t).length;
    for (const t of new Set(ds.questions.map((x) => x.type))) {
      expect(Math.abs(byType(small, t) - (20 * byType(ds.questions, t)) / ds.questions.length)).toBeLessThan(1);
    }
  });
});
