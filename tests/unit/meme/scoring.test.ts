import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { meme } from '../../../src/benchmarks/meme/index.js';
import { erSubstring, fill, memeScoring, parseMemeJudge, pyStr, renderMemeJudge, truthy } from '../../../src/benchmarks/meme/scoring.js';
import type { Question } from '../../../src/core/schema.js';
import { ROOT } from '../../helpers/cli.js';
import { historyBlocks } from '../../helpers/evidence.js';

const FIXTURE = join(ROOT, 'tests/fixtures/meme/meme_fixture.json');
// Rendered by CPython's str.format following judge.py's dispatch (see tests/fixtures/meme/SOURCE.md).
const GOLDEN = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/meme/judge-golden.json'), 'utf8')) as {
  answer: string;
  prompts: Record<string, string | null>;
};

describe('MEME judge prompts (judge.py, verbatim)', async () => {
  const ds = await meme.load({ path: FIXTURE, options: {} });

  it('renders every fixture question exactly as judge.py would (golden from CPython)', () => {
    expect(Object.keys(GOLDEN.prompts)).toHaveLength(ds.questions.length);
    for (const q of ds.questions) {
      const msgs = renderMemeJudge(q, GOLDEN.answer);
      const want = GOLDEN.prompts[q.id];
      if (want === null) {
        expect(msgs, q.id).toBeNull();
      } else {
        expect(msgs, q.id).toEqual([{ role: 'user', content: want }]);
      }
    }
  });

  it('uses the task prompt after the change and BEFORE_COMMON before it, with entity_values as gold', () => {
    const get = (id: string) =>
      renderMemeJudge(
        ds.questions.find((q) => q.id === id)!,
        'x',
      )![0]!.content;
    expect(get('pl_001:after:4')).toMatch(/^You are a judge evaluating whether an AI agent correctly reports a CASCADE-DEPENDENT value/);
    expect(get('pl_001:after:4')).toContain('GOLD (new cascaded value): light rail\n');
    expect(get('pl_001:after:6')).toMatch(/appropriately handles UNCERTAINTY/);
    expect(get('pl_001:after:6')).toContain('GOLD: Pho Bac\n'); // Abs: the old value, not gold_answer
    expect(get('pl_001:after:3')).toContain('GOLD: peanuts\n'); // Del: the deleted value
    expect(get('pl_001:after:2')).toContain('GOLD (ordered history values, comma-separated): Acme Corp, Globex, Initech\n');
    expect(get('pl_001:before:2')).toMatch(/^You are a judge evaluating whether an AI agent's answer is semantically correct\./);
    expect(memeScoring.judge!.jsonMode).toBe(true);
  });

  it('the prompt files are the judge.py templates byte for byte (spot checks of escapes and tails)', () => {
    const t = readFileSync(join(ROOT, 'configs/prompts/meme-judge-multihop.txt'), 'utf8');
    expect(t.endsWith('Output ONLY JSON: {"results": [{"value": "...", "present": true/false}], "reason": "one sentence"}')).toBe(true);
    expect(readFileSync(join(ROOT, 'configs/prompts/meme-reader.txt'), 'utf8')).toBe(
      "Answer the user's question based ONLY on the context provided below.\nIf the information is not in the context, say you don't have that information.\nAnswer with ONLY the value. Do not explain or add context.\n\nContext:\n{context}\n\nQuestion: {question}",
    );
  });

  it('fills placeholders in one pass, as str.format does', () => {
    expect(fill('Q: {question} G: {gold}', { question: 'has {gold} inside', gold: 'G1' })).toBe('Q: has {gold} inside G: G1');
    expect(fill('{"correct": true/false} {x}', { question: 'q' })).toBe('{"correct": true/false} {x}');
  });

  it('formats non-string entity values as Python str() would', () => {
    expect(pyStr(['x', "it's"])).toBe(`['x', "it's"]`);
    expect(pyStr('plain')).toBe('plain');
  });

  it('renders the reader prompt (base.py UNIFIED_ANSWER_PROMPT) with evidence lines in order', () => {
    const q = ds.questions.find((x) => x.id === 'pl_001:after:0')!;
    const msgs = memeScoring.reader.render(q, historyBlocks(['[d1] user: a', '[d2] assistant: b']));
    expect(msgs).toEqual([
      {
        role: 'user',
        content:
          "Answer the user's question based ONLY on the context provided below.\nIf the information is not in the context, say you don't have that information.\nAnswer with ONLY the value. Do not explain or add context.\n\nContext:\n[d1] user: a\n[d2] assistant: b\n\nQuestion: What is my life philosophy, word for word?",
      },
    ]);
  });
});

describe('MEME judge replies and offline checks (judge.py rules)', async () => {
  const ds = await meme.load({ path: FIXTURE, options: {} });
  const q = (id: string): Question => ds.questions.find((x) => x.id === id)!;

  it('reads `correct` with Python truthiness; missing means False', () => {
    expect(parseMemeJudge('{"correct": true, "reason": "ok"}', q('pl_001:after:4'))).toBe(1);
    expect(parseMemeJudge('{"correct": false, "reason": "no"}', q('pl_001:after:4'))).toBe(0);
    expect(parseMemeJudge('{"reason": "no verdict"}', q('pl_001:after:4'))).toBe(0);
    // result.get("correct", False) is truthy for a non-empty string, even "false".
    expect(parseMemeJudge('{"correct": "false"}', q('pl_001:after:4'))).toBe(1);
    expect(truthy(0)).toBe(false);
    expect(truthy([])).toBe(false);
    expect(truthy({ a: 1 })).toBe(true);
  });

  it('strips one ``` fence like _call, and fails (an error, not WRONG) on unreadable replies', () => {
    expect(parseMemeJudge('```json\n{"correct": true}\n```', q('pl_001:before:1'))).toBe(1);
    expect(() => parseMemeJudge('YES it is correct', q('pl_001:before:1'))).toThrow(/not JSON/);
    expect(() => parseMemeJudge('[true]', q('pl_001:before:1'))).toThrow(/not a JSON object/);
  });

  it('passes Agg only when every value is present, matched to entities by position', () => {
    const agg = q('pl_001:after:1');
    const r = (...p: boolean[]) => JSON.stringify({ results: p.map((present, i) => ({ value: `v${i}`, present })), reason: 'r' });
    expect(parseMemeJudge(r(true, true, true), agg)).toBe(1);
    expect(parseMemeJudge(r(true, false, true), agg)).toBe(0);
    expect(parseMemeJudge(r(true, true), agg)).toBe(0); // a missing entry is absent
    expect(parseMemeJudge('{"reason": "none"}', agg)).toBe(0);
    expect(() => parseMemeJudge('{"results": {"a": 1}}', agg)).toThrow(/not a list/);
  });

  it('checks ER by whitespace- and case-normalised substring, after the change only', () => {
    expect(erSubstring('OOM killed by container runtime', 'oom  KILLED by\ncontainer runtime errors')).toBe(true);
    expect(erSubstring('OOM killed by container runtime', 'OOM killed by the container runtime')).toBe(false);
    const er = memeScoring.metrics.find((m) => m.name === 'er_substring')!;
    expect(er.score('Slow is smooth and  smooth is fast.', q('pl_001:after:0'))).toBe(1);
    expect(er.score('Slow is smooth', q('pl_001:after:0'))).toBe(0);
    expect(er.score('Slow is smooth and smooth is fast', q('pl_001:before:0'))).toBeNull(); // "skipped (ER)"
    expect(er.score('x', q('pl_001:after:3'))).toBeNull();
    expect(memeScoring.fallbackMetric).toBe('er_substring');
    expect(renderMemeJudge(q('pl_001:after:0'), 'x')).toBeNull();
  });

  it("reports judge.py's Tr in-order count beside the judge", () => {
    const tr = memeScoring.metrics.find((m) => m.name === 'tr_in_order')!;
    expect(tr.score('Acme Corp, then Globex, then Initech', q('pl_001:after:2'))).toBe(1);
    expect(tr.score('Initech, Globex, Acme Corp', q('pl_001:after:2'))).toBeCloseTo(1 / 3);
    expect(tr.score('x', q('pl_001:after:1'))).toBeNull();
  });
});
