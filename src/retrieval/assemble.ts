/**
 * Assembly: what the reader is shown. Selected windows expand to the full turns they touch
 * (policy), presented in rank order or chronologically (policy).
 */
import type { Chunk, IngestedEpisode } from './chunk.js';
import type { Hit } from '../core/retriever.js';
import type { Policy } from '../core/policy.js';
import type { Evidence } from '../core/ingested-episode.js';

export type { Evidence };

export function assemble(ep: IngestedEpisode, selected: Hit[], policy: Pick<Policy, 'expandToTurns' | 'order'>): Evidence {
  const chunks = selected.map((h) => ep.chunks[h.chunk]!);
  if (chunks.some((c) => c.sourceTurns)) return assembleUnits(ep, chunks, policy);
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
  const blocks = policy.expandToTurns ? turnIndices.map((t) => ep.lines[t]!) : chunks.map((c) => c.text);
  const tokens = policy.expandToTurns
    ? turnIndices.reduce((s, t) => s + ep.turnTokenStart[t + 1]! - ep.turnTokenStart[t]!, 0)
    : chunks.reduce((s, c) => s + c.tokenEnd - c.tokenStart, 0);
  return { turnIndices, turnIds: turnIndices.map((t) => ep.episode.turns[t]!.id), blocks, tokens };
}

/**
 * Evidence with derived units among the windows (RAW-RAG's fact and summary variants): windows
 * as above, each derived unit as its own text (never expanded); every unit's source turns count
 * as shown, so coverage is computed from source turns exactly as for windows.
 */
function assembleUnits(ep: IngestedEpisode, chunks: Chunk[], policy: Pick<Policy, 'expandToTurns' | 'order'>): Evidence {
  const firstOf = (c: Chunk) => (c.sourceTurns ? Math.min(...c.sourceTurns) : c.firstTurn);
  const ordered = policy.order === 'chronological' ? [...chunks].sort((a, b) => firstOf(a) - firstOf(b) || a.index - b.index) : chunks;
  const turnIndices: number[] = [];
  const covered = new Set<number>();
  const expanded = new Set<number>();
  const blocks: string[] = [];
  let tokens = 0;
  const cover = (t: number) => {
    if (covered.has(t)) return;
    covered.add(t);
    turnIndices.push(t);
  };
  for (const c of ordered) {
    if (c.sourceTurns) {
      for (const t of c.sourceTurns) cover(t);
      blocks.push(c.text);
      tokens += c.tokenEnd - c.tokenStart;
      continue;
    }
    for (let t = c.firstTurn; t <= c.lastTurn; t++) {
      cover(t);
      // A turn a fact already stands for is still shown in full when a window reaches it.
      if (policy.expandToTurns && !expanded.has(t)) {
        expanded.add(t);
        blocks.push(ep.lines[t]!);
        tokens += ep.turnTokenStart[t + 1]! - ep.turnTokenStart[t]!;
      }
    }
    if (!policy.expandToTurns) {
      blocks.push(c.text);
      tokens += c.tokenEnd - c.tokenStart;
    }
  }
  return { turnIndices, turnIds: turnIndices.map((t) => ep.episode.turns[t]!.id), blocks, tokens };
}
