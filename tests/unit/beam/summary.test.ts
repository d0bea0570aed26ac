/** BEAM aggregation (official report_results.py nesting), headline per size, efficiency figures. */
import { describe, expect, it } from 'vitest';
import { ABILITIES } from '../../../src/benchmarks/beam/format.js';
import { summariseBeam } from '../../../src/benchmarks/beam/summary.js';
import { baseItem } from '../../../src/core/item.js';
import type { ItemRecord } from '../../../src/core/item.js';
import type { Dataset, Question } from '../../../src/core/schema.js';

function item(episode: string, ability: string, i: number, score: number | null, extra: Partial<ItemRecord> = {}): ItemRecord {
  const q: Question = {
    id: `${episode}:${ability}:${i}`,
    episode,
    type: ability,
    typeId: null,
    text: 'q',
    gold: 'g',
    acceptable: ['g'],
    questionDate: null,
    evidence: ['1'],
    options: null,
    visibleTurns: null,
  };
  return {
    ...baseItem(q, 'beam'),
    score,
    coverage: { all: i === 0, any: true },
    timings: { ingest_share_ms: 10, retrieve_ms: 2 },
    ...extra,
  };
}

const dataset = (episodes: Array<[string, number]>): Dataset => ({
  benchmark: 'beam',
  episodes: episodes.map(([id, messages]) => ({ id, turns: [], meta: { messages, characters: messages * 100 } })),
  questions: [],
  source: { path: '/x', sha256: '', bytes: 0, version: '' },
  warnings: [],
});

