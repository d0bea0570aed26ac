/**
 * Assembly: what the reader is shown. Selected windows expand to the full turns they touch
 * (policy), presented in rank order or chronologically (policy).
 */
import type { IngestedEpisode } from '../core/ingested-episode.js';
import type { Hit } from '../core/retriever.js';
import type { Policy } from '../core/policy.js';
import type { Evidence, EvidenceBlock } from '../core/ingested-episode.js';

export function assemble(ep: IngestedEpisode, selected: Hit[], policy: Pick<Policy, 'expandToTurns' | 'order'>): Evidence {
  const chunks = selected.map((h) => ep.chunks[h.chunk]!);
  if (policy.order === 'chronological') chunks.sort((a, b) => a.index - b.index);
  const turnIndices: number[] = [];
  const seen = new Set<number>();
  for (const c of chunks) {
    for (let t = c.firstTurn; t <= c.lastTurn; t++) {
      if (!seen.has(t)) {
        seen.add(t);
        turnIndices.push(t);
      }
    }
  }
  // Overlapping windows can interleave; chronological order is by turn, not by window.
  if (policy.order === 'chronological') turnIndices.sort((a, b) => a - b);
  const blocks: EvidenceBlock[] = policy.expandToTurns
    ? turnIndices.map((t) => ({ text: ep.lines[t]!, turns: [t], kind: 'history' }))
    : chunks.map((c) => ({ text: c.text, turns: range(c.firstTurn, c.lastTurn), kind: 'history' }));
  const tokens = policy.expandToTurns
    ? turnIndices.reduce((s, t) => s + ep.turnTokenStart[t + 1]! - ep.turnTokenStart[t]!, 0)
    : chunks.reduce((s, c) => s + c.tokenEnd - c.tokenStart, 0);
  return { turnIndices, turnIds: turnIndices.map((t) => ep.episode.turns[t]!.id), blocks, tokens };
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
