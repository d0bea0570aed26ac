/**
 * A wait that an abort ends early (a Ctrl-C during a poll interval or a retry's backoff must not
 * hold the command for the rest of it). Resolves, never rejects: the caller checks its signal.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
