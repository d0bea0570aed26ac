/** Aggregation (source -> task -> competency -> Overall) and the offline answer-in-evidence check. */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { summariseMab, type CompetencyRow, type SourceRow, type TaskRow } from '../../../src/benchmarks/memoryagentbench/summarise.js';
import { answerInEvidence, rankingMetrics } from '../../../src/benchmarks/memoryagentbench/evidence.js';
import { baseItem } from '../../../src/core/item.js';
import type { Question } from '../../../src/core/schema.js';
import type { Chunk } from '../../../src/core/ingested-episode.js';
import type { ItemRecord } from '../../../src/core/item.js';

function question(source: string, acceptable: string[], meta: Record<string, unknown> = {}): Question {
  return {
    id: `${source}/0:q`,
    episode: `${source}/0`,
    type: source,
    typeId: null,
    text: 'q',
    gold: acceptable[0]!,
    acceptable,
    questionDate: null,
    evidence: [],
    options: null,
    visibleTurns: null,
    meta: { source, ...meta },
  };
}

let serial = 0;
function item(source: string, competency: string, score: number | null, evidence: number | null, error = false): ItemRecord {
  const it = baseItem(question(source, ['x']), 'memoryagentbench');
  it.id = `${source}:${serial++}`;
  it.type_id = competency;
  it.score = score;
  it.metrics.answer_in_evidence = evidence;
  if (error) it.error = { stage: 'read', message: 'boom' };
  return it;
}

describe('summariseMab', () => {
  const items = [
    // AR: two tasks
    item('ruler_qa1_197K', 'AR', 1, 1),
    item('ruler_qa1_197K', 'AR', 0, 1),
    item('eventqa_full', 'AR', 1, 0),
    // TTL: the ICL sources form one task (MCC); recsys another
    item('icl_banking77_5900shot_balance', 'TTL', 1, 1),
    item('icl_clinic150_7050shot_balance', 'TTL', 0, 0),
    item('icl_clinic150_7050shot_balance', 'TTL', 0, 0),
    item('icl_clinic150_7050shot_balance', 'TTL', 0, 0),
    item('recsys_redial_full', 'TTL', 0.5, null),
    // LRU: an errored item is counted apart, not as a zero
    item('detective_qa', 'LRU', 1, 1),
    item('detective_qa', 'LRU', null, null, true),
    // CR
    item('factconsolidation_sh_262k', 'CR', 0, 1),
    item('factconsolidation_mh_262k', 'CR', 1, 0),
  ];
  const s = summariseMab(items) as {
    overall: { score: number; answer_in_evidence: number; competencies_with_score: number };
    sources: SourceRow[];
    tasks: TaskRow[];
    competencies: CompetencyRow[];
    deviations: string[];
  };
  const src = (n: string) => s.sources.find((r) => r.source === n)!;

  test('per source: micro mean x100, errors apart', () => {
    expect(src('ruler_qa1_197K')).toMatchObject({
      n: 2,
      scored: 2,
      score: 50,
      answer_in_evidence: 100,
      competency: 'AR',
      metric: 'substring_exact_match',
    });
    expect(src('detective_qa')).toMatchObject({ n: 2, errors: 1, scored: 1, score: 100, metric: 'exact_match' });
    expect(src('recsys_redial_full')).toMatchObject({ score: 50, answer_in_evidence: null, metric: 'recsys_recall@5' });
    expect(s.sources.map((r) => r.source)).toEqual([
      'ruler_qa1_197K',
      'eventqa_full',
      'icl_banking77_5900shot_balance',
      'icl_clinic150_7050shot_balance',
      'recsys_redial_full',
      'detective_qa',
      'factconsolidation_mh_262k',
      'factconsolidation_sh_262k',
    ]);
  });

  test('per task: the ICL sources are averaged as one task (MCC), not pooled', () => {
    const icl = s.tasks.find((t) => t.task === 'icl')!;
    // banking 100, clinic 0 -> 50 (pooling the 4 items would give 25)
    expect(icl).toMatchObject({
      competency: 'TTL',
      sources: ['icl_banking77_5900shot_balance', 'icl_clinic150_7050shot_balance'],
      score: 50,
    });
  });

  test('per competency: mean of its tasks; Overall: mean of the four competencies', () => {
    const c = Object.fromEntries(s.competencies.map((r) => [r.competency, r.score]));
    expect(c).toEqual({ AR: 75, TTL: 50, LRU: 100, CR: 50 });
    expect(s.overall.score).toBeCloseTo(68.75, 10);
    expect(s.overall.competencies_with_score).toBe(4);
    const e = Object.fromEntries(s.competencies.map((r) => [r.competency, r.answer_in_evidence]));
    // TTL evidence: icl task 50 (banking 100, clinic 0), recsys none -> 50
    expect(e).toEqual({ AR: 50, TTL: 50, LRU: 100, CR: 50 });
    expect(s.overall.answer_in_evidence).toBeCloseTo(62.5, 10);
  });

  test('every run summary names the deviations from the official pipeline', () => {
    expect(s.deviations.length).toBeGreaterThanOrEqual(5);
    expect(s.deviations.join(' ')).toMatch(/256\/224/);
  });
});

describe('answer in evidence', () => {
  test('normalised, whole-token containment', () => {
    const q = question('factconsolidation_sh_262k', ['The Fairly OddParents']);
    expect(answerInEvidence(q, ['259. Nobuhiro Watsuki is famous for The Fairly OddParents.'])).toBe(1);
    expect(answerInEvidence(q, ['91. Nobuhiro Watsuki is famous for Rurouni Kenshin.'])).toBe(0);
    // "43" is not found inside "143"
    expect(answerInEvidence(question('icl_banking77_5900shot_balance', ['43']), ['text\nlabel: 143'])).toBe(0);
    expect(answerInEvidence(question('icl_banking77_5900shot_balance', ['43']), ['text\nlabel: 43\n'])).toBe(1);
  });

  test('DetectiveQA: the option text without its letter; recsys: the movie names', () => {
    expect(answerInEvidence(question('detective_qa', ['C. The Brandt couple']), ['The Brandt couple had quarrelled'])).toBe(1);
    const map = join(import.meta.dirname, '..', '..', 'fixtures', 'memoryagentbench', 'constructed', 'entity2id.json');
    const rec = question('recsys_redial_full', ['101', '102'], { entity2id: map });
    expect(answerInEvidence(rec, ['System: Then try Interstellar.'])).toBe(1);
    expect(answerInEvidence(rec, ['System: Groundhog Day is a classic.'])).toBe(0);
    expect(answerInEvidence(question('recsys_redial_full', ['101'], { entity2id: null }), ['x'])).toBeNull();
  });

  test('rankingMetrics looks at the first k chunks only', () => {
    const chunk = (index: number, text: string): Chunk => ({
      index,
      id: `e#${index}`,
      text,
      firstTurn: index,
      lastTurn: index,
      tokenStart: 0,
      tokenEnd: 1,
    });
    const q = question('ruler_qa1_197K', ['Normandy']);
    const ranked = [chunk(0, 'Amazon rainforest'), chunk(1, 'gave their name to Normandy')];
    expect(rankingMetrics(q, ranked, null, 1)).toEqual({ answer_in_evidence: 0 });
    expect(rankingMetrics(q, ranked, null, 2)).toEqual({ answer_in_evidence: 1 });
  });
});
