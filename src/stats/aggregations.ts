/**
 * Computing with a benchmark's aggregation (declared by its adapter, src/core/aggregation.ts):
 * the headline columns, each type's path through the levels, and the strata and weights the
 * stratified bootstrap resamples.
 */
import type { Aggregation, Weighting } from '../core/aggregation.js';

/** [type, group at level 1, group at level 2, ...]. */
export function pathOf(agg: Aggregation, type: string): string[] {
  const path = [type];
  for (const level of agg.levels ?? []) path.push(level.groupOf(path));
  return path;
}

export function inHeadline(agg: Aggregation, type: string): boolean {
  return agg.inHeadline ? agg.inHeadline(type) : true;
}

/** A headline column: which items it covers and how it weighs them. */
export interface ColumnSpec {
  name: string;
  weighting: Weighting;
  /** Only types whose group at `columnsFor` level is this (a competency column). */
  group?: string;
}

/** Headline columns for a family whose items have these types (in display order). */
export function headlineColumns(agg: Aggregation, types: string[]): ColumnSpec[] {
  const cols: ColumnSpec[] = [];
  const levelIndex = (agg.levels ?? []).findIndex((l) => l.name === agg.columnsFor);
  if (levelIndex >= 0) {
    // Groups in the level's display order (AR, TTL, LRU, CR), others after.
    const named = agg.levels![levelIndex]!.order ?? [];
    const rank = (g: string) => (named.includes(g) ? named.indexOf(g) : named.length);
    const groups = [...new Set(types.filter((t) => inHeadline(agg, t)).map((t) => pathOf(agg, t)[levelIndex + 1]!))].sort(
      (a, b) => rank(a) - rank(b),
    );
    for (const g of groups) cols.push({ name: g, weighting: 'macro', group: g });
  }
  for (const e of agg.extra ?? []) cols.push({ name: e.name, weighting: e.weighting });
  cols.push({ name: 'overall', weighting: agg.overall });
  return cols;
}

export interface Strata {
  strata: number[][];
  weights: number[];
  labels: string[];
}

/**
 * Strata (one per type, or one for micro) and their weights for a column over items with these
 * types. Macro: each group at the coarsest level gets an equal share, split equally among its
 * children at the next level, and so on down to the types. Null when the column has no items.
 */
/**
 * The strata of a column over items of these types: one for a micro average, one per type for a
 * macro one, in `typeOrder` when given (the family's type order: a paired comparison then draws as
 * each system's leaderboard interval did, and reuses those draws), else in order of appearance.
 */
export function columnStrata(agg: Aggregation, col: ColumnSpec, itemTypes: string[], typeOrder?: readonly string[]): Strata | null {
  const levelIndex = (agg.levels ?? []).findIndex((l) => l.name === agg.columnsFor);
  const idx = itemTypes
    .map((_, i) => i)
    .filter((i) => inHeadline(agg, itemTypes[i]!))
    .filter((i) => col.group === undefined || pathOf(agg, itemTypes[i]!)[levelIndex + 1] === col.group);
  if (idx.length === 0) return null;
  if (col.weighting === 'micro') return { strata: [idx], weights: [1], labels: ['all'] };
  const byType = new Map<string, number[]>();
  for (const i of idx) {
    const t = itemTypes[i]!;
    if (!byType.has(t)) byType.set(t, []);
    byType.get(t)!.push(i);
  }
  const rank = (t: string) => (typeOrder?.includes(t) ? typeOrder.indexOf(t) : Infinity);
  const labels = [...byType.keys()].sort((a, b) => rank(a) - rank(b));
  const weights = macroWeights(labels.map((t) => pathOf(agg, t).reverse()));
  return { strata: labels.map((t) => byType.get(t)!), weights, labels };
}

/** Equal split at every level of the paths (coarsest first; the last element is the type). */
function macroWeights(paths: string[][]): number[] {
  const weights = new Array<number>(paths.length).fill(0);
  const split = (members: number[], depth: number, weight: number) => {
    if (depth === paths[members[0]!]!.length) {
      for (const m of members) weights[m] = weight / members.length;
      return;
    }
    const keys = [...new Set(members.map((m) => paths[m]![depth]!))];
    for (const k of keys)
      split(
        members.filter((m) => paths[m]![depth] === k),
        depth + 1,
        weight / keys.length,
      );
  };
  split(
    paths.map((_, i) => i),
    0,
    1,
  );
  return weights;
}
