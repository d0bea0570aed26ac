/**
 * Cutting a history into LLM-at-ingest batches: one per session, or fixed runs of N turns. Shared
 * by every system that calls an LLM while ingesting (the agentic memory extractor, RAW-RAG's fact,
 * summary and graph variants), so "per session" means the same turns everywhere.
 */
import type { Turn } from '../core/schema.js';

/** `session`: consecutive turns of one session; a number: runs of that many turns. */
export type BatchRule = 'session' | number;

export interface Batch {
  /** 0-based position in the episode's batch list. */
  index: number;
  /** Turn indices first..last inclusive. */
  first: number;
  last: number;
  /** Stable key within an episode: `t<first>-<last>`. */
  key: string;
}

/** Batches over the first `visible` turns: consecutive turns of one session, or fixed runs of N turns. */
export function batchesOf(turns: readonly Turn[], visible: number, rule: BatchRule): Batch[] {
  const out: Batch[] = [];
  const push = (first: number, last: number) => out.push({ index: out.length, first, last, key: `t${first}-${last}` });
  if (rule === 'session') {
    let start = 0;
    for (let i = 1; i <= visible; i++) {
      if (i === visible || turns[i]!.session !== turns[start]!.session) {
        push(start, i - 1);
        start = i;
      }
    }
  } else {
    for (let s = 0; s < visible; s += rule) push(s, Math.min(s + rule, visible) - 1);
  }
  return out;
}
