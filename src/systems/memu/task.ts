/**
 * memU's memorize is a task to poll (hosted API and memU-server alike): the waits both APIs share.
 * The evaluators poll at a fixed interval (EverMemOS every 15 s, MemOS every 2 s), not with backoff;
 * rawrag bounds the wait (`readyTimeout`) where EverMemOS goes on after its timeout and MemOS never stops.
 */
import { BadReplyError } from '../../providers/errors.js';
import { pollUntil, PollTimeout } from '../memory-service/http.js';
import { AcceptedAddFailed, type AddOutcome } from '../memory-service/service.js';

export type TaskState = 'done' | 'failed' | 'waiting';

/** Polls `read` every `pollMs` until the task is done; a failed task is AcceptedAddFailed (the add is sent again). */
export async function awaitTask(
  read: () => Promise<{ state: TaskState; status: string; detail: string | null }>,
  o: { what: string; pollMs: number; timeoutMs: number; signal?: AbortSignal },
): Promise<AddOutcome> {
  try {
    return await pollUntil(
      async (report) => {
        const t = await read();
        if (t.state === 'done') return { events: null, unread: [{ status: t.status, ...(t.detail ? { detail: t.detail } : {}) }] };
        if (t.state === 'failed') throw new AcceptedAddFailed(`${o.what} ${t.status}: ${t.detail ?? 'no reason given'}`);
        report(t.status);
        return undefined;
      },
      { what: o.what, timeoutMs: o.timeoutMs, firstMs: o.pollMs, maxMs: o.pollMs, signal: o.signal },
    );
  } catch (e) {
    if (!(e instanceof PollTimeout)) throw e;
    throw new BadReplyError(
      `${e.message}: the memorize was accepted and is recorded with its task; the next run waits on it again rather than sending it twice (-S readyTimeout=SECONDS waits longer)`,
      false,
    );
  }
}

/**
 * The memories an add whose reply was lost has written, looked for until `waitMs` has passed (its
 * task may still be running): [] when none appeared, and the add is sent again.
 */
export async function lostAdd(find: () => Promise<string[]>, o: { what: string; waitMs: number; pollMs: number }): Promise<string[]> {
  try {
    return await pollUntil(
      async (report) => {
        const ids = await find();
        if (ids.length) return ids;
        report('no memory yet');
        return undefined;
      },
      { what: o.what, timeoutMs: o.waitMs, firstMs: o.pollMs, maxMs: o.pollMs },
    );
  } catch (e) {
    if (e instanceof PollTimeout) return [];
    throw e;
  }
}
