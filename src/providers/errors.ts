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
 * A 2xx reply that is not JSON at all: a login page, a proxy's error page, a wrong base URL.
 * Reported as what it is (content type and the page's title or first words), not as an empty reply.
 */
export function notJsonReply(body: string, contentType?: string | null): BadReplyError {
  const type = contentType ? ` (content-type ${contentType.split(';')[0]!.trim()})` : '';
  const html = /^\s*(<!doctype html|<html|<head|<body)/i.test(body) || /text\/html/i.test(contentType ?? '');
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

/**
 * Runs one request attempt; a failure that never reached HTTP (the SDKs' bare "Connection error.")
 * gets the host it tried appended, so the message says where the connection failed.
 */
export async function namingHost<T>(baseUrl: string, attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (e) {
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
