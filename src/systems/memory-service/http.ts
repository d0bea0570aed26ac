/**
 * Plain-fetch JSON requests to a memory service: a per-request timeout, the provider layer's
 * retry rules (429 / 5xx / timeouts / resets, backoff with jitter, Retry-After honoured), one
 * concurrency limit per service, and error messages with the key blanked.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import { BadReplyError, HttpStatusError, notJsonReply, parseJsonReply } from '../../providers/errors.js';
import { RetriesExhausted, withRetry, type RetryPolicy } from '../../providers/retry.js';
import type { Secrets } from '../../providers/secrets.js';
import { sleep } from '../../util/sleep.js';

export interface ServiceTransport {
  timeoutMs: number;
  retry: RetryPolicy;
  concurrency: number;
  secrets: Secrets;
  /** The OpenAI-compatible endpoint a library started for you was given (offline-env.ts), for adapters that name it in their requests. */
  endpoint?: string | null;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** A multipart/form-data body instead of JSON (a file upload); `body` is then unset. */
  form?: () => FormData;
  /**
   * Reads the reply, inside the attempt: a reply it cannot read (a missing field: it throws a
   * retryable BadReplyError) is retried like a 5xx, as is an empty body or `null` (issue 42).
   * Without it, an empty body is `null` (a DELETE's or an acknowledgement's, which carry nothing).
   */
  read?: (reply: unknown) => unknown;
}

type Kind = 'list' | 'string' | 'object';
const kindOf = (v: unknown): Kind | null =>
  Array.isArray(v) ? 'list' : typeof v === 'string' ? 'string' : v !== null && typeof v === 'object' ? 'object' : null;

/**
 * A `read` for RequestSpec: the reply must hold a value of `kind` at `path` (keys from the top);
 * without it the reply is broken and retried like a 5xx (issue 42). An empty list is a valid list.
 * Returns the reply itself, for the caller to read further.
 */
export function needs<T = unknown>(what: string, path: readonly string[], kind: Kind): (reply: unknown) => T {
  return (reply) => {
    let v: unknown = reply;
    for (const k of path) v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined;
    if (kindOf(v) !== kind)
      throw new BadReplyError(`${what} answered no ${path.join('.')} ${kind}: ${JSON.stringify(reply)?.slice(0, 200)}`, true);
    return reply as T;
  };
}

/** A request to the service that failed for good; the message names the call and never the key. */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

/** The HTTP status a failed service request carries (a ServiceError's or the provider layer's), if any. */
export function statusOf(e: unknown): number | undefined {
  return e instanceof HttpStatusError ? e.status : ((e as { status?: unknown } | null)?.status as number | undefined);
}

export class JsonService {
  private readonly limit: LimitFunction;
  /** Requests actually sent (attempts), per path: the run's summary reports them. */
  readonly sent = new Map<string, number>();
  retries = 0;

  constructor(
    readonly baseUrl: string,
    private readonly headers: Record<string, string>,
    readonly transport: ServiceTransport,
    /** How messages name the service, e.g. `mem0`. */
    readonly label: string,
  ) {
    this.limit = pLimit(Math.max(1, transport.concurrency));
  }

  /** One attempt, under the service's concurrency limit; a non-2xx reply is an HttpStatusError. */
  async once<T = unknown>(spec: RequestSpec): Promise<T> {
    return this.limit(async () => {
      const url = new URL(this.baseUrl.replace(/\/+$/, '') + spec.path);
      for (const [k, v] of Object.entries(spec.query ?? {})) url.searchParams.set(k, v);
      const key = `${spec.method} ${spec.path.replace(/\/[0-9a-f-]{16,}\/?/gi, '/{id}/')}`;
      this.sent.set(key, (this.sent.get(key) ?? 0) + 1);
      const res = await fetch(url, {
        method: spec.method,
        headers: {
          accept: 'application/json',
          ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...this.headers,
        },
        body: spec.form ? spec.form() : spec.body !== undefined ? JSON.stringify(spec.body) : undefined,
        signal: AbortSignal.timeout(this.transport.timeoutMs),
      });
      const text = await res.text();
      if (!res.ok) throw new HttpStatusError(res.status, res.headers, text);
      if (!spec.read) {
        if (text.trim() === '') return null as T;
        return parseJsonReply<T>(text, res.headers.get('content-type')); // truncated JSON: retried; an HTML page: at once
      }
      if (text.trim() === '') throw notJsonReply(text, res.headers.get('content-type'));
      const reply = parseJsonReply<unknown>(text, res.headers.get('content-type'));
      if (reply === null) throw new BadReplyError('a null reply (retried; if every retry gets one, is the base URL right?)', true);
      return spec.read(reply) as T;
    });
  }

  /** With retries (for calls that are safe to repeat: search, list, delete, polling). */
  async request<T = unknown>(spec: RequestSpec): Promise<T> {
    try {
      return await withRetry(() => this.once<T>(spec), this.transport.retry, { onRetry: () => void this.retries++ });
    } catch (e) {
      throw this.failure(spec, e);
    }
  }

  /** A failed request as a ServiceError: call, status, tries, cause; keys blanked. */
  failure(spec: RequestSpec, e: unknown): ServiceError {
    const ex = e instanceof RetriesExhausted ? e : new RetriesExhausted(e, 1, { retryable: false });
    const status = ex.info.status !== undefined ? ` (HTTP ${ex.info.status})` : '';
    const tries = ex.attempts > 1 ? ` after ${ex.attempts} tries` : '';
    const last = ex.last as Error & { cause?: { code?: string; message?: string } };
    const cause = last?.name === 'TimeoutError' ? `no reply within ${this.transport.timeoutMs} ms` : (last?.message ?? String(last));
    const detail = last?.cause?.code ? `${cause} (${last.cause.code})` : cause;
    return new ServiceError(
      this.transport.secrets.scrub(`${this.label} ${spec.method} ${this.baseUrl}${spec.path} failed${status}${tries}: ${detail}`),
      ex.info.status,
    );
  }
}

/** Raised when `pollUntil` gives up: the message says what was awaited, for how long, and the last state seen. */
export class PollTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PollTimeout';
  }
}

/**
 * Asks `check` until it returns a value (not undefined), waiting between tries with backoff
 * (`firstMs` doubling up to `maxMs`), for at most `timeoutMs`: the one place every readiness
 * wait, event poll and queued-delete check goes through. `check` may throw (it is not retried
 * here: its requests retry on their own). The error names `what` and the last state `check` reported.
 */
export async function pollUntil<T>(
  check: (report: (state: string) => void) => Promise<T | undefined>,
  o: { what: string; timeoutMs: number; firstMs?: number; maxMs?: number; signal?: AbortSignal },
): Promise<T> {
  const started = Date.now();
  let wait = Math.max(1, o.firstMs ?? 250);
  let state = 'no reply yet';
  for (;;) {
    const v = await check((s) => void (state = s));
    if (v !== undefined) return v;
    if (o.signal?.aborted) throw new PollTimeout(`${o.what}: stopped while waiting (${state})`);
    const left = o.timeoutMs - (Date.now() - started);
    if (left <= 0) throw new PollTimeout(`${o.what}: still ${state} after ${Math.round((Date.now() - started) / 1000)} s`);
    await sleep(Math.min(wait, left), o.signal);
    wait = Math.min(wait * 2, Math.max(1, o.maxMs ?? 5000));
  }
}
