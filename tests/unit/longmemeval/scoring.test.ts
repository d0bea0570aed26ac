/**
 * LongMemEval protocol: golden strings. The expected texts were produced by Python from the
 * official templates (tests/fixtures/longmemeval/SOURCE.md), not by this code.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  OFFICIAL_JUDGE_MODEL,
  fillSlots,
  judgeTemplateName,
  longMemEvalJudge,
  longMemEvalReader,
  pyJsonSession,
  pyJsonString,
  renderHistory,
} from '../../../src/benchmarks/longmemeval/scoring.js';
import { loadLongMemEval } from '../../../src/benchmarks/longmemeval/load.js';
import { longmemeval } from '../../../src/benchmarks/longmemeval/index.js';
import type { Question, Turn } from '../../../src/core/schema.js';
import { ROOT } from '../../helpers/cli.js';
import { turnBlocks } from '../../helpers/evidence.js';

const FIX = resolve(ROOT, 'tests/fixtures/longmemeval');
const golden = JSON.parse(readFileSync(join(FIX, 'golden-prompts.json'), 'utf8'));

function question(over: Partial<Question> = {}): Question {
  return {
    id: 'x',
    episode: 'x',
    type: 'single-session-user',
    typeId: null,
    text: 'Q?',
    gold: 'A',
    acceptable: ['A'],
    questionDate: '2023/05/30 (Tue) 15:53',
    evidence: [],
    options: null,
    visibleTurns: null,
    meta: { reading: 'con' },
    ...over,
  };
}

const turn = (session: string, n: number, date: string, speaker: string, text: string): Turn => ({
  id: `${session}:${n}`,
  session,
  date,
  speaker,
  text,
  captions: [],
});

describe('LongMemEval reader prompt', () => {
  it('reproduces the official worked example byte for byte (oracle 1903aded, con, json history)', () => {
    const expected = readFileSync(join(FIX, 'golden-reader-1903aded.txt'), 'utf8');
    const jobs = [
      'Virtual customer service representative',
      'Telehealth professional',
      'Remote bookkeeper',
      'Virtual tutor or teacher',
      'Freelance writer or editor',
      'Online survey taker',
      'Transcriptionist',
      'Social media manager',
      'Virtual travel agent',
      'E-commerce seller',
      'Remote IT support specialist',
      'Home-based customer service representative',
      'Online data entry specialist',
      'Telemarketing representative',
      'Virtual administrative assistant',
    ]
      .map((j, i) => `${i + 1}. ${j}`)
      .join('\n');
    const date = '2023/05/27 (Sat) 00:59';
    const turns = [
      turn('answer_sharegpt_x', 1, date, 'user', 'Brainstorm ideas for work from home jobs for seniors'),
      turn('answer_sharegpt_x', 2, date, 'assistant', jobs),
    ];
    const q = question({
      id: '1903aded',
      type: 'single-session-assistant',
      text: 'I think we discussed work from home jobs for seniors earlier. Can you remind me what was the 7th job in the list you provided?',
    });
    const messages = longMemEvalReader.render(q, turnBlocks(turns));
    expect(messages).toEqual([{ role: 'user', content: expected }]);
  });

  it('groups the shown turns by session, in turn order, sessions sorted by date (stable)', () => {
    const turns = [
      turn('b', 3, '2023/05/02 (Tue) 10:00', 'user', 'b3'),
      turn('a', 2, '2023/05/01 (Mon) 10:00', 'assistant', 'a2'),
      turn('b', 1, '2023/05/02 (Tue) 10:00', 'user', 'b1'),
      turn('c', 1, '2023/05/02 (Tue) 10:00', 'user', 'c1'),
      turn('a', 1, '2023/05/01 (Mon) 10:00', 'user', 'a1'),
    ];
    expect(renderHistory(turns)).toBe(
      '\n### Session 1:\nSession Date: 2023/05/01 (Mon) 10:00\nSession Content:\n\n[{"role": "user", "content": "a1"}, {"role": "assistant", "content": "a2"}]\n' +
        '\n### Session 2:\nSession Date: 2023/05/02 (Tue) 10:00\nSession Content:\n\n[{"role": "user", "content": "b1"}, {"role": "user", "content": "b3"}]\n' +
        '\n### Session 3:\nSession Date: 2023/05/02 (Tue) 10:00\nSession Content:\n\n[{"role": "user", "content": "c1"}]\n',
    );
  });

  it('uses the direct template when asked, and braces in the data are never treated as slots', () => {
    const q = question({ text: 'What is {}?', meta: { reading: 'direct' } });
    const [m] = longMemEvalReader.render(q, turnBlocks([turn('s', 1, 'D', 'user', 'x {} y')]));
    expect(m!.content).toMatch(
      /^I will give you several history chats between you and a user\. Please answer the question based on the relevant chat history\.\n\n\nHistory Chats:\n\n/,
    );
    expect(m!.content.endsWith('\n\nCurrent Date: 2023/05/30 (Tue) 15:53\nQuestion: What is {}?\nAnswer:')).toBe(true);
    expect(m!.content).toContain('"content": "x {} y"');
    expect(longMemEvalReader.parseAnswer!('  The answer is 3.\n', q)).toBe('The answer is 3.');
  });

  it('renders the real S sample prompt with the question date line after the history', async () => {
    const d = await loadLongMemEval({ path: join(FIX, 'longmemeval_s_cleaned.sample.json'), options: {} });
    const q = d.questions[0]!;
    const ep = d.episodes[0]!;
    const shown = ep.turns.filter((t) => q.evidence.includes(t.id));
    const [m] = longMemEvalReader.render(q, turnBlocks(shown));
    expect(m!.content).toContain(`\n\nCurrent Date: ${q.questionDate}\nQuestion: ${q.text}\nAnswer (step by step):`);
    expect(m!.content).toContain(`### Session 1:\nSession Date: ${shown[0]!.date}\nSession Content:\n\n[{"role": "user"`);
  });
});

describe('Python json.dumps compatibility', () => {
  it.each(golden.strings as Array<{ in: string; out: string }>)('encodes %j like Python', (c) => {
    expect(pyJsonString(c.in)).toBe(c.out);
  });
  it('encodes a session list like Python', () => {
    expect(pyJsonSession(golden.session.in)).toBe(golden.session.out);
  });
});

describe('LongMemEval judge', () => {
  it.each(golden.judge as Array<{ id: string; type: string; question: string; answer: string; response: string; expected: string }>)(
    'renders the official prompt for $type ($id)',
    (c) => {
      const q = question({ id: c.id, type: c.type, text: c.question, gold: c.answer });
      expect(longMemEvalJudge.render(q, c.response)).toEqual([{ role: 'user', content: c.expected }]);
    },
  );

  it('picks the abstention template for any _abs id, whatever its type', () => {
    expect(judgeTemplateName(question({ id: 'a_abs', type: 'temporal-reasoning' }))).toBe('judge-abstention');
    expect(judgeTemplateName(question({ id: 'a', type: 'temporal-reasoning' }))).toBe('judge-temporal');
    expect(() => judgeTemplateName(question({ type: 'abstention' }))).toThrow(/no judge prompt for question type 'abstention'/);
  });

  it("applies the official rule: 'yes' anywhere in the lower-cased reply", () => {
    const q = question();
    expect(longMemEvalJudge.parse('Yes.', q)).toBe(1);
    expect(longMemEvalJudge.parse(' YES ', q)).toBe(1);
    expect(longMemEvalJudge.parse('no', q)).toBe(0);
    expect(longMemEvalJudge.parse('eyes', q)).toBe(1); // the substring quirk, kept for fidelity
  });

  it('is the default judge of the benchmark, with the official model', () => {
    expect(longmemeval.scoring!.judge).toBe(longMemEvalJudge);
    expect(longmemeval.defaultJudgeModel).toBe(OFFICIAL_JUDGE_MODEL);
    expect(OFFICIAL_JUDGE_MODEL).toBe('gpt-4o-2024-08-06');
  });
});

describe('fillSlots', () => {
  it('fills positional slots once, in order', () => {
    expect(fillSlots('a {} b {} c', ['{}', 'x'])).toBe('a {} b x c');
  });
});
