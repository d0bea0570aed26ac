/** The memory system's pure parts: batching, strict parsing, entity alignment, recall score and budget, the estimate. */
import { describe, expect, it } from 'vitest';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { MemorySchema } from '../../../src/systems/agentic-memory/config.js';
import { EntityAligner, entityMatch, normaliseEntity, questionEntities } from '../../../src/systems/agentic-memory/entities.js';
import { batchesOf } from '../../../src/ingest-llm/batches.js';
import { extractionMessages, parseExtraction, readExtraction, ExtractionReplyError } from '../../../src/systems/agentic-memory/extract.js';
import { estimateExtraction, renderExtractionEstimate } from '../../../src/systems/agentic-memory/estimate.js';
import { INJECTION_HEADER, injectionBlock, recency, scoreMemories } from '../../../src/systems/agentic-memory/recall.js';
import type { MemoryRow } from '../../../src/systems/agentic-memory/store.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { countTokens } from '../../../src/retrieval/tokenizer.js';
import { memoryEpisode, question } from './fixture.js';

const cfg = MemorySchema.parse({});

function row(id: string, content: string, vector: number[], extra: Partial<MemoryRow> = {}): MemoryRow {
  return {
    memory_id: id,
    owner_id: 'o',
    scope: 10,
    seq: Number(id.replace(/\D/g, '') || 0),
    memory_type: 'semantic',
    content,
    embedding: Float32Array.from(vector),
    entities: [],
    attribute: null,
    importance: 0.5,
    confidence: 0.9,
    source_event_id: 'o/D1:1',
    source_turns: ['D1:1'],
    batch_key: 't0-1',
    status: 'active',
    superseded_by: null,
    merged_count: 0,
    created_at: null,
    created_day: null,
    last_access_at: null,
    last_access_day: null,
    access_count: 0,
    importance_ceiling: 1,
    decay_rate: 0,
    key_attribute: false,
    forgotten_reason: null,
    forgotten_note: null,
    forgotten_at: null,
    ...extra,
  };
}

describe('batches', () => {
  const turns = memoryEpisode().turns;
  it('one per session, or runs of N turns, over the visible turns only', () => {
    expect(batchesOf(turns, 16, 'session').map((b) => b.key)).toEqual([
      't0-1',
      't2-3',
      't4-5',
      't6-7',
      't8-9',
      't10-11',
      't12-13',
      't14-15',
    ]);
    expect(batchesOf(turns, 5, 'session').map((b) => b.key)).toEqual(['t0-1', 't2-3', 't4-4']);
    expect(batchesOf(turns, 16, 5).map((b) => b.key)).toEqual(['t0-4', 't5-9', 't10-14', 't15-15']);
    expect(batchesOf(turns, 0, 'session')).toEqual([]);
  });
  it('the request shows each turn with its id, date and speaker', () => {
    const [sys, user] = extractionMessages(turns, batchesOf(turns, 16, 'session')[2]!);
    expect(sys!.content).toMatch(/^You are the memory extractor/);
    expect(user!.content).toBe(
      'Conversation segment:\n(D3:1) [15 May, 2023] Caroline: I love my flat in Paris, the view is amazing.\n(D3:2) [15 May, 2023] Melanie: Paris suits you.',
    );
  });
});

describe('readExtraction (checked, not brittle)', () => {
  const good = {
    memory_type: 'semantic',
    content: 'A.',
    entities: [],
    attribute: null,
    updates: false,
    importance: 0.5,
    confidence: 0.9,
    source_turns: ['D1:1'],
  };
  it('accepts a JSON array, fenced or not, [], and the structured-outputs object {"items": [...]}', () => {
    expect(parseExtraction(JSON.stringify([good]))).toHaveLength(1);
    expect(parseExtraction('```json\n' + JSON.stringify([good]) + '\n```')).toHaveLength(1);
    expect(parseExtraction(' [] ')).toEqual([]);
    expect(parseExtraction(JSON.stringify({ items: [good] }))).toHaveLength(1);
  });
  it('an extra key is ignored and a missing attribute/updates/importance/confidence/entities takes the handbook default', () => {
    const { attribute, updates, importance, confidence, entities, ...bare } = good;
    void [attribute, updates, importance, confidence, entities];
    expect(readExtraction(JSON.stringify([{ ...good, note: 'x' }, bare]))).toEqual({
      items: [good, { ...good, entities: [], attribute: null, updates: false, importance: 0.5, confidence: 0.9 }],
      invalid: 0,
      firstIssue: null,
    });
  });
  it('an element that fails the check is dropped and counted; prose, other JSON or a reply whose every item fails is an error', () => {
    const mixed = readExtraction(JSON.stringify([good, { ...good, confidence: 1.5 }, { ...good, memory_type: 'procedural' }]));
    expect(mixed.items).toHaveLength(1);
    expect(mixed.invalid).toBe(2);
    expect(mixed.firstIssue).toMatch(/^item 1\.confidence/);
    const bad = ['Here you go: []', JSON.stringify({ memories: [good] }), JSON.stringify([{ ...good, source_turns: undefined }]), ''];
    for (const b of bad) expect(() => parseExtraction(b), b).toThrow(ExtractionReplyError);
  });
});

