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
 * The generic cap for evidence a source assembled itself (a memory system's block, a source
 * outside src/retrieval/assemble.ts): whole blocks in presentation order while they fit; when not
 * even the first fits, it is cut at the budget's token (a memory block longer than the budget).
 * The raw turns shown are those of the kept blocks. Returns the evidence itself when it fits.
 */
export function capEvidence(evidence: Evidence, max: number | undefined): Evidence {
  const budget = budgetOf(max);
  if (budget === null || evidence.tokens <= budget) return evidence;
  const sized = evidence.blocks.map((b) => ({ b, tokens: countTokens(b.text) }));
  let kept = packGreedy(sized, budget, (x) => x.tokens);
  if (kept.length === 0 && sized.length > 0) {
    const enc = getTokenizer('cl100k_base');
    const text = enc.decode(enc.encode(sized[0]!.b.text).slice(0, budget));
    kept = [{ b: { ...sized[0]!.b, text }, tokens: countTokens(text) }];
  }
  const shown = new Set(kept.flatMap((x) => (x.b.kind === 'history' ? x.b.turns : [])));
  const pairs = evidence.turnIndices.map((t, i) => [t, evidence.turnIds[i]!] as const).filter(([t]) => shown.has(t));
  return {
    turnIndices: pairs.map(([t]) => t),
    turnIds: pairs.map(([, id]) => id),
    blocks: kept.map((x) => x.b),
    tokens: kept.reduce((s, x) => s + x.tokens, 0),
  };
}
