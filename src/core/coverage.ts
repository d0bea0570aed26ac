/**
 * Coverage, the paper's main diagnostic: did the evidence shown contain the gold evidence?
 * `all` = every gold turn shown (sufficient evidence); `any` = at least one.
 * null when the question has no gold evidence (it is left out of coverage rates, not counted as a miss).
 */
export interface Coverage {
  all: boolean;
  any: boolean;
}

export function coverage(shownTurnIds: Iterable<string>, goldTurnIds: readonly string[]): Coverage | null {
  if (goldTurnIds.length === 0) return null;
  // A set is read as it is (coverage at several depths passes one growing set); other lists are indexed once.
  const shown = shownTurnIds instanceof Set ? (shownTurnIds as ReadonlySet<string>) : new Set(shownTurnIds);
  let hit = 0;
  for (const g of goldTurnIds) if (shown.has(g)) hit++;
  return { all: hit === goldTurnIds.length, any: hit > 0 };
}

/** The label items carry in `details.coverage_rule` when coverage came from the answer (answer sufficiency), not from gold turns. */
export const ANSWER_RULE = 'answer-in-evidence';
