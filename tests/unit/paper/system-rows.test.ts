/**
 * `rawrag paper` reads the paper's figures that belong to a system from the system's descriptor
 * (src/systems/<name>/ `paperRows`), by kind and never by name: a system's own leaderboard row
 * (its figure beside rawrag's for a complete run of that system, paired against RAW-RAG), the
 * memory-management add-ons paired against RAW-RAG's run of the same setting with their ingest
 * cost and the paper's per-competency figure, the write-decision audit read from a run's decision
 * log, and a system's own ablation. Nothing of the paper is left "not in rawrag".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPaperMap } from '../../../src/paper/map.js';
import { registerSystem, unregisterSystem, getSystem } from '../../../src/systems/registry.js';
import { tempDir } from '../../helpers/cli.js';
import { locomoItems, writeRun, type FakeItem } from '../../helpers/paper-runs.js';

/** A memory service as the lead will add them: no code of its own here, only its paper row. */
const opponent: ReturnType<typeof getSystem> = {
  ...getSystem('http'),
  name: 'test-opponent',
  description: 'a registered test system with a leaderboard row',
  config: undefined,
  paperRows: [
    {
      kind: 'leaderboard',
      benchmark: 'locomo',
      reader: 'gpt-4o-mini',
      title: 'the opponent’s own LoCoMo row',
      paper: '88.12',
      paperValue: 88.12,
      flags: '-S url=URL',
      needs: 'a running service (-S url=URL)',
    },
  ],
};

beforeAll(() => registerSystem(opponent));
afterAll(() => unregisterSystem(opponent.name));

const mab = (n: number, wrong: (i: number) => boolean): FakeItem[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    type: i < n / 2 ? 'ruler_qa1_197K' : 'icl_banking77_5900shot_balance',
    score: wrong(i) ? 0 : 1,
  }));

