/**
 * BEAM scoring rules, golden: judge prompt rendering (fixed and official), rubric averaging with
 * and without the int() defect, Kendall tau-b and the event-ordering score against values computed
 * with scipy 1.17 from the official arithmetic (spec §3.4), and the NaN guard.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Question } from '../../../src/core/schema.js';
import type { ChatMessage } from '../../../src/core/protocol.js';
import { kendallTauB } from '../../../src/benchmarks/beam/kendall.js';
import { alignWithReference, answerLines, guardedTauNorm, orderingScore } from '../../../src/benchmarks/beam/ordering.js';
import {
  beamJudge,
  beamReader,
  parseEquivalence,
  parseRubricReply,
  pythonInt,
  renderEquivalence,
  renderJudgePrompt,
  rubricScore,
} from '../../../src/benchmarks/beam/scoring.js';
import { ROOT } from '../../helpers/cli.js';
import { historyBlocks } from '../../helpers/evidence.js';

const prompt = (name: string) => readFileSync(join(ROOT, 'configs/prompts', `beam-${name}.txt`), 'utf8');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function question(ability: string, rubric: string[], officialDefects = false): Question {
  return {
    id: `100K/1:${ability}:0`,
    episode: '100K/1',
    type: ability,
    typeId: null,
    text: 'How many hours did I study?',
    gold: '4 hours',
    acceptable: ['4 hours'],
    questionDate: null,
    evidence: [],
    options: null,
    visibleTurns: null,
    meta: { ability, rubric, official_defects: officialDefects },
  };
}

describe('prompt files are the official strings', () => {
  it('keeps the leading newline, trailing spaces and typos', () => {
    const judge = prompt('judge');
    expect(judge.startsWith("\nYou are an expert evaluator tasked with judging whether the LLM's response")).toBe(true);
    expect(judge).toContain('should demonstrate. \n');
    expect(judge).toContain('3. **Check Compliance**: \n');
    expect(judge.endsWith('NOTE: ONLY output the json object, without any explanation before or after that\n')).toBe(true);
    expect(prompt('equivalence-system')).toBe(
      '\n            You are a binary classifier.\n            If the TWO snippets describe the SAME event/fact, reply **YES**\n' +
        '            Otherwise reply **NO**. No extra words.\n            DO NOT provide any exaplanation.\n        ',
    );
    expect(prompt('rag-reader')).toContain('without any explanation \n\nRESPONSE:\n');
  });

  it('is pinned by hash (checked against the spec text when written; an editor reformatting a file breaks this)', () => {
    expect({
      judge: sha(prompt('judge')),
      reader: sha(prompt('rag-reader')),
      system: sha(prompt('equivalence-system')),
      user: sha(prompt('equivalence-user')),
    }).toEqual({
      judge: 'd349c9a8559bed9c14bfe2e624212225b09218ff864258a739229c15f4c8e869',
      reader: 'ed89b98d1024432a46bd297345961cf89d2429746daec37befb50db46e0c914a',
      system: '0863c78c1b27d36c97bb7bfd2d4d6b88ef69b093e92bb4719e665527722413e2',
      user: '6bf789b815decbeb1c27f5058e2416c2a6e167724c0433b1da27b0abe5cc73df',
    });
  });
});

describe('judge prompt rendering', () => {
  const inputs = '## EVALUATION INPUTS\n- QUESTION (what the user asked): ';
  it('fixed (default): fills <question>, <rubric_item> and <llm_response>', () => {
    const p = renderJudgePrompt('How many hours?', 'LLM response should state: 4 hours in total', 'Four hours.', false);
    expect(p).toContain(
      `${inputs}How many hours?\n- RUBRIC CRITERION (what to check): LLM response should state: 4 hours in total\n- RESPONSE TO EVALUATE: Four hours.\n\n## EVALUATION RUBRIC:`,
    );
    expect(p).not.toContain('<question>');
    expect(p).toBe(
      prompt('judge')
        .replace('<question>', 'How many hours?')
        .replace('<rubric_item>', 'LLM response should state: 4 hours in total')
        .replace('<llm_response>', 'Four hours.'),
    );
  });

  it('official defects: the literal <question> stays, replaces run rubric then response', () => {
    const p = renderJudgePrompt('How many hours?', 'says <llm_response>', 'Four hours.', true);
    expect(p).toContain(`${inputs}<question>\n- RUBRIC CRITERION (what to check): says Four hours.\n- RESPONSE TO EVALUATE: Four hours.\n`);
  });

  it('fixed mode fills in one pass: inserted text is never rewritten', () => {
    const p = renderJudgePrompt('Q <rubric_item>?', 'R', 'A <question>', false);
    expect(p).toContain(
      'QUESTION (what the user asked): Q <rubric_item>?\n- RUBRIC CRITERION (what to check): R\n- RESPONSE TO EVALUATE: A <question>\n',
    );
  });

  it('BEAM judge render: one user message per rubric item (first shown)', () => {
    const msgs = beamJudge.render(question('knowledge_update', ['first item', 'second item']), 'Four.');
    expect(msgs).toHaveLength(1);
    expect(msgs![0]!.role).toBe('user');
    expect(msgs![0]!.content).toContain('RUBRIC CRITERION (what to check): first item\n');
  });

  it('equivalence request: the official system and user messages', () => {
    expect(renderEquivalence('Conditional probability', '6) Conditional probability')).toEqual([
      { role: 'system', content: prompt('equivalence-system') },
      {
        role: 'user',
        content: `First snippet: Conditional probability \n\n${' '.repeat(23)}Second snippet: 6) Conditional probability\n${' '.repeat(20)}`,
      },
    ]);
    expect([parseEquivalence('YES'), parseEquivalence('**Yes**'), parseEquivalence('NO'), parseEquivalence('')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('reader: answer_generation_for_rag with the evidence as the context', () => {
    const q = question('knowledge_update', ['x']);
    const [m] = beamReader.render(q, historyBlocks(['[January-10-2024] user: hi', '[January-10-2024] assistant: hello']));
    expect(m!.content).toBe(
      prompt('rag-reader')
        .replace('<context>', '[January-10-2024] user: hi\n[January-10-2024] assistant: hello')
        .replace('<question>', q.text),
    );
    expect(m!.content).toContain(
      'CONTEXT:\n[January-10-2024] user: hi\n[January-10-2024] assistant: hello\n\nQUESTION:\nHow many hours did I study?\n\nANSWER REQUIREMENTS:',
    );
  });
});

describe('rubric scores', () => {
  it('reads JSON replies: plain, fenced, with prose around, string scores', () => {
    expect(parseRubricReply('{"score": 1.0, "reason": "ok"}')).toMatchObject({ score: 1, official_int: 1, reason: 'ok' });
    expect(parseRubricReply('```json\n{"score": 0.5, "reason": "partly"}\n```')).toMatchObject({ score: 0.5, official_int: 0 });
    expect(parseRubricReply('Here: {"score": 0.0, "reason": "missing"} done')).toMatchObject({ score: 0, official_int: 0 });
    expect(parseRubricReply('{"score": "0.5", "reason": "x"}')).toMatchObject({ score: 0.5, official_int: null, raw: '0.5' });
    expect(parseRubricReply('{"score": "1", "reason": "x"}')).toMatchObject({ score: 1, official_int: 1 });
    expect(() => parseRubricReply('I cannot judge this.')).toThrow(/no score/);
    expect(() => parseRubricReply('{"score": 3}')).toThrow(/no score/);
  });

  it('Python int(): truncates numbers, parses integer strings only', () => {
    expect([pythonInt(0.5), pythonInt(1.0), pythonInt(0.99), pythonInt('1'), pythonInt(' 0 '), pythonInt('0.5'), pythonInt('1.0')]).toEqual(
      [0, 1, 0, 1, 0, null, null],
    );
  });

  it('averages rubric items: fixed keeps 0.5, official truncates it to 0', () => {
    const v = ['{"score": 1.0}', '{"score": 0.5}', '{"score": 0.0}', '{"score": 0.5}'].map(parseRubricReply);
    expect(rubricScore(v, false)).toBe(0.5);
    expect(rubricScore(v, true)).toBe(0.25);
  });

  it('official defects: a string "0.5" fails the item (int() raises upstream); fixed reads it', () => {
    const v = [parseRubricReply('{"score": "0.5"}')];
    expect(rubricScore(v, false)).toBe(0.5);
    expect(() => rubricScore(v, true)).toThrow(/int\(\) raises/);
  });

  it('judge(): one request per rubric item, both variants recorded', async () => {
    const q = question('information_extraction', ['names the city', 'names the year', 'names the venue']);
    const sent: ChatMessage[][] = [];
    const replies = ['{"score": 1.0, "reason": "a"}', '{"score": 0.5, "reason": "b"}', '{"score": 0.5, "reason": "c"}'];
    const out = await beamJudge.judge!(q, 'Paris, 2024', async (m) => {
      sent.push(m);
      return replies[sent.length - 1]!;
    });
    expect(sent).toHaveLength(3);
    expect(sent.map((m) => /RUBRIC CRITERION \(what to check\): (.*)\n/.exec(m[0]!.content)![1])).toEqual([
      'names the city',
      'names the year',
      'names the venue',
    ]);
    expect(sent[0]![0]!.content).toContain('QUESTION (what the user asked): How many hours did I study?');
    expect(out.verdict).toBeCloseTo(2 / 3, 12);
    expect(out.details).toMatchObject({ variant: 'fixed', score_float: 2 / 3, score_official_int: 1 / 3 });

    const official = await beamJudge.judge!(question('information_extraction', ['a', 'b'], true), 'x', async (m) => {
      expect(m[0]!.content).toContain('QUESTION (what the user asked): <question>\n');
      return '{"score": 0.5}';
    });
    expect(official.verdict).toBe(0);
    expect(official.details).toMatchObject({ variant: 'official-defects', score_float: 0.5, score_official_int: 0 });
  });
});

describe('Kendall tau-b (scipy.stats.kendalltau variant="b")', () => {
  it('matches scipy on untied and tied lists', () => {
    expect(kendallTauB([1, 2, 3, 4, 5], [3, 1, 2, 5, 4])).toBeCloseTo(0.39999999999999997, 12);
    expect(kendallTauB([1, 1, 2, 2, 3], [1, 2, 1, 3, 3])).toBeCloseTo(0.49999999999999994, 12);
    expect(kendallTauB([1, 2, 3, 7, 7, 7], [2, 1, 3, 7, 5, 6])).toBeCloseTo(0.7453559924999299, 12);
    expect(kendallTauB([1, 2, 3], [1, 2, 3])).toBe(1);
    expect(kendallTauB([1, 2, 3], [3, 2, 1])).toBe(-1);
  });
  it('is NaN where scipy returns NaN: fewer than 2 items or a constant list', () => {
    expect(kendallTauB([1], [1])).toBeNaN();
    expect(kendallTauB([1, 2, 3], [4, 4, 4])).toBeNaN();
  });
});

describe('event ordering (official event_ordering_score; golden values from scipy)', () => {
  const R = ['A', 'B', 'C', 'D', 'E'];
  const cases: Array<[string, string[], { precision: number; recall: number; f1: number; tau_norm: number }]> = [
    ['perfect', ['A', 'B', 'C', 'D', 'E'], { precision: 1, recall: 1, f1: 1, tau_norm: 1 }],
    ['reversed', ['E', 'D', 'C', 'B', 'A'], { precision: 1, recall: 1, f1: 1, tau_norm: 0 }],
    [
      'swap + blank line',
      ['B', 'A', 'C', '', 'D', 'E'],
      { precision: 0.8333333333333334, recall: 1, f1: 0.9090909090909091, tau_norm: 0.8 },
    ],
    [
      'partial + noise + repeated blanks',
      ['A', 'x', 'C', '', '', 'E'],
      { precision: 0.5, recall: 0.6, f1: 0.5454545454545454, tau_norm: 0.475 },
    ],
    ['nothing matched', ['p', 'q'], { precision: 0, recall: 0, f1: 0, tau_norm: 0.16290006876837893 }],
  ];
  for (const [name, canonical, want] of cases) {
    it(name, () => {
      const s = orderingScore(R, canonical);
      for (const [k, v] of Object.entries(want)) expect(s[k as keyof typeof s], k).toBeCloseTo(v, 12);
      expect(s.final_score).toBeCloseTo(want.tau_norm * want.f1, 12);
    });
  }

  it('NaN tau (single item): official NaN, guarded 1 when identical, 0.5 otherwise', () => {
    const s = orderingScore(['A'], ['A']);
    expect(s.tau_norm).toBeNaN();
    expect(guardedTauNorm(['A'], ['A'], s)).toBe(1);
    expect(guardedTauNorm(['A'], [], { ...s, tau_b: Number.NaN })).toBe(0.5);
    expect(guardedTauNorm(R, ['A'], orderingScore(R, ['A']))).toBe(orderingScore(R, ['A']).tau_norm);
  });

  it('aligns greedily in answer order; each rubric item is used once; blank lines are items', async () => {
    const calls: string[] = [];
    const same = async (r: string, s: string) => {
      calls.push(`${r}|${s}`);
      return s.toLowerCase().includes(r.toLowerCase());
    };
    const lines = answerLines('1) b then a\n\n2) A again\n3) c');
    expect(lines).toEqual(['1) b then a', '', '2) A again', '3) c']);
    const a = await alignWithReference(['a', 'b', 'c'], lines, same);
    // Line 1 matches 'a' first (reference order wins), line 3 cannot reuse 'a' and takes nothing.
    expect(a.matchedTo).toEqual([0, null, null, 2]);
    expect(a.canonical).toEqual(['a', '', '2) A again', 'c']);
    expect(calls).toEqual(['a|1) b then a', 'b|', 'c|', 'b|2) A again', 'c|2) A again', 'b|3) c', 'c|3) c']);
    expect(a.checks).toBe(calls.length);
  });

  it('judge(): event ordering scores tau_norm from equivalence replies', async () => {
    const q = question('event_ordering', ['Probability as ratio', 'Independent events', 'Conditional probability']);
    const answer = '1) Independent events\n2) Probability as ratio\n3) Conditional probability';
    const out = await beamJudge.judge!(q, answer, async (m) => {
      const [, ref, sys] = /First snippet: (.*) \n\n +Second snippet: (.*)\n/.exec(m[1]!.content)!;
      return sys!.includes(ref!) ? 'YES' : 'NO';
    });
    const expected = orderingScore(q.meta!.rubric as string[], ['Independent events', 'Probability as ratio', 'Conditional probability']);
    expect(out.verdict).toBeCloseTo(expected.tau_norm, 12);
    expect(out.verdict).toBeCloseTo(2 / 3, 12);
    expect(out.details).toMatchObject({ variant: 'fixed', precision: 1, recall: 1, f1: 1, matched_to: [1, 0, 2] });
  });

  it('judge(): official defects fail a NaN tau; fixed mode scores it', async () => {
    const yes = async () => 'YES';
    await expect(beamJudge.judge!(question('event_ordering', ['Only event'], true), 'Only event', yes)).rejects.toThrow(/NaN/);
    expect((await beamJudge.judge!(question('event_ordering', ['Only event']), 'Only event', yes)).verdict).toBe(1);
  });
});
