/**
 * Forgetting against a real SQLite store: decay below the floor (forgotten, the reason recorded),
 * key attributes that never decay, eviction over capacity, the write cap per time window, and
 * recall's hard filters (forgotten never; expired, never-touched items not at the question's date).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { MemorySchema, type MemoryConfig } from '../../../src/systems/agentic-memory/config.js';
import type { Turn } from '../../../src/core/schema.js';
import { EntityAligner } from '../../../src/systems/agentic-memory/entities.js';
import { parseExtraction } from '../../../src/systems/agentic-memory/extract.js';
import type { Batch } from '../../../src/ingest-llm/batches.js';
import { decayedImportance, expired, isKeyAttribute } from '../../../src/systems/agentic-memory/forget.js';
import { scoreMemories } from '../../../src/systems/agentic-memory/recall.js';
import { MemoryStore } from '../../../src/systems/agentic-memory/store.js';
import { applyBatch } from '../../../src/systems/agentic-memory/validate.js';
import { parseDay } from '../../../src/retrieval/local/dates.js';
import { tempDir } from '../../helpers/cli.js';
import { item } from '../../helpers/fake-extractor.js';

/** Two turns per date, in order. */
function turnsOn(dates: string[]): Turn[] {
  return dates.flatMap((date, s) => [
    { id: `D${s + 1}:1`, session: String(s + 1), date, speaker: 'Caroline', text: `turn ${s + 1}a`, captions: [] },
    { id: `D${s + 1}:2`, session: String(s + 1), date, speaker: 'Melanie', text: `turn ${s + 1}b`, captions: [] },
  ]);
}

function batch(index: number): Batch {
  return { index, first: 2 * index, last: 2 * index + 1, key: `t${2 * index}-${2 * index + 1}` };
}

/** A distinct unit vector per item, so nothing is a duplicate or a conflict. */
function vectors(n: number, offset: number): Float32Array[] {
  return Array.from({ length: n }, (_, i) => {
    const v = new Float32Array(64);
    v[(offset + i) % 64] = 1;
    return v;
  });
}

function setup(mcfg: MemoryConfig, dates: string[]) {
  const store = new MemoryStore(join(tempDir('rawrag-forget-'), 'memory.sqlite'));
  const turns = turnsOn(dates);
  const ctx = { owner: 'o', scope: turns.length, turns, aligner: new EntityAligner(['Caroline', 'Melanie']), cfg: mcfg };
  let offset = 0;
  const write = (b: number, items: Array<Record<string, unknown>>) => {
    const parsed = parseExtraction(JSON.stringify(items));
    const vs = vectors(parsed.length, offset);
    offset += parsed.length;
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
    return applyBatch(store, ctx, batch(b), parsed, vs, log);
  };
  return { store, write, byContent: (c: string) => store.memories('o').find((m) => m.content === c)! };
}

const CONCERT = 'Caroline went to a concert.';
const ALLERGY = 'Caroline is allergic to peanuts.';
const PAINTS = 'Melanie paints landscapes.';

