/** One line of `items.jsonl`: everything about one question, written as soon as it finishes. */
import type { Coverage } from './coverage.js';
import type { Question } from './schema.js';

export interface RetrievedChunk {
  /** Chunk id `<episode>#<index>`. */
  chunk: string;
  /** 1-based rank after the second stage. */
  rank: number;
  score: number;
  first_stage_rank: number;
  first_stage_score: number;
  /** Turn ids the chunk touches. */
  turns: string[];
}

export interface ItemError {
  /** Stage that failed (`retrieve`, `read`, `judge`, ...). */
  stage: string;
  message: string;
}

export interface ItemRecord {
  id: string;
  benchmark: string;
  episode: string;
  type: string;
  type_id: number | string | null;
  question: string;
  question_date: string | null;
  gold: string;
  acceptable: string[];
  /** Gold evidence turn ids. */
  gold_evidence: string[];
  retrieved: RetrievedChunk[];
  /**
   * Agentic memory runs: the injected memory items, best first, with their score parts, source
   * event and the turns behind them (merged duplicates' included; coverage and pollution use them).
   */
  recalled?: Array<{
    memory_id: string;
    score: number;
    parts: { cos: number; entity: number; recency: number; importance: number };
    content: string;
    source_event: string;
    turns: string[];
  }>;
  /** Turn ids shown to the reader, in the order shown. */
  evidence_turns: string[];
  /** cl100k tokens of the assembled evidence. */
  evidence_tokens: number;
  coverage: Coverage | null;
  /** Coverage had only the top-k windows been kept, from the same ranking (k = 1, 5, 15, 60 ...). */
  coverage_at_k: Record<string, Coverage | null>;
  answer: string | null;
  /** Item score in [0, 1] (mean of judge runs); null until judged. */
  score: number | null;
  /** Benchmark metrics computed beside the judge (token F1, exact match, ...). */
  metrics: Record<string, number | null>;
  /** Stage details that other issues add (reader prompt tokens, judge verdicts, usage, ...). */
  details: Record<string, unknown>;
  /** The question's adapter facts (Question.meta), so benchmark summaries can pair and group items. */
  meta?: Record<string, unknown>;
  timings: Record<string, number>;
  error: ItemError | null;
}

/** The judge's verdicts, one per run (details.judge.votes); empty when the judge did not score the item. */
export function judgeVotes(item: ItemRecord): number[] {
  const votes = (item.details?.judge as { votes?: unknown } | undefined)?.votes;
  return Array.isArray(votes) && votes.every((v) => typeof v === 'number') ? (votes as number[]) : [];
}

/** A fresh item for a question: everything known before any evidence is found. */
export function baseItem(q: Question, benchmark: string): ItemRecord {
  return {
    id: q.id,
    benchmark,
    episode: q.episode,
    type: q.type,
    type_id: q.typeId,
    question: q.text,
    question_date: q.questionDate,
    gold: q.gold,
    acceptable: q.acceptable,
    gold_evidence: q.evidence,
    retrieved: [],
    evidence_turns: [],
    evidence_tokens: 0,
    coverage: null,
    coverage_at_k: {},
    answer: null,
    score: null,
    metrics: {},
    details: {},
    ...(q.meta ? { meta: q.meta } : {}),
    timings: {},
    error: null,
  };
}
