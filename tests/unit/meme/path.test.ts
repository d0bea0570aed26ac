/**
 * MEME result vs path (src/benchmarks/meme/path.ts) on the constructed fixture: a 2-hop cascade's path
 * needs the root's change (the trigger) and the intermediate's new value beside the result; a
 * tracking question's result is its latest value, its path every value.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { meme } from '../../../src/benchmarks/meme/index.js';
import { relevantTurns, resultPath, type PathFacts } from '../../../src/benchmarks/meme/path.js';
import { ROOT } from '../../helpers/cli.js';

const ds = await meme.load({ path: join(ROOT, 'tests/fixtures/meme/meme_fixture.json'), options: {} });
const q = (pred: (meta: Record<string, unknown>) => boolean) => ds.questions.find((x) => x.meta && pred(x.meta))!;

describe('MEME result vs path', () => {
  it('2-hop cascade: path = result + intermediate new value + the trigger', () => {
    const cas = q((m) => m.phase === 'after' && m.task === 'Cas' && m.hop === 2);
    const p = cas.meta!.path as PathFacts;
    expect(p.result.map((f) => f.entity)).toEqual(['commute_duration']);
    expect(p.path.map((f) => `${f.entity}=${f.value}`)).toEqual([
      'commute_duration=25 minutes',
      'commute_method=light rail',
      'residence_location=Denver',
    ]);
    const resultOnly = p.result.flatMap((f) => f.turns);
    expect(resultPath(cas, resultOnly)).toEqual({ path_result: 1, path_coverage: 0 });
    expect(resultPath(cas, relevantTurns(cas))).toEqual({ path_result: 1, path_coverage: 1 });
    expect(resultPath(cas, [])).toEqual({ path_result: 0, path_coverage: 0 });
  });

  it('tracking: result = the latest value, path = every value; other tasks have none', () => {
    const tr = q((m) => m.phase === 'after' && m.task === 'Tr');
    const p = tr.meta!.path as PathFacts;
    expect(p.result.map((f) => f.value)).toEqual(['Initech']);
    expect(p.path.map((f) => f.value)).toEqual(['Acme Corp', 'Globex', 'Initech']);
    expect(
      resultPath(
        tr,
        p.result.flatMap((f) => f.turns),
      ),
    ).toEqual({ path_result: 1, path_coverage: 0 });
    const er = q((m) => m.phase === 'after' && m.task === 'ER');
    expect(resultPath(er, er.evidence)).toEqual({});
  });
});
