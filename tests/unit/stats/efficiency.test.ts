/**
 * The efficiency table of `rawrag stats`: the dollars a system spent at ingest as its summary
 * reports them (its own section's `ingest.cost_usd`, or a whole-index figure), and one row per run
 * the leaderboard used (a duplicate run directory, same config hash, is skipped there as here).
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { efficiencyRow } from '../../../src/stats/efficiency.js';
import { rawragInProcess } from '../../helpers/in-process.js';
import { tempDir } from '../../helpers/cli.js';

function runDir(root: string, name: string, system: string, summary: Record<string, unknown>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({ system, benchmark: 'locomo', setting: 'locomo/gpt-4o-mini', config_hash: `hash-${system}` }),
  );
  const items = Array.from({ length: 4 }, (_, i) => ({
    id: `conv-26:q${i}`,
    type: 'single-hop',
    score: i % 2,
    coverage: { all: true, any: true },
    timings: { ingest_share_ms: 250, retrieve_ms: 10, ingest_llm_prompt_tokens: 100, ingest_llm_completion_tokens: 25 },
  }));
  writeFileSync(join(dir, 'items.jsonl'), items.map((i) => JSON.stringify(i)).join('\n') + '\n');
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
  return dir;
}

describe('efficiency table', () => {
  it('reads ingest dollars from a system section, whole-index figures included, and the ingest tokens from the items', () => {
    const root = tempDir('rawrag-efficiency-');
    const facts = efficiencyRow(runDir(root, 'facts', 'RAW-RAG+facts', { ingest_llm: { whole_index: { cost_usd: 0.25, calls: 3 } } }));
    expect(facts).toMatchObject({ questions: 4, add_s: 1, ingest_llm_tokens: 500, ingest_cost_usd: 0.25, search_ms_per_question: 10 });
    const memory = efficiencyRow(
      runDir(root, 'memory', 'agentic-memory', { memory: { ingest: { cost_usd: 0.5 }, items: { stored: 42 } } }),
    );
    expect(memory).toMatchObject({ ingest_cost_usd: 0.5, store_objects: 42 });
    expect(efficiencyRow(runDir(root, 'raw', 'RAW-RAG', {}))).toMatchObject({ ingest_cost_usd: null, store_objects: null });
  });

  it('rawrag stats: a duplicate run directory is one row, as in the leaderboard', async () => {
    const root = tempDir('rawrag-efficiency-dup-');
    runDir(root, 'a', 'RAW-RAG+facts', { ingest_llm: { whole_index: { cost_usd: 0.25 } } });
    runDir(root, 'b', 'RAW-RAG+facts', { ingest_llm: { whole_index: { cost_usd: 0.25 } } });
    runDir(root, 'c', 'RAW-RAG', {});
    const r = await rawragInProcess(['stats', root, '--no-report', '--resamples', '200', '--out', join(root, 'stats')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/a duplicate run/);
    const rows = r.stdout.split('\n').filter((l) => /^\| locomo +\|/.test(l));
    expect(rows.map((l) => l.split('|')[2]!.trim())).toEqual(['RAW-RAG', 'RAW-RAG+facts']);
    expect(rows[1]).toMatch(/\|\s+0\.2500 \|/);
  });
});
