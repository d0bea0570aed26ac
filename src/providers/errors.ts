/** Errors of the provider layer, already scrubbed of keys and named by role and model. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly info: { role: string; model: string; status?: number; attempts: number; retryable: boolean },
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** A non-2xx reply from a plain-fetch endpoint (vLLM rerank). */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    body: string,
  ) {
    super(`HTTP ${status}: ${body.slice(0, 300)}`);
    this.name = 'HttpStatusError';
  }
}

/** A 2xx reply that is not what the protocol promises (no choices, empty text, wrong shape). */
export class BadReplyError extends Error {
  constructor(
    message: string,
    /** Empty replies and truncated JSON are worth another try; a wrong shape usually is not. */
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'BadReplyError';
  }
}

/**
 * The one rule for a 2xx body that is not the JSON the protocol promises, for every client
 * (chat, embeddings, rerank, batch files, memory services). A body that starts as JSON but does not
 * parse — cut off mid-reply, garbled — or an empty one is a transient fault, retried like a 5xx
 * within the retry budget. Anything else — an HTML page (a login or proxy page, a wrong base URL)
 * or other text — fails at once, saying what it is (content type, the page's title or first words).
 */
export function notJsonReply(body: string, contentType?: string | null): BadReplyError {
  const type = contentType ? ` (content-type ${contentType.split(';')[0]!.trim()})` : '';
  const html = /^\s*(<!doctype html|<html|<head|<body)/i.test(body) || /text\/html/i.test(contentType ?? '');
  const declaredJson = /json/i.test(contentType ?? '');
  if (!html && (declaredJson || body.trim() === '' || /^\s*[[{"]/.test(body))) {
    const end = body.trim().replace(/\s+/g, ' ').slice(-40);
    const what =
      body.trim() === '' ? `an empty reply body${type}` : `malformed JSON${type}, ${Buffer.byteLength(body)} bytes ending "${end}"`;
    return new BadReplyError(`${what} (truncated or garbled; if every retry gets one, is the base URL right?)`, true);
  }
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.trim();
  const gist = title
    ? `titled "${title.slice(0, 80)}"`
    : body.trim()
      ? `starting "${body.trim().replace(/\s+/g, ' ').slice(0, 80)}"`
      : 'with an empty body';
  return new BadReplyError(
    `expected a JSON reply but got ${html ? 'an HTML page' : 'non-JSON text'}${type} ${gist} (is the base URL right?)`,
    false,
  );
}

/** A JSON parse error of a 2xx body (an SDK's), as `notJsonReply` names a malformed body: retried. */
export function malformedJson(e: SyntaxError): BadReplyError {
  return new BadReplyError(`malformed JSON (${e.message}) (truncated or garbled; if every retry gets one, is the base URL right?)`, true);
}

/** A 2xx body parsed as JSON, or the error `notJsonReply`'s rule gives (plain-fetch clients). */
export function parseJsonReply<T>(body: string, contentType?: string | null): T {
  try {
    return JSON.parse(body) as T;
  } catch {
    throw notJsonReply(body, contentType);
  }
}

/** A failure that is about the reply's body (malformed, not JSON, wrong shape), not the transport: the endpoint is worth naming. */
export function isBadReply(e: unknown): boolean {
  return e instanceof BadReplyError || e instanceof SyntaxError;
}

/**
 * Runs one request attempt; a failure that never reached HTTP (the SDKs' bare "Connection error.")
 * gets the host it tried appended, so the message says where the connection failed.
 */
export async function namingHost<T>(baseUrl: string, attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (e) {
    // An SDK that parsed a JSON content type and choked: the same malformed reply as any other.
    if (e instanceof SyntaxError) throw malformedJson(e);
    const err = e as { status?: unknown; statusCode?: unknown; message?: unknown };
    if (
      e instanceof Error &&
      !(e instanceof BadReplyError) &&
      !(e instanceof HttpStatusError) &&
      typeof err.status !== 'number' &&
      typeof err.statusCode !== 'number'
    ) {
      let host = baseUrl;
      try {
        host = new URL(baseUrl).host;
      } catch {
        // keep the base URL as given
      }
      if (!e.message.includes(host)) {
        try {
          e.message = `${e.message.replace(/\.?\s*$/, '')} (host ${host})`;
        } catch {
          // a frozen error keeps its message
        }
      }
    }
    throw e;
  }
}
