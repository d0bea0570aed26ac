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
import type { Coverage } from '../core/coverage.js';

type AssemblyPolicy = Pick<Policy, 'expandToTurns' | 'order' | 'dedupTurns' | 'maxEvidenceTokens'>;

export function assemble(ep: IngestedEpisode, selected: Hit[], policy: AssemblyPolicy): Evidence {
  const dedup = policy.dedupTurns !== false;
  const turnTokens = (t: number) => ep.turnTokenStart[t + 1]! - ep.turnTokenStart[t]!;
  const chunkTurns = (c: Chunk) => turnRange(c.firstTurn, c.lastTurn);
  const cost = (c: Chunk, kept: readonly Chunk[]): number => {
    // A derived unit (a fact, a summary) and an unexpanded window cost their own text.
    if (!policy.expandToTurns || c.sourceTurns) return c.tokenEnd - c.tokenStart;
    const shown = dedup ? new Set(kept.flatMap(chunkTurns)) : new Set<number>();
    return chunkTurns(c).reduce((s, t) => s + (shown.has(t) ? 0 : turnTokens(t)), 0);
  };
  const chunks = packGreedy(
    selected.map((h) => ep.chunks[h.chunk]!),
    budgetOf(policy.maxEvidenceTokens),
    cost,
  );
  if (chunks.some((c) => c.sourceTurns)) return assembleUnits(ep, chunks, policy);
  if (policy.order === 'chronological') chunks.sort((a, b) => a.index - b.index);
  const turnIndices: number[] = [];
  const seen = new Set<number>();
  for (const c of chunks) {
    for (let t = c.firstTurn; t <= c.lastTurn; t++) {
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

/**
 * Evidence with derived units among the windows (RAW-RAG's fact and summary variants): windows
 * as above, each derived unit a `memory` block of its own text (never expanded) that keeps its
 * source turns, so coverage (`coveredTurnIds`) counts them exactly as a window's turns.
 */
function assembleUnits(ep: IngestedEpisode, chunks: Chunk[], policy: Pick<Policy, 'expandToTurns' | 'order'>): Evidence {
  const firstOf = (c: Chunk) => (c.sourceTurns ? Math.min(...c.sourceTurns) : c.firstTurn);
  const ordered = policy.order === 'chronological' ? [...chunks].sort((a, b) => firstOf(a) - firstOf(b) || a.index - b.index) : chunks;
  const turnIndices: number[] = [];
  const shown = new Set<number>();
  const blocks: EvidenceBlock[] = [];
  let tokens = 0;
  for (const c of ordered) {
    if (c.sourceTurns) {
      blocks.push({ text: c.text, turns: [...c.sourceTurns], kind: 'memory' });
      tokens += c.tokenEnd - c.tokenStart;
      continue;
    }
    const fresh: number[] = [];
    for (let t = c.firstTurn; t <= c.lastTurn; t++) {
      if (shown.has(t)) continue;
      shown.add(t);
      turnIndices.push(t);
      fresh.push(t);
    }
    if (policy.expandToTurns) {
      for (const t of fresh) {
        blocks.push({ text: ep.lines[t]!, turns: [t], kind: 'history' });
        tokens += ep.turnTokenStart[t + 1]! - ep.turnTokenStart[t]!;
      }
    } else {
      blocks.push({ text: c.text, turns: turnRange(c.firstTurn, c.lastTurn), kind: 'history' });
      tokens += c.tokenEnd - c.tokenStart;
    }
  }
  return { turnIndices, turnIds: turnIndices.map((t) => ep.episode.turns[t]!.id), blocks, tokens };
}

/** The turns behind the evidence (raw turns shown, and the source turns of derived units), first appearance order: what coverage counts. */
export function coveredTurnIds(ep: IngestedEpisode, evidence: Evidence): string[] {
  const seen = new Set<number>();
  const out: string[] = [];
  const add = (t: number): void => {
    if (seen.has(t)) return;
    seen.add(t);
    out.push(ep.episode.turns[t]!.id);
  };
  for (const t of evidence.turnIndices) add(t);
  for (const b of evidence.blocks) for (const t of b.turns) add(t);
  return out;
}

/**
 * Coverage at each depth of one ranking: the turns of the top `k` windows, for every k in `ks`,
 * in one pass down the ranking (which turns are shown does not depend on their order, so there
 * is no need to assemble the evidence once per depth). Each gold turn is looked up once: the
 * first rank whose window holds it decides at which depths it is shown.
 */
export function coverageByDepth(
  ep: IngestedEpisode,
  ranked: Hit[],
  goldTurnIds: readonly string[],
  ks: number[],
): Map<number, Coverage | null> {
  const byId = turnsById(ep);
  const firstRank = goldTurnIds.map((id) => {
    let first = Infinity;
    for (const t of byId.get(id) ?? []) {
      for (let r = 0; r < Math.min(first, ranked.length); r++) {
        const c = ep.chunks[ranked[r]!.chunk]!;
        if (c.firstTurn <= t && t <= c.lastTurn) first = r;
      }
    }
    return first;
  });
  const out = new Map<number, Coverage | null>();
  // A depth beyond the ranking sees the whole ranking, as slice(0, k) would.
  for (const k of [...ks].sort((a, b) => a - b)) {
    if (goldTurnIds.length === 0) {
      out.set(k, null);
      continue;
    }
    const hit = firstRank.filter((r) => r < k).length;
    out.set(k, { all: hit === goldTurnIds.length, any: hit > 0 });
  }
  return out;
}

const turnIndex = new WeakMap<IngestedEpisode, Map<string, number[]>>();

/** The episode's turn indices by turn id (an id is meant to be unique; every turn bearing it counts). */
function turnsById(ep: IngestedEpisode): Map<string, number[]> {
  let map = turnIndex.get(ep);
  if (!map) {
    map = new Map();
    ep.episode.turns.forEach((t, i) => {
      const list = map!.get(t.id);
      if (list) list.push(i);
      else map!.set(t.id, [i]);
    });
    turnIndex.set(ep, map);
  }
  return map;
}

/** The turn indices first..last, inclusive (a window's turns). */
export function turnRange(first: number, last: number): number[] {
  const out: number[] = [];
  for (let t = first; t <= last; t++) out.push(t);
  return out;
}
