/**
 * One run's connection to model providers: registry, keys (kept in memory only), cache,
 * per-kind concurrency limits, the retry layer and usage metering. Retrievers and the reader and
 * judge stages get their clients from here.
 */
import { CREDENTIALS_IN_URL, hasUrlCredentials } from '../util/url-credentials.js';
import { ResponseCache, resolveCacheDir } from './cache.js';
import { ProviderError, isBadReply } from './errors.js';
import { loadRegistry, resolveModel, type ModelEntry, type ModelRegistry } from './models.js';
import { RetriesExhausted, withRetry } from './retry.js';
import { endpointId, ProvenanceLog } from './provenance.js';
import { Secrets, keyFrom } from './secrets.js';
import { defaultTransport, type TransportOptions } from './transport.js';
import { UsageMeter, type Role } from './usage.js';
import { ConcurrencyPool } from './limits.js';
import { CostCapReached, type RequestCost } from './budget.js';
import { ConfigurationError } from '../util/errors.js';

export interface Endpoint {
  baseUrl: string;
  /** The key, or a placeholder for keyless local servers. Never logged or stored. */
  apiKey: string;
}

export type Availability = { ok: true; endpoint: Endpoint } | { ok: false; reason: string };

/** Which override applies to which role. */
const OVERRIDE_FOR: Record<Role, keyof TransportOptions['baseUrls']> = {
  reader: 'reader',
  judge: 'judge',
  embed: 'embed',
  rerank: 'rerank',
  // The extractor travels with the reader's endpoint settings (--reader-base-url).
  extract: 'reader',
};
const KIND_OF: Record<Role, 'chat' | 'embed' | 'rerank'> = {
  reader: 'chat',
  judge: 'chat',
  embed: 'embed',
  rerank: 'rerank',
  extract: 'chat',
};

/** Key variables blanked from messages before the registry is read (the registry's own are added when it is). */
const KNOWN_KEY_VARIABLES = [
  'OPENAI_API_KEY',
  'COHERE_API_KEY',
  'CO_API_KEY',
  'DEEPSEEK_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'OPENROUTER_API_KEY',
  'TOGETHER_API_KEY',
];

export class ProviderSession {
  readonly transport: TransportOptions;
  readonly secrets = new Secrets();
  readonly usage = new UsageMeter();
  /** Endpoints, served models and fingerprints of the replies this run used. */
  readonly provenance = new ProvenanceLog();
  readonly cache: ResponseCache;
  private registryValue: ModelRegistry | null = null;
  private readonly pool: ConcurrencyPool;

  constructor(transport: Partial<TransportOptions> = {}) {
    const base = defaultTransport(transport.env ?? process.env);
    this.transport = {
      ...base,
      ...transport,
      retry: { ...base.retry, ...transport.retry },
      concurrency: { ...base.concurrency, ...transport.concurrency },
      baseUrls: { ...transport.baseUrls },
    };
    this.cache = new ResponseCache(this.transport.noCache ? null : resolveCacheDir(this.transport.cacheDir, this.transport.env));
    this.pool = this.transport.pool ?? new ConcurrencyPool(this.transport.concurrency);
    for (const name of KNOWN_KEY_VARIABLES) this.secrets.add(this.transport.env[name]);
  }

  get registry(): ModelRegistry {
    if (!this.registryValue) {
      this.registryValue = loadRegistry(
        this.transport.registryFile,
        this.transport.modelsFile ?? (this.transport.env.RAWRAG_MODELS || null),
      );
      // Every key the environment holds for a registry model is blanked from messages, used or not.
      for (const m of [...Object.values(this.registryValue.models), ...Object.values(this.registryValue.providers)])
        if (m.keyEnv) this.secrets.add(this.transport.env[m.keyEnv]);
    }
    return this.registryValue;
  }

  model(name: string, role: Role): ModelEntry {
    return resolveModel(this.registry, name, KIND_OF[role]);
  }

  /**
   * Where `model` is served for `role`, and with which key. A public endpoint needs its key; an
   * endpoint the user pointed at (flag or environment) may be a keyless local server.
   */
  availability(model: ModelEntry, role: Role): Availability {
    const env = this.transport.env;
    const override = this.transport.baseUrls[OVERRIDE_FOR[role]] ?? (model.baseUrlEnv ? env[model.baseUrlEnv] : undefined);
    const baseUrl = override || model.baseUrl;
    if (baseUrl && hasUrlCredentials(baseUrl)) {
      // An environment variable or a models file is checked here, where the URL is used; a flag already at parse time.
      const from = this.transport.baseUrls[OVERRIDE_FOR[role]]
        ? `--${role}-base-url`
        : override
          ? model.baseUrlEnv!
          : `the models file's base_url of '${model.name}'`;
      throw new ConfigurationError(`${from}: ${CREDENTIALS_IN_URL}`);
    }
    if (!baseUrl) {
      const how = [`--${role}-base-url`, model.baseUrlEnv].filter(Boolean).join(' or ');
      return { ok: false, reason: `no endpoint for ${role} model '${model.name}' (set ${how})` };
    }
    const key = model.keyEnv ? keyFrom(env, model.keyEnv) : undefined;
    // `keyEnv: null` in the registry: a keyless server (a local Ollama or vLLM the user listed).
    if (!key && !override && model.keyEnv)
      return {
        ok: false,
        reason: `${role} model '${model.name}' needs ${model.keyEnv ?? 'an API key'} (or a local endpoint via --${role}-base-url)`,
      };
    return { ok: true, endpoint: { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: this.secrets.add(key) ?? 'EMPTY' } };
  }

