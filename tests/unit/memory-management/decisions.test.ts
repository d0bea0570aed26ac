/**
 * The agentic memory system's write-decision log against a real SQLite store: what each
 * validation outcome records (ADD, UPDATE of the superseded item, a no-op UPDATE, a duplicate's
 * NONE, low confidence, an update with no target), add-only mode (`memory.mutations: false`:
 * UPDATE carried out as ADD, zero effective mutations), and the audit of the log.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { MemorySchema, type MemoryConfig } from '../../../src/systems/agentic-memory/config.js';
import type { Turn } from '../../../src/core/schema.js';
import { EntityAligner } from '../../../src/systems/agentic-memory/entities.js';
import { parseExtraction } from '../../../src/systems/agentic-memory/extract.js';
import type { Batch } from '../../../src/ingest-llm/batches.js';
import { MemoryStore } from '../../../src/systems/agentic-memory/store.js';
import { applyBatch } from '../../../src/systems/agentic-memory/validate.js';
import { readDecisions } from '../../../src/systems/agentic-memory/decisions.js';
import { auditDecisions, renderAudit } from '../../../src/memory-audit/write-audit.js';
import { tempDir } from '../../helpers/cli.js';
import { item } from '../../helpers/fake-extractor.js';

const turns: Turn[] = [1, 2, 3].flatMap((s) => [
  { id: `D${s}:1`, session: String(s), date: `${s} May, 2023`, speaker: 'Caroline', text: `turn ${s}a`, captions: [] },
  { id: `D${s}:2`, session: String(s), date: `${s} May, 2023`, speaker: 'Melanie', text: `turn ${s}b`, captions: [] },
]);
const batch = (i: number): Batch => ({ index: i, first: 2 * i, last: 2 * i + 1, key: `t${2 * i}-${2 * i + 1}` });

/** One-hot vectors by name, so similarity is chosen by the test. */
function vec(k: number): Float32Array {
  const v = new Float32Array(16);
  v[k] = 1;
  return v;
}

function setup(mcfg: MemoryConfig) {
  const store = new MemoryStore(join(tempDir('rawrag-decisions-'), 'memory.sqlite'));
  const ctx = { owner: 'o', scope: turns.length, turns, aligner: new EntityAligner(['Caroline', 'Melanie']), cfg: mcfg };
  const write = (b: number, items: Array<Record<string, unknown>>, vs: number[]) => {
    const parsed = parseExtraction(JSON.stringify(items));
    const log = {
      owner_id: 'o',
      scope: turns.length,
      batch_index: b,
      batch_key: batch(b).key,
      first_turn: turns[2 * b]!.id,
      last_turn: turns[2 * b + 1]!.id,
      model: 'm',
      request_key: `k${b}`,
      cached: false,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost_usd: 0,
    };
    const kept = parsed.map((p, i) => ({ p, v: vs[i]! })).filter(({ p }) => p.confidence >= mcfg.minConfidence);
    return applyBatch(
      store,
      ctx,
      batch(b),
      parsed,
      kept.map(({ v }) => vec(v)),
      log,
    );
  };
  return { store, write };
}

function history(mutations: boolean) {
  const { store, write } = setup(MemorySchema.parse(mutations ? {} : { mutations: false }));
  write(
    0,
    [
      item('Caroline lives in Boston.', ['Caroline'], ['D1:1'], { attribute: 'caroline.home_city' }),
      item('Melanie paints.', ['Melanie'], ['D1:2']),
      item('Melanie maybe likes jazz.', ['Melanie'], ['D1:2'], { confidence: 0.3 }),
    ],
    [0, 1, 2],
  );
  write(
    1,
    [
      item('Caroline lives in Denver.', ['Caroline'], ['D2:1'], { attribute: 'caroline.home_city', updates: true }),
      item('Melanie paints.', ['Melanie'], ['D2:2']),
      item('Melanie sold a car.', ['Melanie', 'car'], ['D2:2'], { updates: true }),
    ],
    [3, 1, 4],
  );
  // Restated twice: once flagged as an update (a no-op UPDATE), once plainly (a duplicate).
  write(
    2,
    [
      item('Caroline lives in Denver.', ['Caroline'], ['D3:1'], { attribute: 'caroline.home_city', updates: true }),
      item('Caroline lives in Denver!', ['Caroline'], ['D3:1'], { attribute: 'caroline.home_city' }),
    ],
    [5, 6],
  );
  return store;
}

