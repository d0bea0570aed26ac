/**
 * Within one ablation, two variants often show the reader exactly the same evidence for a
 * question (k=30 and k=60 when the episode has 25 windows; expansion making different windows
 * the same turns). The reader and judge see nothing else that varies, so the answer and its
 * verdicts are reused instead of asked again.
 */
import type { Evidence } from '../core/ingested-episode.js';
import type { ItemRecord } from '../core/item.js';
import { createHash } from 'node:crypto';
import type { Policy } from '../core/policy.js';

/** What the stages added to an item: the fields a reused item takes over. */
export interface StageDelta {
  answer: string | null;
  score: number | null;
  metrics: Record<string, number | null>;
  details: Record<string, unknown>;
}

/**
 * Identity of what the reader is shown, without hashing its text: expanded evidence is its turns
 * in presentation order; unexpanded evidence is its windows (which depend on the window size)
 * in presentation order.
 */
export function evidenceKey(
  evidence: Evidence,
  item: Pick<ItemRecord, 'retrieved'>,
  policy: Pick<Policy, 'expandToTurns' | 'order'>,
  windowKey: string,
): string {
  if (policy.expandToTurns) return digest(`turns|${evidence.turnIds.join('\u0001')}`);
  const chunks = item.retrieved.map((r) => r.chunk);
  if (policy.order === 'chronological') chunks.sort((a, b) => chunkIndex(a) - chunkIndex(b));
  return digest(`windows|${windowKey}|${chunks.join('\u0001')}`);
}

/** Keys are kept for every question of the ablation: a short digest instead of thousands of ids. */
function digest(key: string): string {
  return createHash('sha1').update(key).digest('base64');
}

function chunkIndex(id: string): number {
  return Number(id.slice(id.lastIndexOf('#') + 1));
}

/** The stage-made part of `after`, given the retrieval-made part `before` (metrics from the ranking stay out). */
export function stageDelta(before: Pick<ItemRecord, 'metrics' | 'details'>, after: ItemRecord): StageDelta {
  const changed = <T>(prev: Record<string, T>, next: Record<string, T>) =>
    Object.fromEntries(Object.entries(next).filter(([k, v]) => !(k in prev) || JSON.stringify(prev[k]) !== JSON.stringify(v)));
  return {
    answer: after.answer,
    score: after.score,
    metrics: changed(before.metrics, after.metrics),
    details: structuredClone(changed(before.details, after.details)),
  };
}

export function reuseStages(item: ItemRecord, delta: StageDelta, from: string): void {
  item.answer = delta.answer;
  item.score = delta.score;
  Object.assign(item.metrics, delta.metrics);
  Object.assign(item.details, structuredClone(delta.details));
  // Said on the item, so per-item usage is not read as spent twice.
  item.details.ablate_reused_from = from;
}
