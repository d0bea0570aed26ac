import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProtocol, namedJudgeProtocol, namedProtocols, readVerdict } from '../../../src/reader-judge/judge-protocols.js';
import { resolveJudgePrompt } from '../../../src/reader-judge/judge-prompt.js';
import { locomoJudge } from '../../../src/benchmarks/locomo/scoring.js';
import { ROOT } from '../../helpers/cli.js';

const q = {
  id: 'conv-26:q0',
  episode: 'conv-26',
  text: 'When did Caroline go?',
  gold: '7 May 2023',
  type: 'temporal',
  evidence: [],
  category: 2,
  meta: { category: 2 },
} as any;

describe('named judge protocols', () => {
  it("identical protocols are one, under several names: LoCoMo's official judge and Mem0's are the same text", () => {
    const list = namedProtocols('locomo');
    const official = list.find((p) => p.official)!;
    expect(official.name).toBe('official');
    expect(official.aliases).toEqual(['mem0', 'locomo']);
    expect(findProtocol('locomo', 'mem0')!.name).toBe('official');
    // MemMachine's copy dropped Mem0's trailing spaces: another text, so a protocol of its own.
    expect(list.map((p) => p.name)).toEqual(['official', 'strict', 'evermemos', 'memos', 'memmachine']);
    expect(resolveJudgePrompt('mem0', 'locomo')).toBeNull();
    expect(resolveJudgePrompt('evermemos', 'locomo')).toMatchObject({ protocol: 'evermemos' });
    expect(resolveJudgePrompt(`file:${join(ROOT, 'configs/prompts/locomo-judge-strict.txt')}`, 'locomo')!.protocol).toBeUndefined();
  });

  it('sends each protocol its own messages, slots filled; the adversarial category keeps its judge', () => {
    const ever = namedJudgeProtocol(locomoJudge, findProtocol('locomo', 'evermemos')!);
    const m = ever.render(q, 'in May')!;
    expect(m.map((x) => x.role)).toEqual(['system', 'user']);
    expect(m[0]!.content).toBe(readFileSync(join(ROOT, 'configs/prompts/locomo-judge-evermemos-system.txt'), 'utf8').replace(/\n$/, ''));
    expect(m[1]!.content).toContain('Gold answer: 7 May 2023\nGenerated answer: in May\n');
    expect(ever.jsonMode).toBe(false);
    const memos = namedJudgeProtocol(locomoJudge, findProtocol('locomo', 'memos')!).render(q, 'in May')!;
    expect(memos[1]!.content).toContain('    Gold answer: 7 May 2023\n    Generated answer: in May\n');
    const cat5 = { ...q, typeId: 5 };
    expect(ever.render(cat5, 'x')).toEqual(locomoJudge.render(cat5, 'x'));
  });

  it('reads the reply as each source does', () => {
    expect(readVerdict('label-json-exact', '{"label": "CORRECT"}')).toBe(1);
    expect(readVerdict('label-json-exact', '{"label": "correct"}')).toBe(0);
    expect(() => readVerdict('label-json-exact', 'It is CORRECT')).toThrow(/unreadable/);
    expect(readVerdict('label-json-repair-exact', 'ok: {"label": "CORRECT"} done')).toBe(1);
    expect(() => readVerdict('label-json-repair-exact', '{"verdict": 1}')).toThrow(/no "label"/);
    expect(readVerdict('label-extract-else-wrong', 'Reason. ```json\n{"label": " correct "}\n```')).toBe(1);
    expect(readVerdict('label-extract-else-wrong', 'matches {"label": "CORRECT"}')).toBe(1);
    expect(readVerdict('label-extract-else-wrong', 'no idea')).toBe(0);
    expect(readVerdict('label-extract-else-wrong', '')).toBe(0);
    expect(readVerdict('label-regex-casefold', 'x {"label": "Correct"}')).toBe(1);
    expect(readVerdict('label-regex-casefold', '{"label": "WRONG"}')).toBe(0);
    expect(() => readVerdict('label-regex-casefold', 'CORRECT')).toThrow(/unreadable/);
  });
});