describe('agentic memory write-decision log', () => {
  it('records every proposal with what was done; identical re-statements are no-op updates', () => {
    const store = history(true);
    const log = readDecisions(store.db);
    expect(
      log.map((d) => [d.operation, d.memory_id === null ? null : d.memory_id.replace(/^o@6\//, ''), d.applied ?? '', d.reason ?? '']),
    ).toEqual([
      ['NONE', null, '', 'low-confidence'],
      ['ADD', 't0-1/0', '', ''],
      ['ADD', 't0-1/1', '', ''],
      ['UPDATE', 't0-1/0', '', ''],
      ['NONE', 't0-1/1', '', 'duplicate'],
      ['UPDATE', null, 'ADD', 'no-target'],
      ['UPDATE', 't2-3/0', 'NONE', 'no-op'],
      ['NONE', 't2-3/0', '', 'duplicate'],
    ]);
    const a = auditDecisions(log, { source: 'x', benchmark: null, system: 'agentic-memory' });
    expect(a.operations).toEqual({ ADD: 2, UPDATE: 3, DELETE: 0, NONE: 3 });
    expect(a.effective_mutations.total).toBe(1); // Boston -> Denver; Denver -> Denver is a no-op; no target is malformed
    expect(a.classes).toEqual({ repeated: 0, malformed: 1, 'no-op': 1 });
    expect(a.proposed_mutation_rate).toBeCloseTo(3 / 8, 10);
    expect(a.effective_mutation_rate).toBeCloseTo(1 / 8, 10);
    // Boston superseded by Denver; the restatements merged into Denver, which stays active with their turns.
    expect(
      store
        .memories('o')
        .filter((m) => m.status === 'superseded')
        .map((m) => m.content),
    ).toEqual(['Caroline lives in Boston.']);
    const denver = store.memories('o').find((m) => m.content === 'Caroline lives in Denver.')!;
    expect(denver).toMatchObject({ status: 'active', source_turns: ['D2:1', 'D3:1'] });
    const text = renderAudit(a);
    expect(text).toContain('| agentic-memory |         8 |');
    expect(text).toContain('1 malformed');
  });

  it('add-only (mutations: false): the same proposals, UPDATE carried out as ADD, nothing superseded, zero effective mutations', () => {
    const store = history(false);
    const log = readDecisions(store.db);
    // Boston stays active beside Denver; the restatement of Denver is a no-op either way.
    expect(log.filter((d) => d.operation === 'UPDATE').map((d) => [d.applied, d.reason])).toEqual([
      ['ADD', 'add-only'],
      ['ADD', 'no-target'],
      ['NONE', 'no-op'],
    ]);
    const a = auditDecisions(log, { source: 'x', benchmark: 'locomo', system: 'agentic-memory' });
    expect(a.operations.UPDATE).toBe(3);
    expect(a.effective_mutations).toEqual({ UPDATE: 0, DELETE: 0, total: 0 });
    expect(a.applied).toEqual({ ADD: 4, UPDATE: 0, DELETE: 0, NONE: 4 });
    expect(store.memories('o').filter((m) => m.status === 'superseded')).toHaveLength(0);
    expect(
      store
        .memories('o')
        .filter((m) => m.status === 'active')
        .map((m) => m.content),
    ).toContain('Caroline lives in Boston.');
    // The paper's Mem0 row sits beside a LoCoMo audit.
    expect(renderAudit(a)).toMatch(/\| Mem0 \(paper\) +\| +33902 \| +17\.13 \| +3\.39 \| +1\.01 \| +78\.48 \| +4\.39 \| +1\.90 \|/);
  });
});
