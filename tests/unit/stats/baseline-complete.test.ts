/**
 * `rawrag stats`'s default baseline follows the comparability rule's completeness
 * (src/core/comparability.ts): among RAW-RAG runs of a family, a complete run (every question of
 * its set answered, none failed, status complete) before one that is not — here an interrupted run
 * that happens to hold as many scored questions and sorts first by its directory.
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/stats/compute-tables.js';
import { loadRun } from '../../../src/stats/load.js';
import { tempDir } from '../../helpers/cli.js';
import { locomoItems, writeRun } from '../../helpers/paper-runs.js';

describe('stats: the default baseline is a complete run', () => {
  it('prefers the complete RAW-RAG run over an interrupted one with as many scored items', () => {
    const root = tempDir('rawrag-baseline-');
    const a = writeRun(root, 'a-interrupted', {
      benchmark: 'locomo',
      reader: 'gpt-4o-mini',
      items: locomoItems(40, 3),
      status: 'interrupted',
      total: 80,
    });
    const b = writeRun(root, 'b-complete', { benchmark: 'locomo', reader: 'gpt-4o-mini', items: locomoItems(40, 4) });
    const runs = [a, b].map(loadRun);
    expect(runs.map((r) => r.complete)).toEqual([false, true]);
    // Both are RAW-RAG/openai: named apart by their directory, the complete one is the baseline.
    const report = analyse(runs, { resamples: 50, seed: 0, allPairs: false });
    expect(report.families[0]!.baseline).toMatch(/b-complete/);
  });
});
