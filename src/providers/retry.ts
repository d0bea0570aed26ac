/**
 * The one retry layer (SDK-internal retries are off): exponential backoff with jitter, honouring
 * `retry-after-ms` / `Retry-After`, for 408/409/429/5xx, timeouts, resets and truncated replies;
 * a bounded number of tries. Everything else (400, 401, 404, ...) fails at once.
 */
import { BadReplyError, HttpStatusError } from './errors.js';

export interface RetryPolicy {
  /** Retries after the first try (0 = one try only). */
  maxRetries: number;
  /** First backoff step in ms (doubles each retry, capped at `maxDelayMs`). */
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * 8 retries: a provider failing 20 % of tries at random (429s, 5xx, truncated replies) fails a
 * request for good with probability 0.2^9 ≈ 5e-7, so a whole LoCoMo run (~8,000 requests) ends
 * without a failed item (with 5 retries, ~0.5 failed requests a run). A request that keeps failing
 * gives up after about 3 minutes of backoff.
 */
export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 8, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** What a failure says about retrying: whether to, the HTTP status, and the server's wait hint. */
export interface FailureInfo {
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
}

const RETRY_STATUSES = new Set([408, 409, 429]);
const RESET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'EAI_AGAIN',
]);

/**
 * Reads SDK errors by shape, not by class, so the SDKs load only when a provider is used:
 * openai APIError (`status`, `headers`), APIConnectionError / APIConnectionTimeoutError,
 * cohere-ai CohereError (`statusCode`, `rawResponse.headers`) and CohereTimeoutError.
 */
export function classifyFailure(e: unknown): FailureInfo {
  if (e instanceof HttpStatusError) return fromStatus(e.status, e.headers);
  if (e instanceof BadReplyError) return { retryable: e.retryable };
  if (e instanceof SyntaxError) return { retryable: true }; // a truncated or garbled JSON body
  const err = (e ?? {}) as {
    name?: string;
    code?: string;
    status?: unknown;
    statusCode?: unknown;
    headers?: Headers | Record<string, string>;
    rawResponse?: { headers?: Headers };
    cause?: { code?: string; name?: string };
    constructor?: { name?: string };
  };
  const cls = err.constructor?.name ?? '';
  if (typeof err.status === 'number' && (cls.endsWith('Error') || 'headers' in err)) return fromStatus(err.status, err.headers);
  if (typeof err.statusCode === 'number') return fromStatus(err.statusCode, err.rawResponse?.headers);
  // Requests that never got an HTTP reply: connection errors, timeouts, resets.
  if (['APIConnectionError', 'APIConnectionTimeoutError', 'CohereTimeoutError', 'CohereError'].includes(cls)) return { retryable: true };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return { retryable: true };
  if (err.code && RESET_CODES.has(err.code)) return { retryable: true };
  if (err.cause?.code && RESET_CODES.has(err.cause.code)) return { retryable: true };
  if (err.name === 'TypeError' && /fetch failed|terminated|socket/i.test(String((e as Error).message))) return { retryable: true };
  return { retryable: false };
}

function fromStatus(status: number, headers: Headers | Record<string, string> | undefined | null): FailureInfo {
  return { retryable: RETRY_STATUSES.has(status) || status >= 500, status, retryAfterMs: retryAfterMs(headers) };
}

/** The server's requested wait, from `retry-after-ms` or `Retry-After` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | Record<string, string> | undefined | null, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const get = (name: string): string | null =>
    typeof (headers as Headers).get === 'function'
      ? (headers as Headers).get(name)
      : ((headers as Record<string, string>)[name] ?? (headers as Record<string, string>)[name.toLowerCase()] ?? null);
  const ms = get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = get('retry-after');
  if (ra === null || ra.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(ra.trim())) return Math.max(0, Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Backoff before retry number `attempt` (0-based): the server's hint if any, else exponential with jitter. */
export function backoffMs(attempt: number, policy: RetryPolicy, hintMs?: number, rand: () => number = Math.random): number {
  if (hintMs !== undefined) return Math.min(hintMs, policy.maxDelayMs);
  const exp = Math.min(policy.baseDelayMs * 2 ** attempt, policy.maxDelayMs);
  // Jitter spreads retries of many concurrent requests so they do not hit the server together.
  return Math.round(exp * (1 - rand() * 0.25));
}

export interface RetryEvents {
  onRetry?(attempt: number, delayMs: number, info: FailureInfo, e: unknown): void;
}

export class RetriesExhausted extends Error {
  constructor(
    readonly last: unknown,
    readonly attempts: number,
    readonly info: FailureInfo,
  ) {
    super((last as Error)?.message ?? String(last));
    this.name = 'RetriesExhausted';
  }
}

/** Runs `attempt` until it succeeds, fails for good, or the tries run out (then RetriesExhausted). */
export async function withRetry<T>(attempt: () => Promise<T>, policy: RetryPolicy, events: RetryEvents = {}): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      const info = classifyFailure(e);
      if (!info.retryable || i >= policy.maxRetries) throw new RetriesExhausted(e, i + 1, info);
      const delay = backoffMs(i, policy, info.retryAfterMs);
      events.onRetry?.(i + 1, delay, info, e);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
