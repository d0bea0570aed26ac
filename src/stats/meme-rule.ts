/**
 * MEME's trivial-pass filter as a cross-item rule on stats items (spec meme-personamem-beam.md
 * §1.4): a Del, Cas or Abs after-question counts only when the before-question on the same entity
 * (same episode) passed. The rule itself is the MEME adapter's (src/datasets/meme/summary.ts);
 * this applies it to stats items, run by run when they carry judge votes.
 */
import { FILTERED_TASKS, beforeRunsByEntity, entityKey, memeMeta, realPass, type RuleEntry } from '../datasets/meme/summary.js';
import type { StatItem } from './load.js';

function runsOf(item: StatItem): number[] | null {
  if (item.error !== null || item.score === null) return null;
  return item.votes && item.votes.length ? item.votes : [item.score];
}

export function memeBeforeAfterRule(items: StatItem[]): { items: StatItem[]; note: string | null } {
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