describe('summariseBeam', () => {
  it("per ability: mean over conversations of each conversation's mean; headline = mean of the ten abilities", () => {
    const items: ItemRecord[] = [];
    for (const a of ABILITIES) {
      // Conversation 1 has both questions, conversation 2 only one (e.g. an error elsewhere): nesting matters.
      items.push(item('100K/1', a, 0, 1), item('100K/1', a, 1, 0.5), item('100K/2', a, 0, 0));
    }
    const s = summariseBeam(items, {
      options: {},
      dataset: dataset([
        ['100K/1', 100],
        ['100K/2', 50],
      ]),
    }) as any;
    const rows = s.sizes['100K'].abilities;
    expect(rows).toHaveLength(10);
    // official: mean(mean(1, 0.5), mean(0)) = 0.375; a flat mean over questions would give 0.5
    expect(rows[0]).toMatchObject({
      ability: 'abstention',
      n: 3,
      conversations: 2,
      score: 0.375,
      scored: 3,
      coverage_all: 2 / 3,
      coverage_any: 1,
    });
    expect(s.headline).toEqual({ '100K': 0.375 });
    expect(s.sizes['100K'].headline_complete).toBe(true);
    // The official rubric is the default headline (as upstream).
    expect(s.scoring.variant).toBe('official');
    expect(s.sizes['100K'].headline_rubric).toBe('official');
    expect(s.tables[0].title).toBe('BEAM 100K: per ability (2 conversations)');
    expect(s.tables[0].header).toEqual([
      'ability',
      'n',
      'coverage all %',
      'coverage any %',
      'official rubric % (headline)',
      'corrected rubric, 0.5 kept %',
    ]);
    // No judge details in these items: both variants are the item scores (event ordering has one score anyway).
    expect(s.tables[0].rows.at(-1)).toEqual(['mean over 10 abilities', 30, '66.67', '100.00', '—', '—']);
  });

  it('-B beam-rubric=corrected makes the corrected rubric the headline, labelled', () => {
    const items = [item('100K/1', 'abstention', 0, 1)];
    const s = summariseBeam(items, { options: { beamRubric: 'corrected' }, dataset: dataset([]) }) as any;
    expect(s.scoring.variant).toBe('corrected');
    expect(s.tables[0].header.slice(4)).toEqual(['official rubric %', 'corrected rubric, 0.5 kept % (headline)']);
    // The items' own record wins over the options (a resumed run keeps the rubric it was scored with).
    const marked = [{ ...item('100K/1', 'abstention', 0, 1), meta: { official_defects: true } }];
    expect((summariseBeam(marked, { options: { beamRubric: 'corrected' }, dataset: dataset([]) }) as any).scoring.variant).toBe('official');
    expect(() => summariseBeam(items, { options: { beamRubric: 'fixed' }, dataset: dataset([]) })).toThrow(/-B beam-rubric/);
  });

  it('prints the headline over all N beside the headline over the not-failed', () => {
    const items: ItemRecord[] = ABILITIES.map((a) => item('100K/1', a, 0, 1));
    items.push({ ...item('100K/1', 'abstention', 1, null), error: { stage: 'judge', message: 'x' } });
    const s = summariseBeam(items, { options: {}, dataset: dataset([]) }) as any;
    expect(s.sizes['100K'].denominators).toMatchObject({
      n: 11,
      failed: 1,
      headline_scored: 1,
      headline_all_n: (0.5 + 9) / 10,
      official: 'scored',
      errors_by_stage: { judge: 1 },
    });
    const t = s.tables.find((x: any) => x.title.startsWith('BEAM 100K headline'));
    expect(t.rows[0]).toEqual(['all questions, failed count 0', 11, '95.00']);
  });

  it('keeps sizes apart and names the official-defects variant', () => {
    const items = [item('100K/1', 'abstention', 0, 1), item('1M/4', 'abstention', 0, 0), item('1M/4', 'summarization', 0, 0.5)];
    const s = summariseBeam(items, { options: { beamOfficialDefects: 'true' }, dataset: dataset([]) }) as any;
    expect(Object.keys(s.sizes)).toEqual(['100K', '1M']);
    expect(s.sizes['1M'].abilities.map((r: any) => [r.ability, r.score])).toEqual([
      ['abstention', 0],
      ['summarization', 0.5],
    ]);
    expect(s.headline).toEqual({ '100K': 1, '1M': 0.25 });
    expect(s.sizes['1M'].headline_complete).toBe(false);
    expect(s.scoring.variant).toBe('official');
    expect(s.scoring.description).toMatch(/official rubric/);
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
    const s = summariseBeam(items, {
      options: {},
      dataset: dataset([
        ['100K/1', 120],
        ['100K/2', 40],
      ]),
    }) as any;
    expect(s.efficiency.conversations).toEqual([
      {
        episode: '100K/1',
        size: '100K',
        messages: 120,
        characters: 12000,
        questions: 2,
        add_ms: 60,
        add_ms_per_message: 0.5,
        search_ms: 10,
        search_ms_per_question: 5,
      },
      {
        episode: '100K/2',
        size: '100K',
        messages: 40,
        characters: 4000,
        questions: 1,
        add_ms: 12,
        add_ms_per_message: 0.3,
        search_ms: 1,
        search_ms_per_question: 1,
      },
    ]);
    expect(s.efficiency.by_size['100K']).toEqual({ conversations: 2, add_ms_mean: 36, search_ms_mean: 5.5 });
  });

  it('reports both score variants when judge runs recorded them', () => {
    const judged = (v: number, f: number, o: number) => ({
      judge: { runs: [{ verdict: v, details: { score_float: f, score_official_int: o } }] },
    });
    const items = ABILITIES.map((a) =>
      a === 'event_ordering' ? item('100K/1', a, 0, 0.8) : item('100K/1', a, 0, 0.5, { details: judged(0.5, 0.5, 0) }),
    );
    const s = summariseBeam(items, { options: {}, dataset: dataset([]) }) as any;
    expect(s.sizes['100K'].headline_corrected_rubric).toBeCloseTo((9 * 0.5 + 0.8) / 10, 12);
    expect(s.sizes['100K'].headline_official_rubric).toBeCloseTo(0.8 / 10, 12);
    const last = s.tables[0].rows.at(-1);
    expect(last.slice(4)).toEqual(['8.00', '53.00']);
  });
});
