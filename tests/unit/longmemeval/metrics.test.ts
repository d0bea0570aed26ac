/** Official retrieval metrics and reported scores, on hand-computed cases. */
import { describe, expect, it } from 'vitest';
import { dcg, documentRankings, evaluateRanking, longMemEvalRankingMetrics } from '../../../src/benchmarks/longmemeval/retrieval-metrics.js';
import { summariseLongMemEval } from '../../../src/benchmarks/longmemeval/summary.js';
import type { Chunk, IngestedEpisode } from '../../../src/core/ingested-episode.js';
import type { Question, Turn } from '../../../src/core/schema.js';
import type { ItemRecord } from '../../../src/core/item.js';
import { baseItem } from '../../../src/core/item.js';

const turn = (session: string, n: number, speaker: string): Turn => ({
  id: `${session}:${n}`,
  session,
  date: 'D',
  speaker,
  text: 't',
  captions: [],
});

/** Five turns in three sessions; chunk c3 straddles s1 and s2. */
function episode(meta: Record<string, unknown> = {}): IngestedEpisode {
  const turns = [
    turn('s1', 1, 'user'),
    turn('s1', 2, 'assistant'),
    turn('s2', 1, 'user'),
    turn('s2', 2, 'assistant'),
    turn('s3', 1, 'user'),
  ];
  const spans: Array<[number, number]> = [
    [0, 1],
    [2, 3],
    [4, 4],
    [1, 2],
  ];
  const chunks: Chunk[] = spans.map(([a, b], i) => ({
    index: i,
    id: `e#${i}`,
    text: '',
    firstTurn: a,
    lastTurn: b,
    tokenStart: 0,
    tokenEnd: 0,
  }));
  return { episode: { id: 'e', turns, meta }, visibleTurns: turns.length, lines: [], turnTokenStart: [], chunks };
}

function question(meta: Record<string, unknown>): Question {
  return {
    id: 'e',
    episode: 'e',
    type: 'multi-session',
    typeId: null,
    text: '',
    gold: '',
    acceptable: [],
    questionDate: null,
    evidence: [],
    options: null,
    visibleTurns: null,
    meta,
  };
}

const GOLD_S1 = { abstention: false, goldSessions: ['s1'], goldTurns: ['s1:1'], retrievalExcluded: null, answerSessionIds: ['s1'] };

describe('eval_utils formulas', () => {
  it('discounts by log2(rank), the first rank undiscounted', () => {
    expect(dcg([1, 0, 1], 3)).toBeCloseTo(1 + 1 / Math.log2(3), 12);
    expect(dcg([0, 1], 2)).toBe(1); // rank 2 is divided by log2(2) = 1
    expect(dcg([], 5)).toBe(0);
  });

  it('scores a ranking as evaluate_retrieval does', () => {
    const ranked = ['a', 'b', 'c', 'd'];
    const gold = new Set(['b', 'd']);
    expect(evaluateRanking(ranked, gold, 2, 1)).toEqual({ recall_any: 0, recall_all: 0, ndcg_any: 0 });
    expect(evaluateRanking(ranked, gold, 2, 3)).toEqual({ recall_any: 1, recall_all: 0, ndcg_any: 0.5 });
    expect(evaluateRanking(ranked, gold, 2, 4)).toEqual({ recall_any: 1, recall_all: 1, ndcg_any: 0.75 });
  });
});

