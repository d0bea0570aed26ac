/**
 * `--dry-run --batch`: the estimate at batch prices beside the interactive one. Reader and judge
 * requests go through the Batch API; embeddings and reranking stay interactive (rerank has no
 * batch API), so their cost is the same in both columns.
 */
import { addCost, costOf, type Role } from '../usage.js';
import type { ModelEntry } from '../models.js';

export interface EstimatedRole {
  role: Role;
  model: string;
  input_tokens: number;
  output_tokens: number;
  search_units: number;
  cost_usd: number | null;
}

export const BATCHED_ROLES: ReadonlySet<Role> = new Set(['reader', 'judge']);

/** Each role's cost if run with --batch (null: unknown; a model without batch prices has no batch API). */
export function batchCosts(
  roles: readonly EstimatedRole[],
  model: (name: string, role: Role) => ModelEntry,
): { perRole: Array<number | null>; total: number | null; notes: string[] } {
  const notes: string[] = [];
  const perRole = roles.map((r) => {
    if (!BATCHED_ROLES.has(r.role)) return r.cost_usd;
    const entry = model(r.model, r.role);
    if (!entry.batchPrices) {
      notes.push(`${r.role} model '${r.model}' has no batch prices in the registry (no batch API): --batch cannot batch it`);
      return null;
    }
    return costOf({ prompt_tokens: r.input_tokens, completion_tokens: r.output_tokens, search_units: r.search_units }, entry.batchPrices);
  });
  const total = perRole.reduce<number | null>((s, c) => addCost(s, c), 0);
  return { perRole, total, notes };
}
