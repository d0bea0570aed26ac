/**
 * Where each reply came from: the endpoint that served it, the model the server says it ran
 * (`response.model`, which may differ from the name asked for), its `system_fingerprint`, and
 * whether it was read from the response cache — and then from which endpoint it was cached.
 * The per-run set goes into summary.json (`provenance`), so a run served from another endpoint's
 * cached replies says so.
 */
import type { Role } from './usage.js';

/** How the cache is shared: per endpoint (default) or per model name across endpoints. */
export type CacheScope = 'endpoint' | 'model';
export const CACHE_SCOPES: CacheScope[] = ['endpoint', 'model'];

/** What a fresh reply carries (stored with it in the cache). */
export interface Origin {
  /** host[:port]/path of the base URL: no scheme, no credentials, no query. */
  endpoint: string;
  served_model: string | null;
  system_fingerprint: string | null;
}

/** One reply as used by this run. */
export interface Provenance extends Origin {
  cached: boolean;
  /** For a cached reply: the endpoint it was cached from (null when the entry predates provenance). */
  cached_from: string | null;
}

/** The identity of an endpoint: host (with port) and path of its base URL. */
export function endpointId(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return baseUrl.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '');
  }
}

/**
 * The provenance of a reply: fresh replies carry their own origin; cached ones keep the origin
 * they were stored with, seen from the endpoint this run asked.
 */
export function provenanceOf(stored: Partial<Origin> | undefined, endpoint: string, cached: boolean): Provenance {
  const origin = stored?.endpoint ? stored : undefined;
  return {
    endpoint,
    served_model: stored?.served_model ?? null,
    system_fingerprint: stored?.system_fingerprint ?? null,
    cached,
    cached_from: cached ? (origin?.endpoint ?? null) : null,
  };
}

interface RoleProvenance {
  endpoints: Set<string>;
  served_models: Set<string>;
  system_fingerprints: Set<string>;
  fresh: number;
  cached: number;
  /** Cached replies by the endpoint they were cached from ("unknown" for entries without one). */
  cached_from: Map<string, number>;
}

/** The run's set of endpoints, served models and fingerprints per role. */
export class ProvenanceLog {
  private readonly roles = new Map<Role, RoleProvenance>();

  record(role: Role, p: Provenance): void {
    let r = this.roles.get(role);
    if (!r)
      this.roles.set(
        role,
        (r = {
          endpoints: new Set(),
          served_models: new Set(),
          system_fingerprints: new Set(),
          fresh: 0,
          cached: 0,
          cached_from: new Map(),
        }),
      );
    r.endpoints.add(p.endpoint);
    if (p.served_model) r.served_models.add(p.served_model);
    if (p.system_fingerprint) r.system_fingerprints.add(p.system_fingerprint);
    if (p.cached) {
      r.cached++;
      const from = p.cached_from ?? 'unknown';
      r.cached_from.set(from, (r.cached_from.get(from) ?? 0) + 1);
    } else r.fresh++;
  }

  /** Cached replies that came from an endpoint other than the one asked: role, endpoint asked, source, count. */
  foreign(): Array<{ role: Role; endpoint: string; from: string; count: number }> {
    const out: Array<{ role: Role; endpoint: string; from: string; count: number }> = [];
    for (const [role, r] of this.roles) {
      for (const [from, count] of r.cached_from)
        if (from !== 'unknown' && !r.endpoints.has(from)) out.push({ role, endpoint: [...r.endpoints].join(', '), from, count });
    }
    return out;
  }

  report(scope: CacheScope): Record<string, unknown> {
    const sorted = (s: Iterable<string>) => [...s].sort();
    const by_role: Record<string, unknown> = {};
    for (const [role, r] of this.roles) {
      by_role[role] = {
        endpoints: sorted(r.endpoints),
        served_models: sorted(r.served_models),
        system_fingerprints: sorted(r.system_fingerprints),
        replies_fresh: r.fresh,
        replies_cached: r.cached,
        cached_from: Object.fromEntries([...r.cached_from].sort(([a], [b]) => a.localeCompare(b))),
      };
    }
    const warnings = this.foreign().map(
      (f) => `${f.count} cached ${f.role} replies came from ${f.from}, not from ${f.endpoint} (--cache-scope model)`,
    );
    return { cache_scope: scope, by_role, warnings };
  }
}