describe('forgetting', () => {
  it('defaults live in the memory config section', () => {
    const f = MemorySchema.parse({}).forgetting;
    expect(f).toMatchObject({ enabled: true, importanceCeiling: 0.9, floor: 0.05, maxItems: 1000, writeCap: 100, writeWindowDays: 1 });
    expect(f.halfLifeDays).toEqual({ episodic: 90, semantic: 365, procedural: 365 });
    expect(isKeyAttribute('caroline.allergies', f)).toBe(true);
    expect(isKeyAttribute('caroline.name', f)).toBe(true);
    expect(isKeyAttribute('caroline.home_city', f)).toBe(false);
    expect(isKeyAttribute(null, f)).toBe(false);
  });

  it('an item whose importance decays below the floor is forgotten, with why; a key attribute never decays', () => {
    const mcfg = MemorySchema.parse({});
    const { store, write, byContent } = setup(mcfg, ['1 January, 2023', '1 January, 2024']);
    write(0, [
      item(CONCERT, ['Caroline', 'concert'], ['D1:1'], { memory_type: 'episodic', importance: 0.3 }),
      item(ALLERGY, ['Caroline', 'peanuts'], ['D1:1'], { memory_type: 'episodic', importance: 0.3, attribute: 'caroline.allergies' }),
      item(PAINTS, ['Melanie'], ['D1:2'], { importance: 0.5 }),
    ]);
    expect(store.memories('o').map((m) => m.status)).toEqual(['active', 'active', 'active']);
    // A year later: the episodic item (half-life 90 days) is at 0.3 * 2^(-365/90) < 0.05.
    const out = write(1, [item('Melanie visited Rome.', ['Melanie', 'Rome'], ['D2:2'], { memory_type: 'episodic' })]);
    expect(out.forgotten).toBe(1);
    const concert = byContent(CONCERT);
    expect(concert).toMatchObject({ status: 'forgotten', forgotten_reason: 'decayed', forgotten_at: '1 January, 2024' });
    expect(concert.forgotten_note).toMatch(/< floor 0.05 after 365 days unaccessed/);
    expect(concert.decay_rate).toBeCloseTo(Math.LN2 / 90, 12);
    // The key attribute, just as old and as unimportant, keeps its full importance.
    const allergy = byContent(ALLERGY);
    expect(allergy).toMatchObject({ status: 'active', key_attribute: true, decay_rate: 0, importance_ceiling: 1 });
    expect(decayedImportance(allergy, parseDay('1 January, 2040'))).toBe(0.3);
    expect(expired(allergy, parseDay('1 January, 2040'), mcfg.forgetting)).toBe(false);
    // The semantic item (half-life 365 days) halved: 0.5 * 0.5, still above the floor.
    const paints = byContent(PAINTS);
    expect(paints.status).toBe('active');
    expect(decayedImportance(paints, parseDay('1 January, 2024'))).toBeCloseTo(0.25, 2);
    expect(store.totals()).toMatchObject({ forgotten: 1, forgotten_by: { decayed: 1, evicted: 0, write_cap: 0 } });
    store.close();
  });

  it('the importance ceiling caps what an ordinary item counts', () => {
    const mcfg = MemorySchema.parse({ forgetting: { importanceCeiling: 0.6 } });
    const { store, write, byContent } = setup(mcfg, ['1 January, 2023']);
    write(0, [
      item(PAINTS, ['Melanie'], ['D1:2'], { importance: 1 }),
      item(ALLERGY, ['Caroline'], ['D1:1'], { importance: 1, attribute: 'caroline.allergy' }),
    ]);
    expect(decayedImportance(byContent(PAINTS), parseDay('1 January, 2023'))).toBe(0.6);
    expect(decayedImportance(byContent(ALLERGY), parseDay('1 January, 2023'))).toBe(1);
    store.close();
  });

  it('the write cap per time window holds; the items over it are recorded as forgotten', () => {
    const mcfg = MemorySchema.parse({ forgetting: { writeCap: 2, writeWindowDays: 1 } });
    const { store, write } = setup(mcfg, ['3 March, 2023', '3 March, 2023', '4 March, 2023']);
    const three = (s: number) =>
      [0, 1, 2].map((i) => item(`Fact ${s}.${i}.`, [`thing${s}${i}`], [`D${s + 1}:1`], { memory_type: 'episodic' }));
    expect(write(0, three(0))).toMatchObject({ stored: 2, capped: 1 });
    // Same day, new batch: the window is full.
    expect(write(1, three(1))).toMatchObject({ stored: 0, capped: 3 });
    // The next day is a new window.
    expect(write(2, three(2))).toMatchObject({ stored: 2, capped: 1 });
    const rows = store.memories('o');
    const day = (d: string) => rows.filter((m) => m.created_at === d && m.status === 'active').length;
    expect(day('3 March, 2023')).toBe(2);
    expect(day('4 March, 2023')).toBe(2);
    const capped = rows.filter((m) => m.forgotten_reason === 'write-cap');
    expect(capped).toHaveLength(5);
    expect(capped.every((m) => m.status === 'forgotten' && /write cap 2 items per 1 day/.test(m.forgotten_note!))).toBe(true);
    expect(store.totals().forgotten_by.write_cap).toBe(5);
    store.close();
  });

  it('eviction over capacity takes the lowest decayed importance first, never a key attribute', () => {
    const mcfg = MemorySchema.parse({ forgetting: { maxItems: 2 } });
    const { store, write, byContent } = setup(mcfg, ['1 January, 2023']);
    write(0, [
      item(ALLERGY, ['Caroline', 'peanuts'], ['D1:1'], { importance: 0.1, attribute: 'caroline.allergies' }),
      item(PAINTS, ['Melanie'], ['D1:2'], { importance: 0.4 }),
      item(CONCERT, ['Caroline', 'concert'], ['D1:1'], { importance: 0.7 }),
    ]);
    expect(byContent(PAINTS)).toMatchObject({ status: 'forgotten', forgotten_reason: 'evicted' });
    expect(byContent(ALLERGY).status).toBe('active');
    expect(byContent(CONCERT).status).toBe('active');
    store.close();
  });

  it('recall: a forgotten item is never recalled; an expired, never-touched one is not recalled at the question date', () => {
    const mcfg = MemorySchema.parse({ weights: { cosine: 1, entity: 0, recency: 0, importance: 0 } });
    const { store, write } = setup(mcfg, ['1 January, 2023', '1 January, 2024']);
    write(0, [
      item(CONCERT, ['Caroline', 'concert'], ['D1:1'], { memory_type: 'episodic', importance: 0.3 }),
      item(ALLERGY, ['Caroline', 'peanuts'], ['D1:1'], { memory_type: 'episodic', importance: 0.3, attribute: 'caroline.allergies' }),
      item(PAINTS, ['Melanie'], ['D1:2'], { memory_type: 'episodic', importance: 0.9 }),
    ]);
    write(1, []);
    const all = store.memories('o');
    const ids = (nowDay: number | null, rows = all) =>
      scoreMemories(rows, { vector: Float32Array.from({ length: 64 }, () => 1), focus: [], nowDay }, mcfg).map((s) => s.memory.content);
    // The concert was forgotten at ingest: not even a question dated before that recalls it.
    expect(ids(parseDay('2 January, 2023'))).toEqual([ALLERGY, PAINTS]);
    // Asked years later: the paintings item (0.9 * 2^(-days/90)) expired, never touched: filtered; the key attribute stays.
    expect(ids(parseDay('1 January, 2026'))).toEqual([ALLERGY]);
    // A touched item is not "never touched": the hard filter leaves it to the score.
    const touched = all.map((m) => (m.content === PAINTS ? { ...m, access_count: 1 } : m));
    expect(ids(parseDay('1 January, 2026'), touched)).toEqual([ALLERGY, PAINTS]);
    // Forgetting off: nothing expires (the forgotten row stays forgotten).
    const off = { ...mcfg, forgetting: { ...mcfg.forgetting, enabled: false } };
    const q = { vector: Float32Array.from({ length: 64 }, () => 1), focus: [], nowDay: parseDay('1 January, 2026') };
    expect(scoreMemories(all, q, off).map((s) => s.memory.content)).toEqual([ALLERGY, PAINTS]);
    store.close();
  });
});

