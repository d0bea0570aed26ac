/**
 * MemOS's replies read as rawrag needs them (the shared memory-service `read` check, http.ts): a
 * reply rawrag cannot read — an empty body or `null` (JsonService), another `message` than the
 * call's success message, or a missing field (an add's `data` list, a search's or a listing's
 * `data.text_mem` list) — is a broken reply, retried like a 5xx (issue 42 item 1; an add is first
 * looked for on the service). An empty list is a valid reply: nothing was extracted or found.
 * Shapes from MemTensor/MemOS@be68e2fb: product_models.py BaseResponse `{code, message, data}`;
 * add_handler.py / search_handler.py / memory_handler.py (the success messages the vendor's own
 * client checks, evaluation/scripts/utils/client.py L145-195).
 */
import { BadReplyError } from '../../providers/errors.js';

export interface Reply {
  code?: unknown;
  message?: unknown;
  data?: unknown;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const show = (x: unknown) => JSON.stringify(x)?.slice(0, 300);

/** A reply carrying `message` (the vendor's client checks each reply's message); else a broken reply, retried. */
export function withMessage(reply: unknown, what: string, message: string): Reply {
  if (!isObject(reply) || reply.message !== message)
    throw new BadReplyError(`${what} answered ${show(reply)} (expected message "${message}")`, true);
  return reply;
}

/** An add's reply: its `data` list of written memories (empty: nothing extracted). */
export function addReply(reply: unknown): unknown[] {
  const r = withMessage(reply, 'add', 'Memory added successfully');
  if (!Array.isArray(r.data)) throw new BadReplyError(`add answered no memory list: ${show(r)}`, true);
  return r.data;
}

/** A search's reply: `data.text_mem` (one group per cube searched; empty when nothing was found) and `data.pref_string`. */
export function searchReply(reply: unknown): { groups: unknown[]; prefString: string | null } {
  const r = withMessage(reply, 'search', 'Search completed successfully');
  if (!isObject(r.data) || !Array.isArray(r.data.text_mem))
    throw new BadReplyError(`search answered no data.text_mem list: ${show(r)}`, true);
  return { groups: r.data.text_mem, prefString: typeof r.data.pref_string === 'string' ? r.data.pref_string : null };
}

/** A listing page: `data` with its `text_mem` list (`pref_mem` only where preferences are on). */
export function listReply(reply: unknown): Record<string, unknown> {
  const r = withMessage(reply, 'get_memory', 'Memories retrieved successfully');
  if (!isObject(r.data) || !Array.isArray(r.data.text_mem))
    throw new BadReplyError(`get_memory answered no data.text_mem list: ${show(r)}`, true);
  return r.data;
}

/** A delete's reply: `data.status` (its absence is a broken reply; "failure" is the server's own answer, not retried). */
export function deleteStatus(reply: unknown): string {
  const status = isObject(reply) && isObject(reply.data) ? reply.data.status : undefined;
  if (typeof status !== 'string') throw new BadReplyError(`delete answered no data.status: ${show(reply)}`, true);
  return status;
}
