/**
 * The read path: hard filters, then score = w.cosine * cos(query, item) + w.entity * entity_match
 * + w.recency * recency + w.importance * importance (0.4 / 0.3 / 0.2 / 0.1 by default), recency =
 * base ^ (days since last access / period); then the injection block under its budget (top 5
 * items, at most 800 cl100k tokens by default). Recall reads the store and never writes it.
 */
import type { MemoryConfig } from './config.js';
import { countTokens } from '../../retrieval/tokenizer.js';
import { entityMatch } from './entities.js';
import { expired } from './forget.js';
import type { MemoryRow } from './store.js';
import { cosine } from './vectors.js';

export interface RecallQuery {
  vector: Float32Array;
  /** Aligned entities the question names. */
  focus: string[];
  /** "Now" in days since 1970-01-01 (the question's date, else the last visible session's); null = unknown. */
  nowDay: number | null;
}

export interface ScoreParts {
  cos: number;
  entity: number;
  recency: number;
  importance: number;
}

export interface ScoredMemory {
  memory: MemoryRow;
  score: number;
  parts: ScoreParts;
}

export const INJECTION_HEADER =
  'Recalled background (from memory; where it conflicts with the current conversation, the conversation wins):';

/** Superseded items only when asked; forgotten items never. */
export function recallable(m: MemoryRow, cfg: Pick<MemoryConfig, 'includeSuperseded'>): boolean {
  return m.status === 'active' || (m.status === 'superseded' && cfg.includeSuperseded);
}

export function recency(m: MemoryRow, nowDay: number | null, cfg: Pick<MemoryConfig, 'recencyBase' | 'recencyPeriodDays'>): number {
  // An unreadable date carries no recency signal either way: as if just accessed.
  if (nowDay === null || m.last_access_day === null) return 1;
  const days = Math.max(0, nowDay - m.last_access_day);
  return cfg.recencyBase ** (days / cfg.recencyPeriodDays);
}

/** Every recallable item with its score, best first (ties: older item first, then id). */
export function scoreMemories(memories: readonly MemoryRow[], q: RecallQuery, cfg: MemoryConfig): ScoredMemory[] {
  const w = cfg.weights;
  // Hard filters: status, then expiry at the question's "now" (never-touched items decayed below the floor).
  return memories
    .filter((m) => recallable(m, cfg) && !expired(m, q.nowDay, cfg.forgetting))
    .map((m) => {
      const parts = {
        cos: cosine(q.vector, m.embedding),
        entity: entityMatch(q.focus, m.entities),
        recency: recency(m, q.nowDay, cfg),
        importance: m.importance,
      };
      return {
        memory: m,
        parts,
        score: w.cosine * parts.cos + w.entity * parts.entity + w.recency * parts.recency + w.importance * parts.importance,
      };
    })
    .sort(
      (a, b) =>
        b.score - a.score ||
        a.memory.scope - b.memory.scope ||
        a.memory.seq - b.memory.seq ||
        (a.memory.memory_id < b.memory.memory_id ? -1 : 1),
    );
}

export function memoryLine(m: MemoryRow): string {
  const date = m.created_at ? `[${m.created_at}] ` : '';
  const old = m.status === 'superseded' ? ' (superseded by a newer memory)' : '';
  return `- ${date}${m.content}${old}`;
}

/**
 * The labelled block the reader is shown: the best items, in score order, while both budgets
 * hold (an item that would overflow the token budget is skipped for a shorter one below it).
 */
export function injectionBlock(
  scored: readonly ScoredMemory[],
  cfg: Pick<MemoryConfig, 'items' | 'tokens'>,
): { text: string; injected: ScoredMemory[]; tokens: number } {
  const injected: ScoredMemory[] = [];
  const lines = [INJECTION_HEADER];
  let tokens = countTokens(INJECTION_HEADER);
  for (const s of scored) {
    if (injected.length >= cfg.items) break;
    const line = memoryLine(s.memory);
    const cost = countTokens('\n' + line);
    if (tokens + cost > cfg.tokens) continue;
    lines.push(line);
    tokens += cost;
    injected.push(s);
  }
  if (injected.length === 0) lines.push('- (nothing recalled)');
  const text = lines.join('\n');
  return { text, injected, tokens: countTokens(text) };
}
