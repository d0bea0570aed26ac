/**
 * MEME's trivial-pass filter as a cross-item rule on scored items (MEME's judge.py rule): a Del,
 * Cas or Abs after-question counts only when the before-question on the same entity (same
 * episode) passed, run by run when items carry judge votes. The rule itself is in summary.ts;
 * this applies it wherever MEME items are aggregated (stats, ablation tables).
 */
import type { AggregationItem } from '../../core/aggregation.js';
import { FILTERED_TASKS, beforeRunsByEntity, entityKey, memeMeta, realPass, type RuleEntry } from './summary.js';

function runsOf(item: AggregationItem): number[] | null {
  if (item.error !== null || item.score === null) return null;
  return item.votes && item.votes.length ? item.votes : [item.score];
}

export function memeBeforeAfterRule<T extends AggregationItem>(items: T[]): { items: T[]; note: string | null } {
  const entries: RuleEntry[] = [];
  for (const i of items) {
    const meta = memeMeta(i.meta);
    if (meta) entries.push({ id: i.id, episode: i.episode, meta, runs: runsOf(i) });
  }
  if (entries.length === 0) {
    return { items, note: 'no item carries MEME meta (phase/entity): scores used as given (the before/after rule must already be applied)' };
  }
  const beforeMap = beforeRunsByEntity(entries);
  let applied = 0;
  const out = items.map((item) => {
    const meta = memeMeta(item.meta);
    const runs = runsOf(item);
    if (!meta || meta.phase !== 'after' || !FILTERED_TASKS.has(meta.task) || runs === null) return item;
    applied++;
    const before = beforeMap.get(entityKey(item.episode, meta.entity)) ?? null;
    // Votes are filtered run by run (as realPass scores them); with unequal run counts there are no per-run votes.
    const real = before === null ? runs.map(() => 0) : runs.length === before.length ? runs.map((r, i) => r * before[i]!) : null;
    return { ...item, score: realPass(runs, before), votes: item.votes && item.votes.length && real ? real : null };
  });
  return { items: out, note: `MEME before/after rule applied to ${applied} Del/Cas/Abs after-question(s)` };
}