describe('entities', () => {
  const aligner = new EntityAligner(['Caroline', 'Melanie Smith']);
  it('normalises case, possessives, articles and punctuation', () => {
    expect(normaliseEntity("  Caroline's ")).toBe('caroline');
    expect(normaliseEntity('The Louvre!')).toBe('louvre');
  });
  it('aligns first names onto the speakers', () => {
    expect(aligner.alignAll(['Melanie', 'melanie smith', "MELANIE's", 'Paris'])).toEqual(['melanie smith', 'paris']);
  });
  it('the question names speakers and proper nouns; question words are not names', () => {
    const focus = questionEntities('When did Melanie go to Paris with Caroline?', aligner, ['Caroline', 'Melanie Smith']);
    expect(focus).toEqual(['caroline', 'melanie smith', 'paris']);
    expect(entityMatch(focus, ['paris'])).toBe(1);
    expect(entityMatch(focus, ['berlin'])).toBe(0);
    expect(entityMatch(['caroline'], ['caroline jones'])).toBe(1);
  });
});

describe('recall', () => {
  it('score = 0.4 cos + 0.3 entity + 0.2 recency + 0.1 importance, recency 0.9^(days/7)', () => {
    const m = row('m1', 'x', [1, 0], { entities: ['caroline'], importance: 0.8, last_access_day: 100 });
    const [s] = scoreMemories([m], { vector: Float32Array.from([0.6, 0.8]), focus: ['caroline'], nowDay: 114 }, cfg);
    expect(s!.parts).toEqual({ cos: expect.closeTo(0.6, 6), entity: 1, recency: expect.closeTo(0.81, 10), importance: 0.8 });
    expect(s!.score).toBeCloseTo(0.4 * 0.6 + 0.3 + 0.2 * 0.81 + 0.1 * 0.8, 6);
    expect(recency(m, null, cfg)).toBe(1);
  });
  it('weights are config values', () => {
    const m = row('m1', 'x', [1, 0], { importance: 1 });
    const only = MemorySchema.parse({ weights: { cosine: 0, entity: 0, recency: 0, importance: 1 } });
    expect(scoreMemories([m], { vector: Float32Array.from([0, 1]), focus: [], nowDay: null }, only)[0]!.score).toBe(1);
  });
  it('superseded items only when asked, forgotten never', () => {
    const items = [
      row('m1', 'a', [1, 0]),
      row('m2', 'b', [1, 0], { status: 'superseded', superseded_by: 'm3' }),
      row('m3', 'c', [1, 0], { status: 'forgotten' }),
    ];
    const q = { vector: Float32Array.from([1, 0]), focus: [], nowDay: null };
    expect(scoreMemories(items, q, cfg).map((s) => s.memory.memory_id)).toEqual(['m1']);
    expect(scoreMemories(items, q, { ...cfg, includeSuperseded: true }).map((s) => s.memory.memory_id)).toEqual(['m1', 'm2']);
  });
  it('the block: labelled, top items by score, within the token budget', () => {
    const long = 'word '.repeat(300).trim();
    const items = [
      row('m1', 'First fact.', [1, 0]),
      row('m2', long, [0.99, 0.1]),
      row('m3', 'Third fact.', [0.9, 0.3]),
      row('m4', 'Fourth.', [0.5, 0.5]),
      row('m5', 'Fifth.', [0.4, 0.6]),
      row('m6', 'Sixth.', [0.3, 0.7]),
      row('m7', 'Seventh.', [0.1, 0.9]),
    ];
    const scored = scoreMemories(items, { vector: Float32Array.from([1, 0]), focus: [], nowDay: null }, cfg);
    const small = injectionBlock(scored, { items: 5, tokens: 200 });
    expect(small.injected.map((s) => s.memory.memory_id)).toEqual(['m1', 'm3', 'm4', 'm5', 'm6']);
    expect(small.text.split('\n')[0]).toBe(INJECTION_HEADER);
    expect(small.tokens).toBe(countTokens(small.text));
    expect(small.tokens).toBeLessThanOrEqual(200);
    const big = injectionBlock(scored, { items: 2, tokens: 800 });
    expect(big.injected.map((s) => s.memory.memory_id)).toEqual(['m1', 'm2']);
    expect(injectionBlock([], { items: 5, tokens: 800 }).text).toBe(`${INJECTION_HEADER}\n- (nothing recalled)`);
  });
});

describe('estimateExtraction', () => {
  it('one call per distinct batch over the horizons the questions open; cost from the registry price', () => {
    const ep = memoryEpisode();
    const run = RunConfigSchema.parse({ benchmark: 'locomo', reader: { model: 'gpt-4o-mini' } });
    const session = new ProviderSession({ noCache: true, env: {} });
    const whole = estimateExtraction({ episodes: [ep], questions: [question('a', []), question('b', [])] }, run, session);
    expect(whole.calls).toBe(8);
    expect(whole.batches).toBe(8);
    const expectedInput = batchesOf(ep.turns, 16, 'session').reduce(
      (s, b) => s + extractionMessages(ep.turns, b).reduce((t, m) => t + countTokens(m.content) + 4, 0),
      0,
    );
    expect(whole.input_tokens).toBe(expectedInput);
    expect(whole.output_tokens).toBe(16 * 25);
    expect(whole.cost_usd).toBeCloseTo((expectedInput * 0.15 + 16 * 25 * 0.6) / 1e6, 12);
    expect(whole.notes.join(' ')).toMatch(/needs OPENAI_API_KEY/);
    // Horizons at 10 and 16 turns: sessions 1-5 are asked once (cached the second time).
    const phased = estimateExtraction(
      { episodes: [ep], questions: [question('a', [], { visibleTurns: 10 }), question('b', [])] },
      run,
      session,
    );
    expect(phased.batches).toBe(13);
    expect(phased.calls).toBe(8);
    expect(renderExtractionEstimate(phased)).toMatch(
      /^agentic memory ingest \(extraction, gpt-4o-mini\): 8 calls \(13 batches, 5 answered by the cache\)/,
    );
  });
});
