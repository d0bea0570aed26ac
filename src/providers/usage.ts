/**
 * Token usage and cost per role (embed, rerank, reader, judge). `spent` counts only requests
 * really sent in this run; `total` also counts replies served from the cache (what the run
 * would cost from scratch).
 */
import type { Prices } from '../providers/models.js';

export type Role = 'embed' | 'rerank' | 'reader' | 'judge';
export const ROLES: Role[] = ['embed', 'rerank', 'reader', 'judge'];

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Cohere rerank billing unit (1 query over up to 100 documents). */
  search_units: number;
}

export function costOf(u: Usage, prices: Prices | undefined): number | null {
  if (!prices) return null;
  const parts: number[] = [];
  if (u.prompt_tokens > 0) {
    if (prices.input === undefined) return null;
    parts.push((u.prompt_tokens / 1e6) * prices.input);
  }
  if (u.completion_tokens > 0) {
    if (prices.output === undefined) return null;
    parts.push((u.completion_tokens / 1e6) * prices.output);
  }
  if (u.search_units > 0) {
    if (prices.perThousandSearches === undefined) return null;
    parts.push((u.search_units / 1000) * prices.perThousandSearches);
  }
  return parts.reduce((a, b) => a + b, 0);
}

export interface RoleTotals {
  /** Models used in this role. */
  models: string[];
  /** Requests sent (retries not counted) and replies served from the cache. */
  requests: number;
  cache_hits: number;
  retries: number;
  prompt_tokens: number;
  completion_tokens: number;
  search_units: number;
  /** USD for the requests sent in this run; null when a model's price is unknown. */
  cost_usd_spent: number | null;
  /** USD as if nothing had been cached. */
  cost_usd_total: number | null;
}

function emptyTotals(): RoleTotals {
  return {
    models: [],
    requests: 0,
    cache_hits: 0,
    retries: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    search_units: 0,
    cost_usd_spent: 0,
    cost_usd_total: 0,
  };
}

/** Adds two costs; unknown (null) wins, so a total is never understated by a missing price. */
export function addCost(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

export class UsageMeter {
  private readonly roles = new Map<Role, RoleTotals>();

  private totals(role: Role): RoleTotals {
    let t = this.roles.get(role);
    if (!t) this.roles.set(role, (t = emptyTotals()));
    return t;
  }

  /** Records one logical call (a batch, a rerank, a chat completion). */
  record(role: Role, model: string, usage: Usage, cached: boolean, prices: Prices | undefined): void {
    const t = this.totals(role);
    if (!t.models.includes(model)) t.models.push(model);
    if (cached) t.cache_hits++;
    else t.requests++;
    t.prompt_tokens += usage.prompt_tokens;
    t.completion_tokens += usage.completion_tokens;
    t.search_units += usage.search_units;
    const cost = costOf(usage, prices);
    t.cost_usd_total = addCost(t.cost_usd_total, cost);
    if (!cached) t.cost_usd_spent = addCost(t.cost_usd_spent, cost);
  }

  retried(role: Role): void {
    this.totals(role).retries++;
  }

  report(): Record<string, RoleTotals> & { all?: never } {
    const out: Record<string, RoleTotals> = {};
    for (const r of ROLES) if (this.roles.has(r)) out[r] = { ...this.roles.get(r)! };
    return out;
  }

  /** Sum over roles. */
  total(): { requests: number; cache_hits: number; cost_usd_spent: number | null; cost_usd_total: number | null } {
    let requests = 0;
    let hits = 0;
    let spent: number | null = 0;
    let total: number | null = 0;
    for (const t of this.roles.values()) {
      requests += t.requests;
      hits += t.cache_hits;
      spent = addCost(spent, t.cost_usd_spent);
      total = addCost(total, t.cost_usd_total);
    }
    return { requests, cache_hits: hits, cost_usd_spent: spent, cost_usd_total: total };
  }
}
