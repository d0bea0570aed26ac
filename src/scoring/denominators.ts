/**
 * Denominators: every benchmark summary reports its headline over all N (failed items count 0)
 * and over the items that did not fail, with the failures by stage. Adapters use these from
 * below the pipeline, so they live with the scoring helpers.
 */
import type { ItemRecord } from '../core/item.js';

export function errorsByStage(items: ItemRecord[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const i of items) if (i.error) counts.set(i.error.stage, (counts.get(i.error.stage) ?? 0) + 1);
  return Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The same items with every failed one counted as a wrong answer (error cleared, score 0): a
 * benchmark summary run over these gives its headline over all N.
 */
export function failedAsWrong(items: ItemRecord[]): ItemRecord[] {
  return items.map((i) => (i.error ? { ...i, error: null, score: 0 } : i));
}

/** The items that did not fail: a benchmark summary run over these gives its headline over scored items. */
export function withoutFailed(items: ItemRecord[]): ItemRecord[] {
  return items.filter((i) => !i.error);
}

/**
 * What every benchmark summary reports beside its headline: the headline over all N (failed
 * items count 0) and over the items that did not fail, with the failures by stage.
 */
export interface Denominators {
  n: number;
  failed: number;
  errors_by_stage: Record<string, number>;
  /** The headline with failed items counted wrong (0). */
  headline_all_n: number | null;
  /** The headline over the items that did not fail. */
  headline_scored: number | null;
  /** Which of the two the benchmark's official code reports. */
  official: 'all_n' | 'scored';
}

export function denominators(
  items: ItemRecord[],
  headline: (items: ItemRecord[]) => number | null,
  official: Denominators['official'],
): Denominators {
  return {
    n: items.length,
    failed: items.filter((i) => i.error).length,
    errors_by_stage: errorsByStage(items),
    headline_all_n: headline(failedAsWrong(items)),
    headline_scored: headline(withoutFailed(items)),
    official,
  };
}

/** One printed line: both headlines and the failures, so no reader mistakes one for the other. */
export function denominatorLine(d: Denominators, scale = 100): string {
  const f = (x: number | null) => (x === null ? '—' : (scale * x).toFixed(2));
  const stages = Object.entries(d.errors_by_stage)
    .map(([s, c]) => `${s} ${c}`)
    .join(', ');
  const tag = (k: Denominators['official']) => (d.official === k ? ' (official)' : '');
  return `headline over all ${d.n} (failed count 0)${tag('all_n')}: ${f(d.headline_all_n)}; over the ${d.n - d.failed} not failed${tag('scored')}: ${f(d.headline_scored)}; failed: ${d.failed}${stages ? ` (${stages})` : ''}`;
}

/** The denominators as a table for `benchmark_summary.tables` (printed by `rawrag run`). */
export function denominatorTable(
  d: Denominators,
  what: string,
  scale = 100,
): { title: string; header: string[]; rows: Array<Array<string | number>> } {
  const f = (x: number | null) => (x === null ? '—' : (scale * x).toFixed(2));
  const tag = (k: Denominators['official']) => (d.official === k ? ' — the official rule' : '');
  return {
    title: `${what}: over all questions and over those that did not fail (${d.failed} of ${d.n} failed)`,
    header: ['denominator', 'n', 'headline'],
    rows: [
      [`all questions, failed count 0${tag('all_n')}`, d.n, f(d.headline_all_n)],
      [`not failed${tag('scored')}`, d.n - d.failed, f(d.headline_scored)],
      ...Object.entries(d.errors_by_stage).map(([stage, c]) => [`failed at ${stage}`, c, '']),
    ],
  };
}