describe('stores written before forgetting existed', () => {
  it('get the forgetting columns when opened (neutral values: no decay, not a key attribute)', async () => {
    const { default: Database } = await import('better-sqlite3');
    const path = join(tempDir('rawrag-forget-old-'), 'memory.sqlite');
    const old = new Database(path);
    old.exec(`CREATE TABLE memories (memory_id TEXT PRIMARY KEY, owner_id TEXT NOT NULL, scope INTEGER NOT NULL, seq INTEGER NOT NULL,
      memory_type TEXT NOT NULL, content TEXT NOT NULL, embedding BLOB NOT NULL, entities TEXT NOT NULL, attribute TEXT, importance REAL NOT NULL,
      confidence REAL NOT NULL, source_event_id TEXT NOT NULL, source_turns TEXT NOT NULL, batch_key TEXT NOT NULL, status TEXT NOT NULL,
      superseded_by TEXT, merged_count INTEGER NOT NULL DEFAULT 0, created_at TEXT, created_day REAL, last_access_at TEXT, last_access_day REAL,
      access_count INTEGER NOT NULL DEFAULT 0)`);
    old
      .prepare(
        "INSERT INTO memories VALUES ('m1', 'o', 2, 0, 'episodic', 'Old fact.', ?, '[]', NULL, 0.5, 0.9, 'o/D1:1', '[\"D1:1\"]', 't0-1', 'active', NULL, 0, NULL, 1, NULL, 1, 0)",
      )
      .run(Buffer.alloc(8));
    old.close();
    const store = new MemoryStore(path);
    const [m] = store.memories('o');
    expect(m).toMatchObject({ importance_ceiling: 1, decay_rate: 0, key_attribute: false, forgotten_reason: null });
    expect(decayedImportance(m!, 10_000)).toBe(0.5);
    expect(store.totals().forgotten_by).toEqual({ decayed: 0, evicted: 0, write_cap: 0 });
    store.close();
  });
});
