/**
 * How requests travel, as opposed to what they ask: endpoints, timeouts, retries, concurrency,
 * cache location. None of it is part of the run's config hash or of a cache key.
 */
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import type { DeferSink } from './batch/defer.js';
import type { CacheScope } from './provenance.js';
import type { ConcurrencyPool } from './limits.js';
import type { CostCap } from './budget.js';

export interface TransportOptions {
  /** --cache-dir (null: RAWRAG_CACHE_DIR, then $XDG_CACHE_HOME/rawrag, then ~/.cache/rawrag). */
  cacheDir: string | null;
  /** --no-cache: send every request, store nothing. */
  noCache: boolean;
  /** --cache-scope: replies are shared per endpoint (default) or per model name across endpoints. */
  cacheScope: CacheScope;
  /** Per-request timeout (--timeout, seconds on the command line). */
  timeoutMs: number;
  retry: RetryPolicy;
  /** Requests in flight at once, per provider kind. */
  concurrency: { chat: number; embed: number; rerank: number };
  /** Endpoint overrides (OpenAI-compatible base URLs end in /v1; Cohere's do not). */
  baseUrls: { reader?: string; judge?: string; embed?: string; rerank?: string };
  /** Model registry file (default configs/models.yaml). */
  registryFile?: string;
  /** The user's models merged over the registry (--models FILE, else RAWRAG_MODELS). */
  modelsFile?: string | null;
  /** Where keys and endpoints are read from. */
  env: NodeJS.ProcessEnv;
  /** Batch mode: chat requests that miss the cache are recorded here instead of sent (see batch/defer.ts). */
  defer?: DeferSink;
  /** Limits shared by every session of the process (a grid's cells); absent = a session makes its own. */
  pool?: ConcurrencyPool;
  /** `--max-cost`: requests that could cross the cap are held back (budget.ts). */
  costCap?: CostCap;
  /**
   * `--fallback local`: a remote retriever without its keys or endpoints runs the local retriever
   * instead (and says so). Without it, a missing key is an error before anything is sent.
   */
  fallback?: 'local' | null;
  /**
   * `--max-failures`: the run stops once this many items in a row failed with the same error
   * (`percent`: that share of the selected questions). Run policy that travels with the requests'
   * settings; like them, not part of the config hash.
   */
  maxFailures?: { count: number } | { percent: number } | null;
  /**
   * Memory-service URLs the pre-flight's probe found answering, handed to the run that follows it
   * (src/cli/preflight.ts): the run does not probe them again.
   */
  reachedServices?: readonly string[];
}

export function defaultTransport(env: NodeJS.ProcessEnv = process.env): TransportOptions {
  // RAWRAG_RETRY_BASE_MS shortens the backoff (tests, fast local servers); the CLI has no flag for it.
  const base = Number(env.RAWRAG_RETRY_BASE_MS);
  return {
    cacheDir: null,
    noCache: false,
    cacheScope: 'endpoint',
    timeoutMs: 120_000,
    retry: { ...DEFAULT_RETRY, ...(Number.isFinite(base) && base >= 0 && env.RAWRAG_RETRY_BASE_MS ? { baseDelayMs: base } : {}) },
    concurrency: { chat: 8, embed: 4, rerank: 4 },
    baseUrls: {},
    env,
  };
}
