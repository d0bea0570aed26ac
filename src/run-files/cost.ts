/**
 * What a run directory cost, by ONE definition used everywhere (terminal, `rawrag view`, the
 * report, `--max-cost`, `paper --run`):
 *
 * - **paid**: what the providers billed, over every process that wrote the directory: requests
 *   really sent (cache hits cost nothing), every role — the system's ingest LLM work (extraction),
 *   embedding and reranking, the reader, the judge — and the requests of items later redone by
 *   `--retry-errors`. It is the manifest's `spent_usd`, which the run keeps current while it runs
 *   (src/pipeline/lifecycle.ts) and `--max-cost` caps.
 * - **list-price equivalent**: what the run would cost from scratch at list prices: every reply
 *   priced, cached or not — reader and judge summed over the directory's items (across resumes),
 *   embedding and reranking from summary.json `usage` (the last process), the system's ingest
 *   extraction from summary.json (`usage.extract`, else `memory.ingest`).
 *
 * A cost is null when a model's price is unknown (never understated by a missing price).
 */
import { readRun } from './record.js';
import { addCost } from '../providers/usage.js';

/** Per role: tokens, dollars at list price, requests sent and cache hits. */
export interface RoleUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** List-price equivalent (cached replies priced as if sent). */
  cost_usd: number | null;
  requests: number;
  cache_hits: number;
  /** Cohere rerank billing units, when the role has them. */
  search_units?: number;
}

export interface RunCost {
  /** USD billed, all processes, all roles (manifest `spent_usd`); null when a price is unknown or nothing recorded it. */
  paid_usd: number | null;
  /** USD as if nothing had been cached, all roles. */
  list_usd: number | null;
  /** The list-price equivalent per role. */
  by_role: Record<string, RoleUsage>;
}

export const PAID_MEANING = 'paid: what was billed, every process of the run directory (cache hits cost nothing)';
export const LIST_MEANING = 'list-price equivalent: every reply priced, cached or not';

type Item = Record<string, unknown>;

/** One item's usage per role as its stages recorded it (item.details.usage). */
export function itemUsage(item: Item): Record<string, Partial<RoleUsage>> {
  return ((item.details as { usage?: Record<string, Partial<RoleUsage>> } | undefined)?.usage ?? {}) as Record<string, Partial<RoleUsage>>;
}

/** The list-price equivalent per role from a run's items and its summary.json (see the header). */
export function listPriceByRole(items: readonly Item[], summary: Record<string, unknown> | null): Record<string, RoleUsage> {
  const total: Record<string, RoleUsage> = {};
  for (const item of items) {
    for (const [role, u] of Object.entries(itemUsage(item))) {
      const t = (total[role] ??= { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, requests: 0, cache_hits: 0 });
      t.prompt_tokens += u.prompt_tokens ?? 0;
      t.completion_tokens += u.completion_tokens ?? 0;
      t.cost_usd = addCost(t.cost_usd, u.cost_usd ?? null);
      t.requests += u.requests ?? 0;
      t.cache_hits += u.cache_hits ?? 0;
    }
  }
  const perRun = (summary?.usage ?? {}) as Record<
    string,
    {
      requests?: number;
      cache_hits?: number;
      prompt_tokens?: number;
      completion_tokens?: number;
      search_units?: number;
      cost_usd_total?: number | null;
    }
  >;
  // Roles not recorded per item (embed, rerank, extract) come from the run's session report.
  for (const [role, u] of Object.entries(perRun)) {
    if (role === 'all' || total[role] || !u || typeof u !== 'object') continue;
    total[role] = {
      prompt_tokens: u.prompt_tokens ?? 0,
      completion_tokens: u.completion_tokens ?? 0,
      cost_usd: u.cost_usd_total ?? null,
      requests: u.requests ?? 0,
      cache_hits: u.cache_hits ?? 0,
      ...(u.search_units ? { search_units: u.search_units } : {}),
    };
  }
  const ingest = (summary?.memory as { ingest?: Record<string, number | null> } | undefined)?.ingest;
  if (ingest && !total.extract) {
    total.extract = {
      prompt_tokens: ingest.prompt_tokens ?? 0,
      completion_tokens: ingest.completion_tokens ?? 0,
      cost_usd: ingest.cost_usd ?? null,
      requests: ingest.extraction_calls ?? 0,
      cache_hits: 0,
    };
  }
  return total;
}

/** Sum over roles (null when any role's price is unknown). */
export function sumRoles(usage: Record<string, RoleUsage>): number | null {
  let sum: number | null = 0;
  for (const u of Object.values(usage)) sum = addCost(sum, u.cost_usd);
  return sum;
}

/** Paid, from the manifest: `spent_usd` (null: unknown price); a manifest without it (an import, an old run) paid nothing rawrag saw. */
export function paidOf(manifest: Record<string, unknown> | null): number | null {
  const v = manifest?.spent_usd;
  if (v === null) return null;
  return typeof v === 'number' ? v : 0;
}

/** Both figures from what a run's files hold (already read). */
export function costOf(run: {
  manifest: Record<string, unknown> | null;
  summary: Record<string, unknown> | null;
  items: readonly Item[];
}): RunCost {
  const by_role = listPriceByRole(run.items, run.summary);
  return { paid_usd: paidOf(run.manifest), list_usd: sumRoles(by_role), by_role };
}

/** Both figures of a run directory, read from its manifest, summary and items (a torn last line skipped). */
export function runCost(dir: string): RunCost {
  // Through the run record (src/run-files/record.ts): validated, an older version upgraded.
  const run = readRun(dir);
  return costOf({
    manifest: run.manifest as Record<string, unknown>,
    summary: run.summary as Record<string, unknown> | null,
    items: run.items as unknown as Item[],
  });
}

export const usd = (x: number | null | undefined): string =>
  x === null || x === undefined ? 'unknown (a price is missing)' : `$${x.toFixed(4)}`;

/** The one line every place prints: "paid $X; list-price equivalent $Y". */
export function costLine(c: Pick<RunCost, 'paid_usd' | 'list_usd'>): string {
  return `paid ${usd(c.paid_usd)}; list-price equivalent ${usd(c.list_usd)}`;
}