  /**
   * What of an endpoint enters a cache key: its identity under --cache-scope endpoint (the
   * default), nothing under --cache-scope model (replies shared across endpoints; the run then
   * reports which endpoint cached replies came from).
   */
  cacheScopeKey(endpoint: Endpoint): Record<string, string> {
    return this.transport.cacheScope === 'model' ? {} : { endpoint: endpointId(endpoint.baseUrl) };
  }

  /**
   * Sends one request through the retry layer under the concurrency limit of its kind at its
   * endpoint (shared with the other sessions of a grid). Slots are held per attempt only, so a
   * request waiting out a backoff does not block others. Under `--max-cost`, a request whose
   * `cost` estimate could cross the cap is not sent (CostCapReached).
   */
  async send<T>(
    role: Role,
    model: string,
    attempt: (timeoutMs: number) => Promise<T>,
    opts: { endpoint?: string; cost?: RequestCost<T> } = {},
  ): Promise<T> {
    const limit = this.pool.limit(KIND_OF[role], opts.endpoint);
    const go = () =>
      withRetry(() => limit(() => attempt(this.transport.timeoutMs)), this.transport.retry, {
        onRetry: () => this.usage.retried(role),
      });
    const cap = this.transport.costCap;
    try {
      return await (cap ? cap.run(`${role} request to ${model}`, opts.cost, go) : go());
    } catch (e) {
      if (e instanceof CostCapReached) throw e;
      // A setting that cannot work is the user's to fix, not a failed request: its own message, once.
      const last = e instanceof RetriesExhausted ? e.last : e;
      if (last instanceof ConfigurationError) throw new ConfigurationError(this.secrets.scrub(last.message));
      const ex = e instanceof RetriesExhausted ? e : new RetriesExhausted(e, 1, { retryable: false });
      const status = ex.info.status !== undefined ? ` (HTTP ${ex.info.status})` : '';
      const tries = ex.attempts > 1 ? ` after ${ex.attempts} tries` : '';
      // A reply the client cannot read names the endpoint it came from (and the flag that sets it).
      const bad = opts.endpoint !== undefined && isBadReply(ex.last);
      const where = bad ? ` at ${endpointId(opts.endpoint!)} (--${OVERRIDE_FOR[role]}-base-url)` : '';
      const msg = `${role} request to ${model}${where} failed${status}${tries}: ${describe(ex.last)}`;
      throw new ProviderError(this.secrets.scrub(msg), {
        role,
        model,
        status: ex.info.status,
        attempts: ex.attempts,
        retryable: ex.info.retryable,
      });
    }
  }

  /**
   * `send` for requests to one endpoint (their concurrency limit) with what each may cost (for
   * --max-cost): `session.to({ endpoint, cost }).send(role, model, attempt)`.
   */
  to<C>(opts: { endpoint?: string; cost?: RequestCost<C> }): {
    send<T extends C>(role: Role, model: string, attempt: (timeoutMs: number) => Promise<T>): Promise<T>;
  } {
    // A reply of type T (a C) is priced as a C: the cost fits every T the caller sends.
    return {
      send: <T extends C>(role: Role, model: string, attempt: (timeoutMs: number) => Promise<T>) =>
        this.send(role, model, attempt, opts as { endpoint?: string; cost?: RequestCost<T> }),
    };
  }

  /** Cache and usage figures for summary.json. */
  report(): Record<string, unknown> {
    return {
      cache: { enabled: this.cache.enabled, dir: this.cache.dir, by_role: this.cache.counts },
      usage: { ...this.usage.report(), all: this.usage.total() },
      provenance: this.provenance.report(this.transport.cacheScope),
    };
  }

  close(): void {
    this.cache.close();
  }
}

function describe(e: unknown): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string } };
  const name = err?.name && err.name !== 'Error' ? `${err.name}: ` : '';
  const code = err?.cause?.code ? ` [${err.cause.code}]` : '';
  return `${name}${(err?.message ?? String(e)).replace(/\s+/g, ' ').slice(0, 500)}${code}`;
}
