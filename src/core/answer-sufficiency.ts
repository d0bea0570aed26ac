/**
 * Answer sufficiency, the coverage rule where gold turns are absent: does the text shown contain
 * the answer (or any accepted answer)? A benchmark with its own answer normalisation supplies it
 * (Benchmark.answerSufficiency: MemoryAgentBench's `normalize_answer`, whole tokens); this is the
 * fallback for the others: SQuAD-style normalisation (lower case, punctuation and articles
 * dropped, whitespace collapsed), matched as whole tokens, so `43` is not found inside `143`.
 */
import type { Benchmark } from './benchmark.js';
import type { Question } from './schema.js';

export function normaliseAnswerText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[!-/:-@[-`{-~]/g, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
}

export function answerContained(q: Question, texts: readonly string[]): number | null {
  const wanted = [...new Set([q.gold, ...q.acceptable])].map(normaliseAnswerText).filter((g) => g.length > 0);
  if (wanted.length === 0) return null;
  return texts.some((t) => {
    const hay = ` ${normaliseAnswerText(t)} `;
    return wanted.some((g) => hay.includes(` ${g} `));
  })
    ? 1
    : 0;
}

/** The benchmark's own rule, else the fallback above. */
export function answerSufficiencyOf(
  benchmark: Pick<Benchmark, 'answerSufficiency'>,
): (q: Question, texts: readonly string[]) => number | null {
  return benchmark.answerSufficiency ?? answerContained;
}
