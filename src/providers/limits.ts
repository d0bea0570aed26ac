/**
 * Requests in flight at once, per provider kind (chat, embed, rerank) and endpoint. A session makes
 * its own pool unless the transport brings one: the cells of a grid share one, so N cells against
 * one provider keep that provider's limit (`--concurrency chat`, ...), not N times it.
 */
import pLimit, { type LimitFunction } from 'p-limit';

export type ProviderKind = 'chat' | 'embed' | 'rerank';

export class ConcurrencyPool {
  private readonly limits = new Map<string, LimitFunction>();

  constructor(readonly concurrency: Record<ProviderKind, number>) {}

  /** The limiter of one kind at one endpoint (its base URL); created on first use. */
  limit(kind: ProviderKind, endpoint = ''): LimitFunction {
    const key = `${kind} ${endpoint}`;
    let l = this.limits.get(key);
    if (!l) this.limits.set(key, (l = pLimit(Math.max(1, this.concurrency[kind]))));
    return l;
  }
}
