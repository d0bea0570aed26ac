/**
 * Golden tests for every rendered MemoryAgentBench prompt. golden-prompts.json was produced by
 * Python itself: `BASE_TEMPLATES[...]['query']['rag_agent'].format(question=...)` on the
 * templates.py literal of the spec, and `.format(...)` of the judge prompt files with Python lists
 * (so list reprs, `{{`/`}}` and braces inside questions are Python's own). The prompt files are
 * pinned by hash: editing one fails here.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Question } from '../../../src/core/schema.js';
import {
  judge,
  longmemevalPromptName,
  metrics,
  officialScore,
  parseJudgeJson,
  reader,
  renderLongmemevalJudge,
  renderSummaryJudge,
  summaryScore,
} from '../../../src/benchmarks/memoryagentbench/scoring.js';
import { pyFormat } from '../../../src/benchmarks/memoryagentbench/prompts.js';
import { pyReprList, pyReprString } from '../../../src/util/python.js';
import type { TemplateFamily } from '../../../src/benchmarks/memoryagentbench/sources.js';
import type { ChatMessage } from '../../../src/core/protocol.js';
import { historyBlocks } from '../../helpers/evidence.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const golden = JSON.parse(readFileSync(join(import.meta.dirname, 'golden-prompts.json'), 'utf8'));

const SOURCE_OF: Record<TemplateFamily, string> = {
  factconsolidation: 'factconsolidation_sh_262k',
  in_context_learning: 'icl_banking77_5900shot_balance',
  ruler_qa: 'ruler_qa1_197K',
  longmemeval: 'longmemeval_s*',
  eventqa: 'eventqa_full',
  recsys_redial: 'recsys_redial_full',
  infbench_sum: 'infbench_sum_eng_shots2',
  detective_qa: 'detective_qa',
};

function question(source: string, text: string, acceptable: string[], meta: Record<string, unknown> = {}): Question {
  return {
    id: `${source}/0:q`,
    episode: `${source}/0`,
    type: source,
    typeId: null,
    text,
    gold: acceptable[0]!,
    acceptable,
    questionDate: null,
    evidence: [],
    options: null,
    visibleTurns: null,
    meta: { source, ...meta },
  };
}

describe('prompt files', () => {
  test('every memoryagentbench prompt file is byte-identical to the pinned version', () => {
    const pins = golden.prompt_sha256 as Record<string, string>;
    expect(Object.keys(pins)).toHaveLength(17);
    for (const [name, sha] of Object.entries(pins)) {
      const bytes = readFileSync(join(ROOT, 'configs', 'prompts', name));
      expect(createHash('sha256').update(bytes).digest('hex'), name).toBe(sha);
    }
  });
});

describe('reader (rag_agent templates, Memory i layout)', () => {
  for (const [family, c] of Object.entries(golden.reader.cases) as Array<
    [TemplateFamily, { question: string; system: string; user: string }]
  >) {
    test(family, () => {
      const q = question(SOURCE_OF[family], c.question, ['x']);
      const messages = reader.render(q, historyBlocks(golden.reader.memories));
      expect(messages).toEqual([
        { role: 'system', content: c.system },
        { role: 'user', content: c.user },
      ]);
    });
  }
  test('an unknown source has no template: an error, not a guess', () => {
    expect(() => reader.render(question('mystery_source', 'q', ['x']), { blocks: [] })).toThrow(/no official template/);
  });
});

describe('LongMemEval judge', () => {
  for (const c of golden.longmemeval_judge as Array<Record<string, any>>) {
    test(`${c.prompt} prompt`, () => {
      const q = question('longmemeval_s*', c.question, c.gold_list, {
        question_type: c.question_type,
        question_id: c.question_id,
        gold_list: c.gold_list,
      });
      expect(longmemevalPromptName(q)).toBe(c.prompt);
      const messages = renderLongmemevalJudge(q, c.response);
      expect(messages).toEqual([{ role: 'user', content: c.expected }]);
      expect(judge.render(q, c.response)).toEqual(messages);
    });
  }
  test('decision rule: "yes" anywhere in the lower-cased reply', () => {
    const q = question('longmemeval_s*', 'q', ['a'], { question_type: 'multi-session' });
    expect(judge.parse('Yes.', q)).toBe(1);
    expect(judge.parse('no', q)).toBe(0);
    // the official rule is a substring test, so "eyes" counts as yes
    expect(judge.parse('The eyes have it', q)).toBe(1);
  });
  test('an unknown question type is an error (official: NotImplementedError)', () => {
    expect(() => longmemevalPromptName(question('longmemeval_s*', 'q', ['a'], { question_type: 'odd' }))).toThrow(
      /no official judge prompt/,
    );
  });
  test('judge() asks once and keeps the reply', async () => {
    const q = question('longmemeval_s*', 'q', ['a'], { question_type: 'multi-session' });
    const asked: ChatMessage[][] = [];
    const out = await judge.judge!(q, 'a', async (m) => (asked.push(m), 'yes'));
    expect(asked).toEqual([renderLongmemevalJudge(q, 'a')]);
    expect(out.verdict).toBe(1);
  });
});

describe('∞Bench-Sum judge (three requests per verdict)', () => {
  const g = golden.summary_judge;
  const q = question('infbench_sum_eng_shots2', 'Summarize.', g.gold_list, { keypoints: g.keypoints, gold_list: g.gold_list });

  test('fluency, recall and precision prompts as Python renders them', () => {
    const r = renderSummaryJudge(q, g.answer);
    expect(r.fluency[0]!.content).toBe(g.fluency);
    expect(r.recall[0]!.content).toBe(g.recall);
    expect(r.precision[0]!.content).toBe(g.precision);
    // the official quirk: the expert summary is shown as a one-element Python list
    expect(r.precision[0]!.content).toContain("<start of summary>['Eleanor comes to the house.\\n\\nShe leaves at dawn.']<end of summary>");
    expect(judge.render(q, g.answer)).toEqual(r.fluency);
  });

  test('f1 = fluency x harmonic mean of keypoint recall and sentence precision', async () => {
    const replies = [
      'Reasoning... {"fluency": 1}',
      'I think {"supported_key_points": [1], "recall": 1}',
      'Output: {"precision": 3, "sentence_count": 4}',
    ];
    const asked: string[] = [];
    const out = await judge.judge!(q, g.answer, async (m) => {
      asked.push(m[0]!.content);
      return replies[asked.length - 1]!;
    });
    expect(asked).toEqual([g.fluency, g.recall, g.precision]);
    // rec = 1/2, prec = 3/4 -> f1 = 2 * 0.375 / 1.25 = 0.6
    expect(out.verdict).toBeCloseTo(0.6, 12);
    expect(out.details).toMatchObject({ fluency: 1, recall: 1, keypoints: 2, precision: 3, sentence_count: 4 });
  });

  test('zero fluency zeroes the score; empty denominators give 0', () => {
    expect(summaryScore(0, 2, 2, 3, 3).f1).toBe(0);
    expect(summaryScore(1, 2, 0, 0, 0)).toEqual({ rec: 0, prec: 0, f1: 0 });
  });

  test('an unreadable reply is an error, never a zero', async () => {
    await expect(judge.judge!(q, g.answer, async () => 'no json here')).rejects.toThrow(/no readable JSON/);
    expect(() => parseJudgeJson('{"recall": ')).toThrow();
    expect(parseJudgeJson('```json\n{"a": 1}\n```')).toEqual({ a: 1 });
    expect(parseJudgeJson('first {"a": 1} then {"a": 2}')).toEqual({ a: 2 });
  });

  test('non-judged sources render no judge request (scored by the official metric)', () => {
    expect(judge.render(question('factconsolidation_sh_262k', 'q', ['x']), 'x')).toBeNull();
    expect(judge.render(question('detective_qa', 'q', ['x']), 'x')).toBeNull();
  });
});

describe('official metric per source', () => {
  const cases: Array<[string, string, string[], number | null]> = [
    ['factconsolidation_sh_262k', 'Answer: Sylvania City', ['Sylvania City'], 1],
    ['ruler_qa2_421K', 'It was played at Levi’s Stadium', ["Levi's Stadium"], 0],
    ['eventqa_full', 'Mara climbed the spiral stairs and more', ['Mara climbed the spiral stairs'], 1],
    ['icl_trec_fine_6400shot_balance', 'label: 43', ['43'], 0],
    ['icl_trec_fine_6400shot_balance', '43', ['43'], 1],
    ['detective_qa', 'C. The Brandt couple', ['C. The Brandt couple'], 1],
    ['detective_qa', 'The Brandt couple', ['C. The Brandt couple'], 0],
    ['longmemeval_s*', 'Biscuit', ['Biscuit'], null],
    ['infbench_sum_eng_shots2', 'A summary', ['A summary'], null],
  ];
  test.each(cases)('%s: %j', (source, answer, golds, expected) => {
    expect(officialScore(answer, question(source, 'q', golds))).toBe(expected);
  });

  test('recsys recall@5 needs entity2id.json (null without it)', () => {
    const path = join(ROOT, 'tests', 'fixtures', 'memoryagentbench', 'constructed', 'entity2id.json');
    const withMap = question('recsys_redial_full', 'q', ['101', '102'], { entity2id: path });
    expect(officialScore('1. The Matrix\n2. Interstellar', withMap)).toBe(1);
    expect(officialScore('1. The Matrix', withMap)).toBe(0.5);
    expect(officialScore('1. The Matrix', question('recsys_redial_full', 'q', ['101'], { entity2id: null }))).toBeNull();
    const byName = Object.fromEntries(metrics.map((m) => [m.name, m.score('1. The Matrix\n2. Interstellar', withMap)]));
    expect(byName).toMatchObject({ 'recsys_recall@1': 0.5, 'recsys_recall@5': 1, exact_match: null, eventqa_recall: null });
  });
});

describe('Python helpers', () => {
  test('repr of strings and lists', () => {
    expect(pyReprString('50')).toBe("'50'");
    expect(pyReprString("it's")).toBe('"it\'s"');
    expect(pyReprString('say "hi" it\'s')).toBe("'say \"hi\" it\\'s'");
    expect(pyReprString('a\\b\n\t\u0001\u00a0é\u2028')).toBe("'a\\\\b\\n\\t\\x01\\xa0é\\u2028'");
    expect(pyReprList([['a'], 'b'])).toBe("[['a'], 'b']");
  });
  test('str.format: named, positional, escaped braces, no re-scanning of values', () => {
    expect(pyFormat('{a} {{x}} {b}', { a: '{b}', b: '2' })).toBe('{b} {x} 2');
    expect(pyFormat('{} and {}', ['1', '2'])).toBe('1 and 2');
    expect(() => pyFormat('{missing}', {})).toThrow(/no value/);
  });
});
