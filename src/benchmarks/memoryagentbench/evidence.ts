/**
 * The offline diagnostic for MemoryAgentBench, which gives no gold evidence turns: does any selected
 * chunk contain one of the question's gold answers? Texts and golds are normalised exactly as the
 * official metrics normalise (`normalize_answer`); a gold counts when it occurs as whole tokens of
 * the normalised chunk (so `43` is not found inside `143`).
 * Per source, the gold strings checked are:
 * - recsys: the gold entity ids mapped to movie names (entity2id.json), as the metric maps them;
 * - detective_qa: the option text without its letter (`C. The Brandt couple` -> `The Brandt couple`),
 *   since the option letter never occurs in the book;
 * - every other source: its acceptable answers (for ∞Bench-Sum the whole expert summary, which no
 *   window contains, so its value is 0 by construction).
 */
import type { Question } from '../../core/schema.js';
import type { Chunk } from '../../core/ingested-episode.js';
import { loadMovieCatalogue, normalizeAnswer } from './metrics.js';
import { sourceOf } from './scoring.js';

export function evidenceGolds(q: Question): string[] | null {
  const source = sourceOf(q);
  if (source.includes('recsys')) {
    const path = q.meta?.entity2id;
    if (typeof path !== 'string') return null;
    const cat = loadMovieCatalogue(path);
    const names = q.acceptable.map((id) => cat.byId.get(Number(id.trim())));
    return names.every((n) => n !== undefined) ? (names as string[]) : null;
  }
  if (source.includes('detective')) return q.acceptable.map((a) => a.replace(/^[A-Z][.)]\s*/, ''));
  return q.acceptable;
}

export function answerInEvidence(q: Question, texts: readonly string[]): number | null {
  const golds = evidenceGolds(q);
  if (!golds) return null;
  const wanted = golds.map(normalizeAnswer).filter((g) => g.length > 0);
  if (wanted.length === 0) return null;
  for (const text of texts) {
    const hay = ` ${normalizeAnswer(text)} `;
    if (wanted.some((g) => hay.includes(` ${g} `))) return 1;
  }
  return 0;
}

/** Benchmark.rankingMetrics: the first `k` ranked chunks are the selected evidence. */
export function rankingMetrics(q: Question, ranked: Chunk[], _ep: unknown, k: number): Record<string, number | null> {
  return { answer_in_evidence: answerInEvidence(q, ranked.slice(0, k).map((c) => c.text)) };
}
