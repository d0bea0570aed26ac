import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { personamem } from '../../../src/benchmarks/personamem/index.js';
import { extractLetter, renderOptions } from '../../../src/benchmarks/personamem/options.js';
import { mcqCorrect, personamemScoring } from '../../../src/benchmarks/personamem/scoring.js';
import type { Turn } from '../../../src/core/schema.js';
import { ROOT } from '../../helpers/cli.js';
import { turnBlocks } from '../../helpers/evidence.js';

const DATA = join(ROOT, 'tests/fixtures/personamem');
const turn = (id: string, speaker: string, text: string): Turn => ({ id, session: 'chat', date: null, speaker, text, captions: [] });

describe('PersonaMem-v2 reader prompts', async () => {
  const verl = await personamem.load({ path: DATA, options: {} });
  const frontier = await personamem.load({ path: DATA, options: { mcqProtocol: 'frontier' } });
  const turns = [turn('m5', 'user', 'I am vegetarian.'), turn('m6', 'assistant', 'Noted.')];
  const evidence = turnBlocks(turns, ['[unknown] user: I am vegetarian.', '[unknown] assistant: Noted.']);

  it('verl (rag.py build_rag_prompt): two system messages, the retrieved messages, then query + options + think instruction', () => {
    const q = verl.questions[0]!;
    const msgs = personamemScoring.reader.render(q, evidence);
    expect(msgs).toEqual([
      {
        role: 'system',
        content:
          "You are a helpful assistant that provides personalized responses based on the user's preferences in conversation history.",
      },
      {
        role: 'system',
        content:
          'The following are relevant excerpts from your conversation history with this user. Use them to personalize your response.',
      },
      { role: 'user', content: 'I am vegetarian.' },
      { role: 'assistant', content: 'Noted.' },
      {
        role: 'user',
        content:
          'Can you suggest a dinner recipe for tonight?\n\nYou are performing a multiple-choice question task. You must choose the best response from the following options to answer the user query above:\n' +
          '(a) Pan-seared salmon with lemon butter.\n(b) A grilled steak with peppercorn sauce.\n(c) Chicken alfredo pasta.\n(d) A chickpea and spinach curry with rice.\n\n' +
          'Provide your answer in the format: \\boxed{a}, \\boxed{b}, \\boxed{c}, or \\boxed{d}. Always perform your reasoning inside <think> and </think> tags before your final answer.',
      },
    ]);
  });

  it('frontier (inference.py): history, the query, then a system message with A.-D. options', () => {
    const msgs = personamemScoring.reader.render(frontier.questions[0]!, evidence);
    expect(msgs.slice(0, 3)).toEqual([
      { role: 'user', content: 'I am vegetarian.' },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'Can you suggest a dinner recipe for tonight?' },
    ]);
    expect(msgs[3]).toEqual({
      role: 'system',
      content:
        'Please choose the best answer from the following options:\n\nA. Pan-seared salmon with lemon butter.\nB. A grilled steak with peppercorn sauce.\nC. Chicken alfredo pasta.\nD. A chickpea and spinach curry with rice.\n\n' +
        "Think step by step about which answer best fits the user's query and conversation context. Provide your reasoning first, then give your final answer as 'Final Answer: [Letter]'",
    });
  });

  it('puts window texts in one system message when turns are not expanded (--no-expand)', () => {
    const msgs = personamemScoring.reader.render(verl.questions[0]!, {
      blocks: [
        { text: 'window one', turns, kind: 'history' },
        { text: 'window two', turns, kind: 'history' },
      ],
    });
    expect(msgs[2]).toEqual({ role: 'system', content: 'window one\nwindow two' });
    expect(msgs).toHaveLength(4);
  });

  it('renders options as (a) ... or A. ... lines', () => {
    expect(renderOptions('verl', ['x', 'y'])).toBe('(a) x\n(b) y');
    expect(renderOptions('frontier', ['x', 'y'])).toBe('A. x\nB. y');
  });
});

describe('PersonaMem-v2 letter extraction and accuracy', async () => {
  const verl = await personamem.load({ path: DATA, options: {} });
  const frontier = await personamem.load({ path: DATA, options: { mcqProtocol: 'frontier' } });

  it('reads \\boxed{x} and the plain forms, first pattern in order wins (inference_rag.py, lower-cased)', () => {
    expect(extractLetter('verl', '<think>hmm</think>\n\\boxed{d}')).toBe('d');
    expect(extractLetter('verl', 'So $\\boxed{B}$.')).toBe('b');
    expect(extractLetter('verl', 'Final Answer: c')).toBe('c');
    expect(extractLetter('verl', 'the answer is (a)')).toBe(''); // "(" is no letter: no pattern matches
    expect(extractLetter('verl', 'I pick the answer is a')).toBe('a');
    // The boxed pattern is tried before "Answer:" even when it comes later in the text.
    expect(extractLetter('verl', 'Answer: b ... actually \\boxed{c}')).toBe('c');
    expect(extractLetter('verl', 'Option d.')).toBe('d');
    expect(extractLetter('verl', 'no idea')).toBe('');
    expect(extractLetter('verl', '')).toBe('');
  });

  it('upper-cases for frontier (inference.py) and compares by option text', () => {
    expect(extractLetter('frontier', 'Reasoning...\nFinal Answer: d')).toBe('D');
    const q = frontier.questions[0]!; // correct is D
    expect(mcqCorrect.score('Final Answer: D', q)).toBe(1);
    expect(mcqCorrect.score('Final Answer: A', q)).toBe(0);
  });

  it('scores 1 for the correct letter, 0 for another or none', () => {
    const q = verl.questions[2]!; // correct is (b)
    expect(mcqCorrect.score('<think>trains</think> \\boxed{b}', q)).toBe(1);
    expect(mcqCorrect.score('\\boxed{a}', q)).toBe(0);
    expect(mcqCorrect.score('I cannot decide', q)).toBe(0);
    const found = personamemScoring.metrics.find((m) => m.name === 'mcq_letter_found')!;
    expect(found.score('I cannot decide', q)).toBe(0);
    expect(personamemScoring.judge).toBeNull();
    expect(personamemScoring.fallbackMetric).toBe('mcq_correct');
  });
});
