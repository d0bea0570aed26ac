/**
 * MEME gold evidence: each evidence session lists `gold_facts` {entity, value, conveyed_in_turn}.
 * A question's gold evidence is every visible turn stating one of the (entity, value) pairs the
 * judge checks, so the generic coverage works; `result coverage` (the paper's diagnostic: a selected
 * turn states the gold value) needs one stating turn per required pair.
 */
import type { Chunk, IngestedEpisode } from '../../core/ingested-episode.js';
import type { Question } from '../../core/schema.js';
import type { MemeValue, RawSessionT } from './format.js';

/** One value the judge looks for, and the turns (ids) that state it. */
export interface RequiredFact {
  entity: string;
  value: string;
  turns: string[];
}

/** Whitespace- and case-normalised, as judge.py normalises the ER check. */
export function normaliseValue(v: string): string {
  return v.toLowerCase().split(/\s+/).filter(Boolean).join(' ');
}

export function turnId(sessionIndex: number, turnIndex: number): string {
  return `s${sessionIndex}:t${turnIndex}`;
}

/** (entity, value) -> turn ids, over sessions [0, lastSession]. */
export type FactIndex = Map<string, string[]>;

function key(entity: string, value: string): string {
  return `${entity}\u0000${normaliseValue(value)}`;
}

export function indexGoldFacts(sessions: RawSessionT[], lastSession: number): FactIndex {
  const index: FactIndex = new Map();
  sessions.slice(0, lastSession + 1).forEach((s, si) => {
    for (const f of s.gold_facts ?? []) {
      if (f.conveyed_in_turn === null || f.conveyed_in_turn >= s.conversation.length) continue;
      const id = turnId(si, f.conveyed_in_turn);
      for (const v of Array.isArray(f.value) ? f.value : [f.value]) {
        const k = key(f.entity, v);
        const list = index.get(k) ?? [];
        if (!list.includes(id)) list.push(id);
        index.set(k, list);
      }
    }
  });
  return index;
}

/**
 * The pairs the judge checks: Agg every entity's value; Tr each history value of the first entity;
 * otherwise the first entity's value (judge.py takes `list(entity_values)[0]`).
 */
export function requiredPairs(task: string, entityValues: Record<string, MemeValue>): Array<{ entity: string; value: string }> {
  const entries = Object.entries(entityValues);
  const pairs = task === 'Agg' ? entries : entries.slice(0, 1);
  return pairs.flatMap(([entity, v]) => (Array.isArray(v) ? v : [v]).map((value) => ({ entity, value })));
}

export function locate(index: FactIndex, pairs: Array<{ entity: string; value: string }>): RequiredFact[] {
  return pairs.map((p) => ({ ...p, turns: index.get(key(p.entity, p.value)) ?? [] }));
}

/**
 * Result coverage at depth k: 1 when every required value is stated by a turn of the top-k windows,
 * 0 when one is not; null when a required value has no stating turn in the data (undecidable).
 */
export function resultCoverage(q: Question, ranked: Chunk[], ep: IngestedEpisode, k: number): Record<string, number | null> {
  const required = (q.meta?.required as RequiredFact[] | undefined) ?? [];
  if (required.length === 0 || required.some((r) => r.turns.length === 0)) return { result_coverage: null };
  const shown = new Set<string>();
  for (const c of ranked.slice(0, k)) {
    for (let t = c.firstTurn; t <= c.lastTurn; t++) shown.add(ep.episode.turns[t]!.id);
  }
  return { result_coverage: required.every((r) => r.turns.some((t) => shown.has(t))) ? 1 : 0 };
}
