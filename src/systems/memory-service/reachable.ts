/**
 * Is a memory service there at all? One HTTP request, answered with anything (even a 404 or a
 * 401: something listens), within a few seconds; a refused connection, an unknown host or no
 * answer fails at once with the command that starts it. No retries: a service that is not running
 * does not start because rawrag asks again. Self-contained (no plug-in knowledge), so any
 * pre-flight can call it.
 */
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { InputError } from '../../util/errors.js';

/** An input problem (the URL given, or the service not started): exit 2 with the message, like a bad flag. */
export class ServiceUnreachable extends InputError {
  constructor(
    message: string,
    readonly url: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'ServiceUnreachable';
  }
}

export interface ReachableOptions {
  /** How the service is named in the message (e.g. `Mem0`). */
  label: string;
  /** How to start it, shown after "is it running? start it with:". */
  startHint: string;
  /** Give up after this long (default 5 s). */
  timeoutMs?: number;
}

/** The low-level reason of a failed fetch (ECONNREFUSED, ENOTFOUND, a timeout, ...). */
function reasonOf(e: unknown): string {
  const err = e as { name?: string; code?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return 'TIMEOUT';
  return err?.cause?.code ?? err?.code ?? err?.cause?.message ?? String(e);
}

/** One GET on a connection of its own (no pooled socket a restarted service has closed), its status or the error. */
function getOnce(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    const req = get(url, { agent: false, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
      res.resume();
      resolvePromise(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
}

/**
 * Resolves with the HTTP status of one request to `url`; throws ServiceUnreachable when nothing
 * answers. Nothing is remembered: the pre-flight hands the URLs that answered to the run it
 * precedes (TransportOptions.reachedServices), which then does not ask again.
 */
export async function checkReachable(url: string, o: ReachableOptions): Promise<number> {
  const timeoutMs = o.timeoutMs ?? 5000;
  try {
    return await getOnce(url, timeoutMs);
  } catch (e) {
    const code = reasonOf(e);
    const what = code === 'TIMEOUT' ? `no answer within ${(timeoutMs / 1000).toFixed(0)} s` : code;
    throw new ServiceUnreachable(`${o.label} at ${url} does not answer (${what}): is it running? start it with: ${o.startHint}`, url, code);
  }
}
