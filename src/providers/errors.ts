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
