/**
 * The words and waits of batch jobs: the poll interval, the status line of a batch, the
 * description of a part, and a sleep that a stop signal ends early.
 */
import type { PartRecord } from './state.js';

/** Poll interval: RAWRAG_BATCH_POLL_MS (tests, local servers) or 10 s, doubling up to 5 min. */
export function pollInterval(env: NodeJS.ProcessEnv): { initial: number; max: number } {
  const ms = Number(env.RAWRAG_BATCH_POLL_MS);
  const initial = env.RAWRAG_BATCH_POLL_MS && Number.isFinite(ms) && ms >= 0 ? ms : 10_000;
  return { initial, max: Math.min(300_000, Math.max(initial, initial * 32)) };
}

export function describePart(rec: PartRecord): string {
  const roles = Object.entries(rec.roles)
    .map(([r, n]) => `${n} ${r}`)
    .join(', ');
  return `part ${rec.part}, ${rec.requests} requests (${roles}), ${rec.model}, ${(rec.bytes / 1e6).toFixed(2)} MB`;
}

/** One line per batch: submitted / validating / in_progress with counts / finalizing / completed ... */
export function statusText(rec: PartRecord): string {
  const c = rec.counts;
  const counts = c && c.total > 0 ? ` ${c.completed + c.failed}/${c.total} done${c.failed ? `, ${c.failed} failed` : ''}` : '';
  const status = rec.batch_id === null ? 'not submitted yet' : rec.status;
  return `batch ${rec.batch_id ?? '-'} (part ${rec.part}, ${rec.requests} requests, ${rec.model}): ${status}${counts}`;
}