describe('windows mapped to sessions and user turns', () => {
  it('orders documents by first appearance; assistant turns are not turn documents', () => {
    const ep = episode();
    const ranked = [1, 3, 0, 2].map((i) => ep.chunks[i]!);
    expect(documentRankings(ranked, ep)).toEqual({ sessions: ['s2', 's1', 's3'], turns: ['s2:1', 's1:1', 's3:1'] });
  });

  it('ranks sessions from their user turns only, so session and turn levels agree', () => {
    const ep = episode();
    // c3 touches s1's assistant turn and s2's user turn: only s2 is ranked.
    expect(documentRankings([ep.chunks[3]!], ep)).toEqual({ sessions: ['s2'], turns: ['s2:1'] });
  });

  it('counts a repeated session (renamed ~2) as its official id', () => {
    const ep = episode({ duplicateSessions: { s3: 's1' } });
    expect(documentRankings([ep.chunks[2]!, ep.chunks[0]!], ep).sessions).toEqual(['s1']);
  });

  it('computes every metric when the whole episode is ranked', () => {
    const ep = episode();
    const m = longMemEvalRankingMetrics(
      question(GOLD_S1),
      [1, 3, 0, 2].map((i) => ep.chunks[i]!),
      ep,
    );
    expect(Object.keys(m)).toHaveLength(2 * 3 * 6);
    expect(m['session_recall_all@1']).toBe(0);
    expect(m['session_recall_any@3']).toBe(1);
    expect(m['session_ndcg_any@3']).toBe(1); // gold at rank 2: 1/log2(2) over the ideal 1
    expect(m['turn_recall_all@1']).toBe(0);
    expect(m['turn_recall_all@5']).toBe(1);
    expect(m['turn_ndcg_any@50']).toBe(1);
  });

  it('gives null where a truncated ranking cannot tell, recall 1 where k covers the corpus', () => {
    const ep = episode();
    const m = longMemEvalRankingMetrics(question(GOLD_S1), [ep.chunks[1]!], ep);
    expect(m['session_recall_all@1']).toBe(0);
    // Only one session ranked: @3 is not reached, but 3 sessions exist, so any 3 hold them all.
    expect(m['session_recall_all@3']).toBe(1);
    expect(m['session_ndcg_any@3']).toBeNull();
    const big = { ...ep, chunks: [...ep.chunks, ...ep.chunks.map((c) => ({ ...c, index: c.index + 4 }))] };
    big.episode = { ...ep.episode, turns: [...ep.episode.turns, ...['s4', 's5', 's6'].map((s) => turn(s, 1, 'user'))] };
    big.visibleTurns = big.episode.turns.length;
    const m2 = longMemEvalRankingMetrics(question(GOLD_S1), [ep.chunks[1]!], big);
    expect(m2['session_recall_all@3']).toBeNull();
    expect(m2['session_recall_any@5']).toBeNull();
  });

  it('scores sessions as evaluate_retrieval_turn2session: noans turns, effective_k, nDCG over turns', () => {
    // answer_a has user turns 1 (no has_answer: officially renamed noans_a) and 3 (gold); answer_b has
    // gold user turn 1; s_c one user turn. Turn ranking: noans_a, s_c, answer_a, answer_b.
    const turns = [
      turn('answer_a', 1, 'user'),
      turn('answer_a', 2, 'assistant'),
      turn('answer_a', 3, 'user'),
      turn('answer_b', 1, 'user'),
      turn('s_c', 1, 'user'),
    ];
    const spans: Array<[number, number]> = [
      [0, 1],
      [4, 4],
      [2, 2],
      [3, 3],
    ];
    const chunks: Chunk[] = spans.map(([a, b], i) => ({
      index: i,
      id: `e#${i}`,
      text: '',
      firstTurn: a,
      lastTurn: b,
      tokenStart: 0,
      tokenEnd: 0,
    }));
    const ep: IngestedEpisode = {
      episode: { id: 'e', turns, meta: {} },
      visibleTurns: turns.length,
      lines: [],
      turnTokenStart: [],
      chunks,
    };
    const meta = {
      abstention: false,
      goldSessions: ['answer_a', 'answer_b'],
      goldTurns: ['answer_a:3', 'answer_b:1'],
      retrievalExcluded: null,
      answerSessionIds: ['answer_a', 'answer_b'],
    };
    const m = longMemEvalRankingMetrics(question(meta), chunks, ep);
    // k=1: effective_k 1 (noans_a) -> nothing recalled.
    expect(m['session_recall_any@1']).toBe(0);
    // k=3: ids noans_a, s_c, answer_a -> effective_k 3; any 1, all 0; DCG = 1/log2(3), IDCG(2 gold turns) = 1 + 1.
    expect(m['session_recall_any@3']).toBe(1);
    expect(m['session_recall_all@3']).toBe(0);
    expect(m['session_ndcg_any@3']).toBeCloseTo(1 / Math.log2(3) / 2, 12);
    // k=5: only 4 distinct ids in a 4-turn corpus -> effective_k 5 > corpus: every turn; both gold.
    expect(m['session_recall_all@5']).toBe(1);
    expect(m['session_ndcg_any@5']).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(4)) / 2, 12);
    // A plain session ranking would put answer_a first (nDCG@1 = 1); officially its first turn is noans_a.
    expect(m['session_ndcg_any@1']).toBe(0);
  });

  it('leaves excluded questions (abstention, no user-side evidence) out with nulls', () => {
    const ep = episode();
    const all = ep.chunks;
    for (const reason of ['abstention', 'no user-side has_answer turn']) {
      const m = longMemEvalRankingMetrics(question({ ...GOLD_S1, retrievalExcluded: reason }), all, ep);
      expect(Object.values(m).every((v) => v === null)).toBe(true);
    }
  });
});

