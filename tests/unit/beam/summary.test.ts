/** BEAM aggregation (official report_results.py nesting), headline per size, efficiency figures. */
import { describe, expect, it } from 'vitest';
import { ABILITIES } from '../../../src/datasets/beam/format.js';
import { summariseBeam } from '../../../src/datasets/beam/summary.js';
import { baseItem } from '../../../src/datasets/item.js';
import type { ItemRecord } from '../../../src/datasets/item.js';
import type { Dataset, Question } from '../../../src/datasets/schema.js';

function item(episode: string, ability: string, i: number, score: number | null, extra: Partial<ItemRecord> = {}): ItemRecord {
  const q: Question = {
    id: `${episode}:${ability}:${i}`, episode, type: ability, typeId: null, text: 'q', gold: 'g', acceptable: ['g'],
    questionDate: null, evidence: ['1'], options: null, visibleTurns: null,
  };
  return { ...baseItem(q, 'beam'), score, coverage: { all: i === 0, any: true }, timings: { ingest_share_ms: 10, retrieve_ms: 2 }, ...extra };
}

const dataset = (episodes: Array<[string, number]>): Dataset => ({
  benchmark: 'beam',
  episodes: episodes.map(([id, messages]) => ({ id, turns: [], meta: { messages, characters: messages * 100 } })),
  questions: [],
  source: { path: '/x', sha256: '', bytes: 0, version: '' },
  warnings: [],
});

describe('summariseBeam', () => {
  it('per ability: mean over conversations of each conversation\'s mean; headline = mean of the ten abilities', () => {
    const items: ItemRecord[] = [];
    for (const a of ABILITIES) {
      // Conversation 1 has both questions, conversation 2 only one (e.g. an error elsewhere): nesting matters.
      items.push(item('100K/1', a, 0, 1), item('100K/1', a, 1, 0.5), item('100K/2', a, 0, 0));
    }
    const s = summariseBeam(items, { options: {}, dataset: dataset([['100K/1', 100], ['100K/2', 50]]) }) as any;
    const rows = s.sizes['100K'].abilities;
    expect(rows).toHaveLength(10);
    // official: mean(mean(1, 0.5), mean(0)) = 0.375; a flat mean over questions would give 0.5
    expect(rows[0]).toMatchObject({ ability: 'abstention', n: 3, conversations: 2, score: 0.375, scored: 3, coverage_all: 2 / 3, coverage_any: 1 });
    expect(s.headline).toEqual({ '100K': 0.375 });
    expect(s.sizes['100K'].headline_complete).toBe(true);
    expect(s.scoring.variant).toBe('fixed');
    expect(s.tables[0].title).toBe('BEAM 100K: per ability (2 conversations)');
    expect(s.tables[0].rows.at(-1)).toEqual(['mean over 10 abilities', 30, '66.67', '100.00', '37.50']);
  });

  it('keeps sizes apart and names the official-defects variant', () => {
    const items = [item('100K/1', 'abstention', 0, 1), item('1M/4', 'abstention', 0, 0), item('1M/4', 'summarization', 0, 0.5)];
    const s = summariseBeam(items, { options: { beamOfficialDefects: 'true' }, dataset: dataset([]) }) as any;
    expect(Object.keys(s.sizes)).toEqual(['100K', '1M']);
    expect(s.sizes['1M'].abilities.map((r: any) => [r.ability, r.score])).toEqual([['abstention', 0], ['summarization', 0.5]]);
    expect(s.headline).toEqual({ '100K': 1, '1M': 0.25 });
    expect(s.sizes['1M'].headline_complete).toBe(false);
    expect(s.scoring.variant).toBe('official-defects');
    expect(s.scoring.description).toMatch(/--beam-official-defects/);
  });

  it('offline (nothing judged): coverage tables, no score column, null headline', () => {
    const s = summariseBeam([item('100K/1', 'abstention', 0, null)], { options: {}, dataset: dataset([]) }) as any;
    expect(s.headline).toEqual({ '100K': null });
    expect(s.tables[0].header).toEqual(['ability', 'n', 'coverage all %', 'coverage any %']);
  });

  it('efficiency: add time = the ingest shares summed per conversation, search time = retrieval summed', () => {
    const items = [
      item('100K/1', 'abstention', 0, null, { timings: { ingest_share_ms: 30, retrieve_ms: 4 } }),
      item('100K/1', 'abstention', 1, null, { timings: { ingest_share_ms: 30, retrieve_ms: 6 } }),
      item('100K/2', 'abstention', 0, null, { timings: { ingest_share_ms: 12, retrieve_ms: 1 } }),
    ];
    const s = summariseBeam(items, { options: {}, dataset: dataset([['100K/1', 120], ['100K/2', 40]]) }) as any;
    expect(s.efficiency.conversations).toEqual([
      { episode: '100K/1', size: '100K', messages: 120, characters: 12000, questions: 2, add_ms: 60, add_ms_per_message: 0.5, search_ms: 10, search_ms_per_question: 5 },
      { episode: '100K/2', size: '100K', messages: 40, characters: 4000, questions: 1, add_ms: 12, add_ms_per_message: 0.3, search_ms: 1, search_ms_per_question: 1 },
    ]);
    expect(s.efficiency.by_size['100K']).toEqual({ conversations: 2, add_ms_mean: 36, search_ms_mean: 5.5 });
  });

  it('reports both score variants when judge runs recorded them', () => {
    const judged = (v: number, f: number, o: number) => ({ judge: { runs: [{ verdict: v, details: { score_float: f, score_official_int: o } }] } });
    const items = ABILITIES.map((a) =>
      a === 'event_ordering' ? item('100K/1', a, 0, 0.8) : item('100K/1', a, 0, 0.5, { details: judged(0.5, 0.5, 0) }),
    );
    const s = summariseBeam(items, { options: {}, dataset: dataset([]) }) as any;
    expect(s.sizes['100K'].headline_float_variant).toBeCloseTo((9 * 0.5 + 0.8) / 10, 12);
    expect(s.sizes['100K'].headline_official_int_variant).toBeCloseTo(0.8 / 10, 12);
  });
});