describe('rawrag paper: the systems’ own rows', () => {
  it('pairs an add-on against RAW-RAG, reads a write audit from the decision log, and lists nothing as not in rawrag', () => {
    const root = tempDir('rawrag-paper-rows-');
    const n = 40;
    writeRun(root, 'raw', { benchmark: 'memoryagentbench', reader: 'gpt-4o-mini', items: mab(n, (i) => i % 4 === 0), total: 2071 });
    writeRun(root, 'facts', {
      benchmark: 'memoryagentbench',
      system: 'raw-rag-facts',
      reader: 'gpt-4o-mini',
      items: mab(n, (i) => i % 2 === 0),
      total: 2071,
      summary: {
        ingest_llm: {
          whole_index: {
            calls: 10,
            cache_hits: 4,
            sent: { calls: 6, prompt_tokens: 600_000, completion_tokens: 60_000, cost_usd: 1.2 },
            cached: { calls: 4, prompt_tokens: 400_000, completion_tokens: 40_000, cost_usd: 0.8 },
            ms: 352_500,
          },
        },
      },
    });
    const mem0 = writeRun(root, 'mem0', {
      benchmark: 'locomo',
      system: 'mem0',
      reader: 'gpt-4o-mini',
      retriever: 'local',
      items: locomoItems(4),
      total: 1540,
    });
    const ops = ['ADD', 'ADD', 'ADD', 'UPDATE', 'NONE', 'NONE', 'NONE', 'DELETE', 'ADD', 'NONE'];
    writeFileSync(
      join(mem0, 'write-decisions.jsonl'),
      ops
        .map((operation, i) =>
          JSON.stringify({
            episode: `e${i % 2}`,
            operation,
            memory_id: operation === 'ADD' ? `m${i}` : 'm0',
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
    // 10 of 40 questions right under RAW-RAG and wrong with facts, 5 per competency: -25 points either way.
    expect(facts.delta).toMatchObject({ n });
    expect(facts.delta!.delta).toBeCloseTo(-25, 6);
    expect(facts.delta!.ci_high).toBeLessThan(0);
    for (const id of ['add-on/raw-rag-summaries', 'add-on/raw-rag-graph'])
      expect(map.entries.find((e) => e.id === id)!.status).toBe('runnable');
    // The add-on's cost: the tokens of every call that built its index, sent and cached apart.
    const cost = map.entries.find((e) => e.id === 'add-on-cost/raw-rag-facts')!;
    expect(cost.rawrag).toBeCloseTo(1.1, 6);
    expect(cost.text).toMatch(/0\.66 M sent, 0\.44 M from the cache/);
    // The paper's TTL figure: the add-on's TTL column beside RAW-RAG's (stats' competency column).
    const ttl = map.entries.find((e) => e.id === 'add-on/raw-rag-facts/TTL')!;
    expect(ttl.status).toBe('figure differs');
    expect(ttl.rawrag).toBeCloseTo(50, 6);
    expect(ttl.text).toMatch(/RAW-RAG\/openai: 75\.00/);

    const audit = map.entries.find((e) => e.id === 'audit/mem0/locomo')!;
    expect(audit.command).toMatch(/--system mem0 .*then: rawrag memory audit DIR/);
    expect(audit.rawrag).toBeCloseTo(20, 6); // UPDATE + DELETE = 2 of 10 proposals
    expect(audit.text).toMatch(/effective .* of 10 decisions/);
    const addOnly = map.entries.find((e) => e.id === 'ablation/agentic-memory/mutations=off')!;
    expect(addOnly.command).toBe('rawrag ablate locomo --system agentic-memory --reader gpt-4o-mini -S mutations=on,off');
  });

  it("shows a registered system's leaderboard row beside rawrag's figure for a complete run of that system only", () => {
    const root = tempDir('rawrag-paper-board-');
    const id = 'leaderboard/test-opponent/locomo/gpt-4o-mini';
    let map = buildPaperMap([root]);
    let row = map.entries.find((e) => e.id === id)!;
    expect(row).toMatchObject({ section: 'main results', paper_value: 88.12, status: 'runnable', rawrag: null });
    expect(row.command).toBe('rawrag run locomo --system test-opponent --reader gpt-4o-mini -S url=URL');

    // A partial run of the system: shown beside, never as the figure.
    writeRun(root, 'partial', {
      benchmark: 'locomo',
      system: 'test-opponent',
      label: 'test-opponent',
      reader: 'gpt-4o-mini',
      config: { limit: 100 },
      items: locomoItems(100, 2),
      total: 1540,
    });
    map = buildPaperMap([root]);
    row = map.entries.find((e) => e.id === id)!;
    expect(row.status).toBe('partial');
    expect(row.rawrag).toBeNull();
    expect(row.others[0]!.label).toBe('partial (100 of 1,540)');

    // A complete run of the system, and one of RAW-RAG in the same setting to pair against.
    writeRun(root, 'full', {
      benchmark: 'locomo',
      system: 'test-opponent',
      label: 'test-opponent',
      reader: 'gpt-4o-mini',
      items: locomoItems(1540, 5),
      total: 1540,
    });
    writeRun(root, 'raw', { benchmark: 'locomo', reader: 'gpt-4o-mini', items: locomoItems(1540, 10), total: 1540 });
    map = buildPaperMap([root]);
    row = map.entries.find((e) => e.id === id)!;
    // Same data, split, system and setting, but 80.00 is far from the paper's 88.12: shown, never called reproduced.
    expect(row.status).toBe('figure differs');
    expect(row.condition).toBe('figure');
    expect(row.why).toMatch(/^figure differs: 80\.00 vs 88\.12 \(rawrag's 95 % CI \[7\d\.\d\d, 8\d\.\d\d\]; difference -8\.12;/);
    expect(row.rawrag).toBeCloseTo(80, 6);
    expect(row.run).toMatch(/full$/);
    expect(row.delta!.delta).toBeCloseTo(-10, 6);
    expect(row.delta!.against).toMatch(/raw$/);
  });
});