describe('summariseLongMemEval', () => {
  function item(id: string, type: string, score: number | null, metrics: Record<string, number | null> = {}): ItemRecord {
    const it = baseItem({ ...question({}), id, type }, 'longmemeval');
    return { ...it, score, metrics };
  }

  it('reports overall, task-averaged and abstention accuracy like print_qa_metrics.py', () => {
    const items = [
      item('a', 'single-session-user', 1),
      item('b', 'single-session-user', 0),
      item('c', 'single-session-user', 1),
      item('d', 'temporal-reasoning', 0),
      item('e_abs', 'temporal-reasoning', 1),
      item('f', 'knowledge-update', 2 / 3), // mean of 3 judge runs
      item('g', 'multi-session', null), // not judged
    ];
    const s = summariseLongMemEval(items);
    expect(s.judged).toBe(6);
    expect(s.missing).toBe(1);
    expect(s.overall.accuracy).toBeCloseTo((1 + 0 + 1 + 0 + 1 + 2 / 3) / 6, 12);
    // (2/3 + 1/2 + 2/3) / 3 types with judged questions
    expect(s.task_averaged).toEqual({ n: 3, accuracy: expect.closeTo((2 / 3 + 1 / 2 + 2 / 3) / 3, 12) });
    expect(s.abstention).toEqual({ n: 1, accuracy: 1 });
    expect(s.by_type['multi-session']).toEqual({ n: 0, accuracy: null });
    expect(s.by_type['single-session-preference']).toBeUndefined();
    expect(s.tables![0]!.rows[0]).toEqual(['overall', 6, expect.any(String)]);
  });

  it('reports the overall accuracy over all N (failed count 0) beside the official over-judged figure', () => {
    const failed = { ...item('x', 'single-session-user', null), error: { stage: 'read', message: 'boom' } };
    const failed2 = { ...item('y', 'single-session-user', null), error: { stage: 'judge', message: 'bad reply' } };
    const s = summariseLongMemEval([item('a', 'single-session-user', 1), item('b', 'single-session-user', 1), failed, failed2]);
    expect(s.overall.accuracy).toBe(1);
    expect(s.denominators).toMatchObject({
      n: 4,
      failed: 2,
      headline_all_n: 0.5,
      headline_scored: 1,
      official: 'scored',
      errors_by_stage: { judge: 1, read: 1 },
    });
    const table = s.tables!.at(-1)!;
    expect(table.rows[0]).toEqual(['all questions, failed count 0', 4, '50.00']);
    expect(table.rows[1]).toEqual(['not failed — the official rule', 2, '100.00']);
    expect(table.rows.slice(2)).toEqual([
      ['failed at judge', 1, ''],
      ['failed at read', 1, ''],
    ]);
  });

  it('averages retrieval metrics over the questions that have them', () => {
    const items = [
      item('a', 'multi-session', null, { 'session_recall_any@1': 1, 'session_recall_all@5': 1 }),
      item('b', 'multi-session', null, { 'session_recall_any@1': 0, 'session_recall_all@5': 0 }),
      item('c_abs', 'multi-session', null, { 'session_recall_any@1': null, 'session_recall_all@5': null }),
    ];
    const s = summariseLongMemEval(items);
    expect(s.retrieval['session_recall_all@5']).toEqual({ n: 2, mean: 0.5 });
    expect(s.retrieval_questions).toBe(2);
    expect(s.tables).toHaveLength(1); // nothing judged, nothing failed: only the retrieval table
    expect(s.tables![0]!.rows.find((r) => r[0] === 'session' && r[1] === 'recall_all')![4]).toBe('50.00');
  });
});
