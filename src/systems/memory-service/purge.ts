/**
 * Deleting one owner's memories on a service, verified: the delete, then the owner listed again
 * until it is empty (a platform queues deletes: the listing empties seconds later), bounded by a
 * timeout that ends in an error saying the delete is still queued. The purge is recorded in the
 * ingest log, so a later resume adds the history again rather than trusting old acknowledgements,
 * and the write-decision log is rebuilt without it.
 */
import { InputError } from '../../util/errors.js';
import { writeDecisions } from './decisions.js';
import { pollUntil, PollTimeout } from './http.js';
import type { IngestLog } from './ingest-log.js';
import type { MemoryService } from './service.js';

/** Deletes and verifies; returns how many memories were left when the service could list (null: it cannot). */
export async function purgeOwner(
  service: MemoryService,
  log: IngestLog,
  owner: string,
  timeoutMs: number,
  runDir: string,
): Promise<{ verified: boolean; removed: string[] }> {
  const removed = (await service.deleteOwner(owner)) ?? [];
  let verified = false;
  try {
    await pollUntil(
      async (report) => {
        const left = await service.list(owner);
        if (left === null) return true;
        verified = true;
        if (left.length === 0) return true;
        report(`holding ${left.length} memories`);
        return undefined;
      },
      { what: `${service.system} delete of '${owner}'`, timeoutMs, firstMs: 500, maxMs: 5000 },
    );
  } catch (e) {
    if (!(e instanceof PollTimeout)) throw e;
    throw new InputError(
      `${e.message}: the delete may still be queued on the service; run rawrag memory purge again later (-S deleteTimeout=SECONDS waits longer)`,
      { place: service.url },
    );
  }
  log.append({ type: 'purged', owner, at: new Date().toISOString() });
  writeDecisions(runDir, log);
  return { verified, removed };
}
