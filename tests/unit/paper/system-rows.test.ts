/**
 * `rawrag paper` reads the paper's figures that belong to a system from the system's descriptor
 * (src/systems/<name>/ `paperRows`): the memory-management add-ons paired against RAW-RAG's run of
 * the same setting, the write-decision audit read from a run's decision log, and a system's own
 * ablation. Nothing of the paper is left "not in rawrag".
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPaperMap } from '../../../src/paper/map.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { tempDir } from '../../helpers/cli.js';

function run(root: string, name: string, m: { system: string; label: string; benchmark: string; reference?: boolean }, scores: number[]) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const config = RunConfigSchema.parse({
    benchmark: m.benchmark,
    system: m.system,
    reader: { model: 'gpt-4o-mini' },
    retrieval: { retriever: 'openai' },
  });
  const setting = `${m.benchmark}/gpt-4o-mini`;
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({ benchmark: m.benchmark, system: m.label, setting, reference: m.reference === true, config }),
  );
  writeFileSync(
    join(dir, 'items.jsonl'),
    scores.map((score, i) => JSON.stringify({ id: `q${i}`, type: 't', score, error: null })).join('\n') + '\n',
  );
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  writeFileSync(
    join(dir, 'summary.json'),
    JSON.stringify({ overall: { accuracy: mean }, benchmark_summary: { overall: { score: 100 * mean } } }),
  );
  return dir;
}

describe('rawrag paper: the systems’ own rows', () => {
  it('pairs an add-on against RAW-RAG, reads a write audit from the decision log, and lists nothing as not in rawrag', () => {
    const root = tempDir('rawrag-paper-rows-');
    const n = 40;
    run(
      root,
      'raw',
      { system: 'raw-rag', label: 'RAW-RAG/openai', benchmark: 'memoryagentbench', reference: true },
      Array.from({ length: n }, (_, i) => (i % 4 === 0 ? 0 : 1)),
    );
    run(
      root,
      'facts',
      { system: 'raw-rag-facts', label: 'RAW-RAG+facts/openai', benchmark: 'memoryagentbench' },
      Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 0 : 1)),
    );
    const mem0 = run(root, 'mem0', { system: 'mem0', label: 'mem0', benchmark: 'locomo' }, [1, 0, 1, 1]);
    const ops = ['ADD', 'ADD', 'ADD', 'UPDATE', 'NONE', 'NONE', 'NONE', 'DELETE', 'ADD', 'NONE'];
    writeFileSync(
      join(mem0, 'write-decisions.jsonl'),
      ops
        .map((operation, i) =>
          JSON.stringify({
            episode: `e${i % 2}`,
            operation,
            memory_id: `m${i}`,
            old_text: operation === 'ADD' ? null : 'a',
            new_text: operation === 'DELETE' || operation === 'NONE' ? null : `b${i}`,
          }),
        )
        .join('\n') + '\n',
    );

    const map = buildPaperMap([root], { seed: 1 });
    expect(map.entries.filter((e) => e.status === 'not in rawrag')).toEqual([]);
    const facts = map.entries.find((e) => e.id === 'add-on/raw-rag-facts')!;
    expect(facts.command).toMatch(/rawrag run memoryagentbench --system raw-rag-facts --retriever openai --reader gpt-4o-mini/);
    expect(facts.status).toBe('reproduced');
    expect(facts.rawrag).toBeCloseTo(50, 6);
    // 10 of 40 questions right under RAW-RAG and wrong with facts: -25 points, paired.
    expect(facts.delta).toMatchObject({ n: n });
    expect(facts.delta!.delta).toBeCloseTo(-25, 6);
    expect(facts.delta!.ci_high).toBeLessThan(0);
    for (const id of ['add-on/raw-rag-summaries', 'add-on/raw-rag-graph'])
      expect(map.entries.find((e) => e.id === id)!.status).toBe('runnable');

    const audit = map.entries.find((e) => e.id === 'audit/mem0')!;
    expect(audit.command).toMatch(/--system mem0 .*then: rawrag memory audit DIR/);
    expect(audit.rawrag).toBeCloseTo(20, 6); // UPDATE + DELETE = 2 of 10 proposals
    const addOnly = map.entries.find((e) => e.id === 'ablation/agentic-memory/mutations=off')!;
    expect(addOnly.command).toBe('rawrag ablate locomo --system agentic-memory --reader gpt-4o-mini --mutations on,off');
  });
});
