/**
 * Evidence budgets (`--max-evidence-tokens`), one rule for every system: units are taken in the
 * order given (rank or score, best first); a unit that would overflow the budget is skipped and
 * later, smaller ones may still fit (greedy packing, deterministic). 0 or absent = no cap.
 */
import type { Evidence } from '../core/ingested-episode.js';
import { countTokens, getTokenizer } from './tokenizer.js';

/** The budget in force: a positive number, or null for none. */
export function budgetOf(max: number | undefined | null): number | null {
  return max !== undefined && max !== null && max > 0 ? max : null;
}

/** Greedy packing of `units` (best first) into `budget` tokens; `cost` may depend on what was kept so far. */
export function packGreedy<T>(units: readonly T[], budget: number | null, cost: (u: T, kept: readonly T[]) => number): T[] {
  if (budget === null) return [...units];
  const kept: T[] = [];
  let used = 0;
  for (const u of units) {
    const c = cost(u, kept);
    if (used + c > budget) continue;
    used += c;
    kept.push(u);
  }
  return kept;
}

/**
 * The generic cap for evidence a source assembled itself (a memory system's recalled block, a
 * source outside src/retrieval/assemble.ts): whole blocks in presentation order while they fit;
 * a recalled block longer than the budget is cut at the budget's token. Returns the evidence
 * unchanged when it already fits.
 */
export function capEvidence(evidence: Evidence, max: number | undefined): Evidence {
  const budget = budgetOf(max);
  if (budget === null || evidence.tokens <= budget) return evidence;
  if (evidence.recalled !== undefined) {
    const enc = getTokenizer('cl100k_base');
    const text = enc.decode(enc.encode(evidence.recalled).slice(0, budget));
    return { turnIndices: evidence.turnIndices, turnIds: evidence.turnIds, blocks: [text], tokens: countTokens(text), recalled: text };
  }
  const aligned = evidence.turnIndices.length === evidence.blocks.length;
  const blocks = evidence.blocks.map((text, i) => ({ text, i, tokens: countTokens(text) }));
  const kept = packGreedy(blocks, budget, (b) => b.tokens);
  return {
    turnIndices: aligned ? kept.map((b) => evidence.turnIndices[b.i]!) : evidence.turnIndices,
    turnIds: aligned ? kept.map((b) => evidence.turnIds[b.i]!) : evidence.turnIds,
    blocks: kept.map((b) => b.text),
    tokens: kept.reduce((s, b) => s + b.tokens, 0),
  };
}
