/**
 * MEME's trivial-pass filter as a cross-item rule on stats items (spec meme-personamem-beam.md
 * §1.4): a Del, Cas or Abs after-question counts only when the before-question on the same entity
 * (same episode) passed. Items carry the adapter's meta {phase, task, entity}; with judge votes the
 * rule is applied run by run, as the MEME adapter's summary does (src/datasets/meme/summary.ts).
 */
import type { StatItem } from './load.js';

const FILTERED = new Set(['Del', 'Cas', 'Abs']);

interface Meta {
  phase: 'before' | 'after';
  task: string;
  entity: string;
}

function metaOf(item: StatItem): Meta | null {
  const m = item.meta as Partial<Meta> | null;
  return m && (m.phase === 'before' || m.phase === 'after') && typeof m.task === 'string' && typeof m.entity === 'string' ? (m as Meta) : null;
}

function runsOf(item: StatItem): number[] | null {
  if (item.error !== null || item.score === null) return null;
  return item.votes && item.votes.length ? item.votes : [item.score];
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function questionIndex(id: string): number {
  const n = Number(id.slice(id.lastIndexOf(':') + 1));
  return Number.isFinite(n) ? n : 0;
}

export function memeBeforeAfterRule(items: StatItem[]): { items: StatItem[]; note: string | null } {
  const withMeta = items.filter((i) => metaOf(i) !== null);
  if (withMeta.length === 0) {
    return { items, note: 'no item carries MEME meta (phase/entity): scores used as given (the before/after rule must already be applied)' };
  }
  // judge.py before_map: later before-questions on the same entity overwrite earlier ones; ER before-questions are not judged.
  const beforeMap = new Map<string, number[] | null>();
  const befores = withMeta.filter((i) => metaOf(i)!.phase === 'before').sort((a, b) => questionIndex(a.id) - questionIndex(b.id));
  for (const b of befores) beforeMap.set(`${b.episode}\u0000${metaOf(b)!.entity}`, metaOf(b)!.task === 'ER' ? [0] : runsOf(b));
  let applied = 0;
  const out = items.map((item) => {
    const meta = metaOf(item);
    const runs = runsOf(item);
    if (!meta || meta.phase !== 'after' || !FILTERED.has(meta.task) || runs === null) return item;
    applied++;
    const before = beforeMap.get(`${item.episode}\u0000${meta.entity}`) ?? null;
    const real =
      before === null ? runs.map(() => 0) : runs.length === before.length ? runs.map((r, i) => r * before[i]!) : [mean(runs) * mean(before)];
    return { ...item, score: mean(real), votes: item.votes && item.votes.length ? real : null };
  });
  return { items: out, note: `MEME before/after rule applied to ${applied} Del/Cas/Abs after-question(s)` };
}
