/** `rawrag stats` over a RAW-RAG run and an agentic-memory run: both rows, paired tests, coverage and pollution per system. */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyse } from '../../../src/stats/compute-tables.js';
import { loadRun } from '../../../src/stats/load.js';
import { renderReport } from '../../../src/stats/render.js';
import { tempDir } from '../../helpers/cli.js';

function writeRun(root: string, system: string, items: Array<Record<string, unknown>>): string {
  const dir = join(root, system.replace(/\W+/g, '-'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({ system, benchmark: 'locomo', setting: 'locomo/gpt-4o-mini', status: 'complete' }),
  );
  writeFileSync(join(dir, 'items.jsonl'), items.map((i) => JSON.stringify(i) + '\n').join(''));
  return dir;
}

describe('stats with an agentic memory run', () => {
  it('pairs the two systems by question id and reports each one coverage, and pollution for the memory system', () => {
    const root = tempDir();
    const n = 40;
    const raw = Array.from({ length: n }, (_, i) => ({
      id: `q${i}`,
      type: 'single-hop',
      score: i < 30 ? 1 : 0,
      coverage: { all: i < 34, any: true },
      metrics: {},
    }));
    const mem = Array.from({ length: n }, (_, i) => ({
      id: `q${i}`,
      type: 'single-hop',
      score: i < 18 ? 1 : 0,
      coverage: { all: i < 20, any: i < 30 },
      metrics: { pollution: i < 20 ? 0.5 : 1 },
    }));
    const runs = [loadRun(writeRun(root, 'RAW-RAG/openai', raw)), loadRun(writeRun(root, 'agentic-memory/gpt-4o-mini', mem))];
    expect(runs[1]!.items[0]!.pollution).toBe(0.5);
    const report = analyse(runs, { resamples: 2000, seed: 0, allPairs: false });
    const f = report.families[0]!;
    expect(f.leaderboard.map((r) => r.system)).toEqual(['RAW-RAG/openai', 'agentic-memory/gpt-4o-mini']);
    expect(f.pairwise).toHaveLength(1);
    expect(f.pairwise[0]!.n).toBe(n);
    const memRow = f.coverage.find((c) => c.system.startsWith('agentic'))!;
    expect(memRow.coverage).toBeCloseTo(0.5, 12);
    expect(memRow.pollution).toBeCloseTo(0.75, 12);
    expect(memRow.pollution_n).toBe(40);
    expect(f.coverage.find((c) => c.system.startsWith('RAW'))!.pollution).toBeUndefined();
    const md = renderReport(report);
    expect(md).toContain(
      'memory pollution (agentic-memory/gpt-4o-mini): 75.00% of injected items come from turns holding no gold evidence (mean over 40 questions).',
    );
    expect(md).not.toContain('memory pollution (RAW-RAG');
  });
});
