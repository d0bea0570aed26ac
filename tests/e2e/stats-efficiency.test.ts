/**
 * The efficiency table of `rawrag stats`: the LLM work a system did at ingest as its summary reports
 * it — tokens and dollars from the same calls, those sent and those the cache answered apart (issue
 * 34, problem 6: tokens came from the items, which count only the calls sent, beside dollars of every
 * call) —, the wall time of each phase from the manifest in units that fit, and one row per run the
 * leaderboard used (a duplicate run directory, same config hash, is skipped there as here).
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { efficiencyRow, fitSeconds, renderEfficiency } from '../../src/stats/efficiency.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/cli.js';

function runDir(root: string, name: string, system: string, summary: Record<string, unknown>, walls?: Record<string, number>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      system,
      benchmark: 'locomo',
      setting: 'locomo/gpt-4o-mini',
      config_hash: `hash-${system}`,
      ...(walls ? { phase_wall_ms: walls } : {}),
    }),
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
  it('reads ingest tokens and dollars from the same calls of a system section, sent and cached apart', () => {
    const root = tempDir('rawrag-efficiency-');
    // 442,534 tokens sent and as many answered by the cache: the items count only the sent ones.
    const whole = {
      calls: 540,
      cache_hits: 270,
      prompt_tokens: 800_000,
      completion_tokens: 85_068,
      cost_usd: 0.2,
      sent: { calls: 270, prompt_tokens: 400_000, completion_tokens: 42_534, cost_usd: 0.1 },
      cached: { calls: 270, prompt_tokens: 400_000, completion_tokens: 42_534, cost_usd: 0.1 },
      ms: 352_500,
    };
    const facts = efficiencyRow(
      runDir(
        root,
        'facts',
        'RAW-RAG+facts',
        { ingest_llm: { whole_index: whole } },
        { ingest: 2900, search: 420, add_search: 3100, processes: 1 },
      ),
    )!;
    expect(facts).toMatchObject({
      questions: 4,
      add_work_s: 1,
      add_wall_s: 2.9,
      add_search_wall_s: 3.1,
      search_ms_per_question: 10,
      ingest_llm_tokens: 442_534,
      ingest_llm_tokens_cached: 442_534,
      ingest_cost_usd: 0.1,
      ingest_cost_usd_cached: 0.1,
      ingest_call_latency_s: 352.5,
    });
    const memory = efficiencyRow(
      runDir(root, 'memory', 'agentic-memory', {
        memory: { ingest: { cost_usd: 0.5, prompt_tokens: 900, completion_tokens: 100 }, items: { stored: 42 } },
      }),
    );
    expect(memory).toMatchObject({
      ingest_cost_usd: 0.5,
      ingest_llm_tokens: 1000,
      ingest_llm_tokens_cached: 0,
      store_objects: 42,
      add_wall_s: null,
    });
    expect(efficiencyRow(runDir(root, 'raw', 'RAW-RAG', {}))).toMatchObject({
      ingest_cost_usd: null,
      ingest_llm_tokens: 0,
      store_objects: null,
    });
    // Time in the unit that fits, the summed call latency under its own label, never as a time.
    const table = renderEfficiency([facts]);
    expect(table).toMatch(/\|\s+2\.90 s \|\s+0\.42 s \|\s+3\.10 s \|/);
    expect(table).toMatch(/summed ingest call latency \(calls overlap and cache hits count: not a time\): RAW-RAG\+facts 5\.9 min/);
    expect(fitSeconds(0.42)).toBe('0.42 s');
    expect(fitSeconds(1188)).toBe('19.8 min');
    expect(fitSeconds(0.33 * 3600 * 10)).toBe('3.30 h');
  });

  it("a memory service's first add → searchable per owner (p50 / p95) and every system's search latency p50 / p95", () => {
    const root = tempDir('rawrag-efficiency-service-');
    const dir = runDir(root, 'svc', 'MemOS', {
      service: { timing: { add_to_ready_ms: { n: 4, total: 40_000, p50: 7_000, p95: 15_500 }, search_ms: { n: 8, p50: 128, p95: 254 } } },
    });
    const row = efficiencyRow(dir)!;
    expect(row).toMatchObject({ add_to_ready: { p50_s: 7, p95_s: 15.5, owners: 4 }, search_ms_p50: 10, search_ms_p95: 10 });
    expect(efficiencyRow(runDir(root, 'raw', 'RAW-RAG', {}))!.add_to_ready).toBeNull();
    expect(renderEfficiency([row])).toMatch(/\| +10\.0; 10 \/ 10 \| +7\.00 s \/ 15\.5 s \(4 owners\) \|/);
  });

  it('rawrag stats: a duplicate run directory is one row, as in the leaderboard', async () => {
    const root = tempDir('rawrag-efficiency-dup-');
    runDir(root, 'a', 'RAW-RAG+facts', { ingest_llm: { whole_index: { cost_usd: 0.25, prompt_tokens: 10, completion_tokens: 5 } } });
    runDir(root, 'b', 'RAW-RAG+facts', { ingest_llm: { whole_index: { cost_usd: 0.25, prompt_tokens: 10, completion_tokens: 5 } } });
    runDir(root, 'c', 'RAW-RAG', {});
    const r = await rawragInProcess(['stats', root, '--no-report', '--resamples', '200', '--out', join(root, 'stats')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/a duplicate run/);
    const rows = r.stdout.split('\n').filter((l) => /^\| locomo +\|/.test(l));
    expect(rows.map((l) => l.split('|')[2]!.trim())).toEqual(['RAW-RAG', 'RAW-RAG+facts']);
    expect(rows[1]).toMatch(/\|\s+\$0\.2500 \|/);
  });
});
