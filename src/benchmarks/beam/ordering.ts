/**
 * BEAM event-ordering score (official `compute_metrics.event_ordering_score`, spec §3.4):
 * the answer is split into lines (every line is an item, blank ones too); each line is aligned to
 * the first not-yet-used rubric item an equivalence check accepts and then stands for it; precision,
 * recall and F1 over the aligned items; Kendall tau-b between the reference order and the answer's
 * order over the union of items (items missing from a list rank last, tied); tau_norm = (tau+1)/2.
 * The official report uses tau_norm only.
 */
import { kendallTauB } from './kendall.js';

/** Does answer line `system` (number `line`) describe the same event as rubric item `ref`? */
export type Equivalence = (reference: string, system: string, ref: number, line: number) => Promise<boolean>;

export interface Alignment {
  /** The answer lines, each replaced by the rubric item it was matched to. */
  canonical: string[];
  /** Per answer line: index of its rubric item, or null. */
  matchedTo: Array<number | null>;
  /** Equivalence checks made. */
  checks: number;
}

/** Greedy one-to-one alignment in answer order; the first accepting rubric item wins. */
export async function alignWithReference(reference: string[], system: string[], same: Equivalence): Promise<Alignment> {
  const used = new Set<number>();
  const canonical: string[] = [];
  const matchedTo: Array<number | null> = [];
  let checks = 0;
  for (const [line, s] of system.entries()) {
    let match: number | null = null;
    for (let i = 0; i < reference.length; i++) {
      if (used.has(i)) continue;
      checks++;
      if (await same(reference[i]!, s, i, line)) {
        match = i;
        break;
      }
    }
    if (match === null) canonical.push(s);
    else {
      used.add(match);
      canonical.push(reference[match]!);
    }
    matchedTo.push(match);
  }
  return { canonical, matchedTo, checks };
}

export interface OrderingScore {
  precision: number;
  recall: number;
  f1: number;
  /** Kendall tau-b; NaN when undefined (fewer than 2 items, or one ranking constant). */
  tau_b: number;
  tau_norm: number;
  /** tau_norm * F1 (computed by the official code, not reported by it). */
  final_score: number;
}

/** Scores an aligned answer against the reference order, with the official arithmetic. */
export function orderingScore(reference: string[], canonical: string[]): OrderingScore {
  const refSet = new Set(reference);
  const sysSet = new Set(canonical);
  const tp = [...refSet].filter((x) => sysSet.has(x)).length;
  const fp = canonical.filter((x) => !refSet.has(x)).length;
  const fn = reference.filter((x) => !sysSet.has(x)).length;
  const precision = tp + fp ? tp / (tp + fp) : 0;
  const recall = tp + fn ? tp / (tp + fn) : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  const union = [...new Set([...reference, ...canonical])];
  const tieRank = union.length + 1;
  // Python's {item: i+1 for i, item in enumerate(seq)}: a repeated item keeps its last position.
  const toRank = (seq: string[]) => {
    const r = new Map<string, number>();
    seq.forEach((item, i) => r.set(item, i + 1));
    return union.map((u) => r.get(u) ?? tieRank);
  };
  const tau_b = kendallTauB(toRank(reference), toRank(canonical));
  const tau_norm = (tau_b + 1) / 2;
  return { precision, recall, f1, tau_b, tau_norm, final_score: tau_norm * f1 };
}

/**
 * tau_norm with the NaN guard (the official code leaves NaN, which poisons the ability mean): an
 * undefined tau means a single item, so identical rankings count as perfect agreement and anything
 * else as no information (tau = 0).
 */
export function guardedTauNorm(reference: string[], canonical: string[], score: OrderingScore): number {
  if (!Number.isNaN(score.tau_b)) return score.tau_norm;
  const same = reference.length === canonical.length && reference.every((r, i) => r === canonical[i]);
  return same && reference.length > 0 ? 1 : 0.5;
}

/** The official split: `llm_response.split("\n")`, blank lines included. */
export function answerLines(answer: string): string[] {
  return answer.split('\n');
}
