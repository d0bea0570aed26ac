/** `--judge-prompt`: the strict prompt by name, slots checked, the text pinned by its sha256, LoCoMo's adversarial judge kept. */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers/cli.js';
import { judgeProtocolFor, resolveJudgePrompt } from '../../../src/reader-judge/judge-prompt.js';
import { locomoJudge } from '../../../src/benchmarks/locomo/scoring.js';
import type { Question } from '../../../src/core/schema.js';

const q = (typeId: number): Question => ({
  id: 'conv-26:q0',
  episode: 'conv-26',
  type: typeId === 5 ? 'adversarial' : 'temporal',
  typeId,
  text: 'When did Caroline go to the LGBTQ support group?',
  gold: '7 May 2023',
  acceptable: ['7 May 2023'],
  questionDate: null,
  evidence: [],
  options: null,
  visibleTurns: null,
});

describe('--judge-prompt', () => {
  it('`strict` is the bundled strict prompt; the official parse reads its replies; adversarial questions keep their judge', () => {
    const ref = resolveJudgePrompt('strict', 'locomo')!;
    expect(ref.file).toMatch(/configs\/prompts\/locomo-judge-strict\.txt$/);
    const p = judgeProtocolFor(locomoJudge, ref);
    expect(p.id).toBe(`locomo-mem0-accuracy-v1+prompt:${ref.sha256.slice(0, 12)}`);
    const msg = p.render(q(2), 'some time in May')![0]!.content;
    expect(msg).toContain('Be strict.');
    expect(msg).toContain('Gold answer: 7 May 2023\nGenerated answer: some time in May\n');
    expect(p.parse('{"label": "CORRECT"}', q(2))).toBe(1);
    expect(p.render(q(5), 'Not mentioned')![0]!.content).toContain('Unsupported answer: 7 May 2023');
  });

  it('a prompt without the answer slots, or changed since it was configured, is an input error naming the file', () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, 'Is {generated_answer} right?\n');
    expect(() => resolveJudgePrompt(bad, 'locomo')).toThrow(/bad\.txt: judge prompt has no \{gold_answer\} slot/);
    const good = join(dir, 'good.txt');
    writeFileSync(good, 'Q {question} G {gold_answer} A {generated_answer}\n');
    const ref = resolveJudgePrompt(good, 'locomo');
    expect(judgeProtocolFor(locomoJudge, ref).render(q(1), 'x')![0]!.content).toBe(
      'Q When did Caroline go to the LGBTQ support group? G 7 May 2023 A x',
    );
    writeFileSync(good, 'Q {question} G {gold_answer} A {generated_answer} changed\n');
    expect(() => judgeProtocolFor(locomoJudge, ref)).toThrow(/good\.txt: the judge prompt changed since the run was configured/);
  });
});
