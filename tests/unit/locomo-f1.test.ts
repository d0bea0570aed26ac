/**
 * LoCoMo official token F1 (task_eval/evaluation.py @ 3eb6f2c). Expected values worked by hand
 * from the Python definitions (normalize_answer, f1_score, f1, eval_question_answering).
 */
import { describe, expect, it } from 'vitest';
import { locomoF1, locomoF1Metric, normalizeAnswer, subAnswerF1, tokenF1 } from '../../src/benchmarks/locomo/metrics.js';

describe('normalize_answer', () => {
  it('drops commas, lowercases, strips ASCII punctuation, removes a/an/the/and, collapses spaces', () => {
    expect(normalizeAnswer('The cat, and a Dog!')).toBe('cat dog');
    expect(normalizeAnswer('  Melanie\'s   "pottery" class. ')).toBe('melanies pottery class');
    expect(normalizeAnswer('Andrew and Anna')).toBe('andrew anna');
    expect(normalizeAnswer('7 May 2023')).toBe('7 may 2023');
    // Unicode punctuation is not in string.punctuation: it stays.
    expect(normalizeAnswer('it’s')).toBe('it’s');
  });
});

describe('f1_score', () => {
  it('is a multiset overlap of Porter-stemmed tokens', () => {
    expect(tokenF1('running shoes', 'run shoe')).toBe(1);
    // pred [cat] vs gold [cat, cat]: P = 1, R = 1/2.
    expect(tokenF1('the the cat', 'cat cat')).toBeCloseTo(2 / 3, 12);
    expect(tokenF1('Paris France', 'Paris')).toBeCloseTo(2 / 3, 12);
    expect(tokenF1('nothing', 'something')).toBe(0);
    expect(tokenF1('', 'x')).toBe(0);
  });
});

describe('per-category rules', () => {
  it('category 1 averages, over comma-separated gold parts, the best predicted part', () => {
    expect(subAnswerF1('yoga, kickboxing', 'Weight training, Circuit training, Kickboxing, yoga')).toBe(0.5);
    expect(locomoF1('yoga, kickboxing', 'Weight training, Circuit training, Kickboxing, yoga', 1)).toBe(0.5);
    // Without the rule the commas vanish in normalisation and it is one bag of words.
    expect(tokenF1('yoga, kickboxing', 'Weight training, Circuit training, Kickboxing, yoga')).toBeCloseTo(2 / 4, 12);
  });
  it('category 3 keeps the gold before the first ";"', () => {
    expect(locomoF1('Likely yes', 'Likely yes; she collects classic books', 3)).toBe(1);
    expect(locomoF1('Likely yes', 'Likely yes; she collects classic books', 4)).toBeLessThan(1);
  });
  it('categories 2 and 4 compare whole strings; 5 looks for an abstention', () => {
    expect(locomoF1('7 May 2023', 'May 7, 2023', 2)).toBe(1);
    expect(locomoF1('Not mentioned in the conversation', 'x', 5)).toBe(1);
    expect(locomoF1('No information available.', 'x', 5)).toBe(1);
    expect(locomoF1('Paris', 'x', 5)).toBe(0);
  });
  it('as a Metric reads the category from the question type id', () => {
    const q = { typeId: 1, gold: 'yoga, kickboxing' } as never;
    expect(locomoF1Metric.name).toBe('f1');
    expect(locomoF1Metric.score('yoga', q)).toBe(0.5);
  });
});

import { locomoJudge, locomoReader, parseLabel, locomoPrompt } from '../../src/benchmarks/locomo/scoring.js';
import { historyBlocks } from '../helpers/evidence.js';

describe('LoCoMo judge and reader prompts (verbatim, configs/prompts/locomo-*)', () => {
  const q = { text: 'When did Caroline go to the LGBTQ support group?', gold: '7 May 2023' } as never;
  it('the judge is the Mem0 ACCURACY_PROMPT, one user message, JSON mode, filled like str.format', () => {
    const msgs = locomoJudge.render(q, 'On {date} 7 May 2023')!;
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.role).toBe('user');
    const t = msgs[0]!.content;
    // ACCURACY_PROMPT is a triple-quoted Python string: it starts and ends with a newline.
    expect(t.startsWith('\nYour task is to label an answer to a question as ’CORRECT’ or ’WRONG’.')).toBe(true);
    expect(t).toContain('    (1) a question (posed by one user to another user), \n');
    expect(t).toContain(
      'Question: When did Caroline go to the LGBTQ support group?\nGold answer: 7 May 2023\nGenerated answer: On {date} 7 May 2023\n',
    );
    expect(t.endsWith('Just return the label CORRECT or WRONG in a json format with the key as "label".\n')).toBe(true);
    expect(t.endsWith('"label".\n\n')).toBe(false);
    expect(locomoJudge.jsonMode).toBe(true);
  });
  it('scores label == "CORRECT" exactly, as Mem0; a reply without a label throws (an error, never WRONG)', () => {
    expect(locomoJudge.parse('{"label": "CORRECT"}', q)).toBe(1);
    expect(locomoJudge.parse('The answer matches.\n```json\n{"label": "WRONG"}\n```', q)).toBe(0);
    expect(parseLabel('Reasoning... {"label":"CORRECT"}')).toBe('CORRECT');
    // Mem0: `1 if label == "CORRECT" else 0` — a lower-case or padded label is WRONG.
    expect(locomoJudge.parse('{"label": "correct"}', q)).toBe(0);
    expect(locomoJudge.parse('{"label": " CORRECT"}', q)).toBe(0);
    expect(locomoJudge.parse('{"label": "MAYBE"}', q)).toBe(0);
    expect(locomoJudge.parse('{"label": true}', q)).toBe(0);
    expect(() => locomoJudge.parse('CORRECT', q)).toThrow(/no JSON object/);
    expect(() => locomoJudge.parse('{"verdict": "CORRECT"}', q)).toThrow(/no "label"/);
    expect(() => locomoJudge.parse('{"label": CORRECT}', q)).toThrow(/not valid JSON/);
  });
  it('the reader is Mem0 RAG: the concatenated system string and the rendered Jinja user prompt', () => {
    expect(locomoPrompt('reader-system')).toBe(
      'You are a helpful assistant that can answer questions based on the provided context.If the question involves timing, use the conversation date for reference.Provide the shortest possible answer.Use words directly from the conversation when possible.Avoid using subjects in your answer.',
    );
    const msgs = locomoReader.render(
      q,
      historyBlocks(['[1:56 pm on 8 May, 2023] Caroline: hi', '[1:56 pm on 8 May, 2023] Melanie: {{QUESTION}}']),
    );
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user']);
    expect(msgs[1]!.content).toBe(
      '\n# Question: \nWhen did Caroline go to the LGBTQ support group?\n\n# Context: \n[1:56 pm on 8 May, 2023] Caroline: hi\n[1:56 pm on 8 May, 2023] Melanie: {{QUESTION}}\n\n# Short answer:',
    );
  });
});
