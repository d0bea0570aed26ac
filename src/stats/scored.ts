/**
 * What counts of a question in the statistics: scored, coverage known, its binary outcome; and a
 * stratified bootstrap design from plain arrays.
 */
import type { Design } from './bootstrap.js';
import type { StatItem } from './load.js';

/** Outcome for McNemar / Cochran: majority of the judge runs (ties count as right), else score ≥ 0.5. */
export function binarise(item: StatItem): 0 | 1 {
  if (item.votes && item.votes.length) return item.votes.reduce((s, v) => s + v, 0) / item.votes.length >= 0.5 ? 1 : 0;
  return (item.score ?? 0) >= 0.5 ? 1 : 0;
}

/**
 * Coverage is a retrieval figure: an item that carries one was retrieved, whatever failed after
 * (reading, judging), and counts in the coverage tables; utilization still needs a score.
 */
export function coverageKnown(it: StatItem): boolean {
  return it.coverage !== null;
}

export function isScored(it: StatItem | undefined): it is StatItem & { score: number } {
  return it !== undefined && it.error === null && it.score !== null;
}

export function toDesign(s: { strata: number[][]; weights: number[] }): Design {
  return { strata: s.strata.map((x) => Int32Array.from(x)), weights: s.weights };
}
