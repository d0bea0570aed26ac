/** Judges that send several requests per run say so, so `--dry-run` counts them. */
import { describe, expect, it } from 'vitest';
import { beamJudge } from '../../src/benchmarks/beam/scoring.js';
import { judge as mabJudge } from '../../src/benchmarks/memoryagentbench/scoring.js';
import type { Question } from '../../src/core/schema.js';

const question = (type: string, meta: Record<string, unknown>): Question => ({
  id: 'x:q0',
  episode: 'x',
  type,
  typeId: null,
  text: 'q',
  gold: 'g',
  acceptable: ['g'],
  questionDate: null,
  evidence: [],
  options: null,
  visibleTurns: null,
  meta,
});

describe('requests per judge run', () => {
  it('BEAM: one per rubric item', () => {
    const q = question('information_extraction', { ability: 'information_extraction', rubric: ['a', 'b', 'c'] });
    expect(beamJudge.requestsPerRun!(q)).toBe(3);
  });
  it('MemoryAgentBench: three for ∞Bench-Sum (fluency, recall, precision), one otherwise', () => {
    expect(mabJudge.requestsPerRun!(question('infbench_sum', { source: 'infbench_sum' }))).toBe(3);
    expect(mabJudge.requestsPerRun!(question('longmemeval_s*', { source: 'longmemeval_s*' }))).toBe(1);
  });
});
