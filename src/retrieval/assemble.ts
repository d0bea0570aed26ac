/**
 * Assembly: what the reader is shown. Selected windows expand to the full turns they touch
 * (policy), presented in rank order or chronologically (policy). A turn shared by overlapping
 * windows is shown once unless `--no-dedup` (policy.dedupTurns false: once per window, as the
 * paper's display counts it). With `--max-evidence-tokens` the windows are packed in rank order
 * first (src/retrieval/pack.ts), each costing the tokens it adds, then ordered.
 */
import type { Chunk, IngestedEpisode } from '../core/ingested-episode.js';
import type { Hit } from '../core/retriever.js';
import type { Policy } from '../core/policy.js';
import type { Evidence, EvidenceBlock } from '../core/ingested-episode.js';
import { budgetOf, packGreedy } from './pack.js';

type AssemblyPolicy = Pick<Policy, 'expandToTurns' | 'order' | 'dedupTurns' | 'maxEvidenceTokens'>;

export function assemble(ep: IngestedEpisode, selected: Hit[], policy: AssemblyPolicy): Evidence {
  const dedup = policy.dedupTurns !== false;
  const turnTokens = (t: number) => ep.turnTokenStart[t + 1]! - ep.turnTokenStart[t]!;
  const chunkTurns = (c: Chunk) => range(c.firstTurn, c.lastTurn);
  const cost = (c: Chunk, kept: readonly Chunk[]): number => {
    if (!policy.expandToTurns) return c.tokenEnd - c.tokenStart;
    const shown = dedup ? new Set(kept.flatMap(chunkTurns)) : new Set<number>();
    return chunkTurns(c).reduce((s, t) => s + (shown.has(t) ? 0 : turnTokens(t)), 0);
  };
  const chunks = packGreedy(
    selected.map((h) => ep.chunks[h.chunk]!),
    budgetOf(policy.maxEvidenceTokens),
    cost,
  );
  if (policy.order === 'chronological') chunks.sort((a, b) => a.index - b.index);
  const turnIndices: number[] = [];
  const seen = new Set<number>();
  for (const c of chunks) {
    for (const t of chunkTurns(c)) {
      if (dedup && seen.has(t)) continue;
      seen.add(t);
      turnIndices.push(t);
    }
  }
  // Overlapping windows can interleave; chronological order is by turn, not by window (a repeated turn stays beside its twin).
  if (policy.order === 'chronological') turnIndices.sort((a, b) => a - b);
  const blocks: EvidenceBlock[] = policy.expandToTurns
    ? turnIndices.map((t) => ({ text: ep.lines[t]!, turns: [t], kind: 'history' }))
    : chunks.map((c) => ({ text: c.text, turns: chunkTurns(c), kind: 'history' }));
  const tokens = policy.expandToTurns
    ? turnIndices.reduce((s, t) => s + turnTokens(t), 0)
    : chunks.reduce((s, c) => s + c.tokenEnd - c.tokenStart, 0);
  return { turnIndices, turnIds: turnIndices.map((t) => ep.episode.turns[t]!.id), blocks, tokens };
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
