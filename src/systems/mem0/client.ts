/**
 * Mem0's two REST APIs as a MemoryService (src/systems/memory-service/service.ts), read from
 * mem0ai/mem0:
 * - the open-source server (server/main.py): `POST /memories` {messages, user_id, metadata} ->
 *   {results: [{id, memory, event, previous_memory?}]}; `POST /search` {query, filters: {user_id},
 *   top_k}; `GET` / `DELETE /memories?user_id=`; key in `X-API-Key`;
 * - the hosted platform (mem0/client/main.py, docs/openapi.json): `POST /v3/memories/add/`
 *   {messages, user_id, metadata, timestamp} -> {event_id, status: PENDING}, polled at
 *   `GET /v1/event/{event_id}/` until SUCCEEDED (its `results` carry the events);
 *   `POST /v3/memories/search/` {query, filters: {user_id}, top_k}; `POST /v3/memories/` {filters}
 *   (paginated) to list; `DELETE /v1/memories/?user_id=`; key as `Authorization: Token <key>`.
 * The OSS server keeps the creation time of ingest, not of the conversation, so the turns' date
 * travels in metadata on both; the platform also gets it as `timestamp` (it backdates memories).
 */
import { BadReplyError } from '../../providers/errors.js';
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, sleep, type ServiceTransport } from '../memory-service/http.js';
import {
  eventKind,
  metadataOf,
  readMetadata,
  type AddCall,
  type AddEvent,
  type AddOutcome,
  type MemoryService,
  type ServiceMemory,
} from '../memory-service/service.js';

export type Mem0Api = 'oss' | 'platform';

function memoriesOf(reply: unknown): unknown[] {
  if (Array.isArray(reply)) return reply;
  const r = reply as { results?: unknown; memories?: unknown } | null;
  if (r && Array.isArray(r.results)) return r.results;
  if (r && Array.isArray(r.memories)) return r.memories;
  throw new BadReplyError(`expected {"results": [...]}, got ${JSON.stringify(reply)?.slice(0, 200)}`, false);
}

export function toMemory(m: unknown): ServiceMemory | null {
  const o = (m ?? {}) as Record<string, unknown>;
  const text =
    typeof o.memory === 'string'
      ? o.memory
      : typeof (o.data as { memory?: unknown })?.memory === 'string'
        ? String((o.data as { memory: string }).memory)
        : null;
  if (typeof o.id !== 'string' || text === null) return null;
  const meta = readMetadata(o.metadata);
  return {
    id: o.id,
    memory: text,
    score: typeof o.score === 'number' ? o.score : null,
    date: meta.date ?? (typeof o.created_at === 'string' ? o.created_at : null),
    turnIds: meta.turnIds,
    addKey: meta.addKey,
  };
}

/** Mem0's add results (`{id, memory, event, previous_memory}`, the platform's `data.memory` too) as events. */
export function toEvents(results: unknown[]): AddEvent[] {
  const out: AddEvent[] = [];
  for (const r of results) {
    const o = (r ?? {}) as Record<string, unknown>;
    const event = eventKind(o.event);
    if (!event) continue;
    const data = (o.data ?? {}) as Record<string, unknown>;
    const memory = typeof o.memory === 'string' ? o.memory : typeof data.memory === 'string' ? data.memory : null;
    const previous = typeof o.previous_memory === 'string' ? o.previous_memory : typeof o.old_memory === 'string' ? o.old_memory : null;
    out.push({ id: typeof o.id === 'string' ? o.id : null, event, memory, previous });
  }
  return out;
}

export class Mem0Service implements MemoryService {
  readonly system = 'Mem0';
  readonly api: string;
  private readonly http: JsonService;

  constructor(
    readonly url: string,
    private readonly which: Mem0Api,
    key: string | undefined,
    private readonly transport: ServiceTransport,
  ) {
    this.api = `mem0-${which}`;
    const headers: Record<string, string> = key ? (which === 'platform' ? { authorization: `Token ${key}` } : { 'x-api-key': key }) : {};
    this.http = new JsonService(url, headers, transport, 'mem0');
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }

  async addOnce(call: AddCall): Promise<AddOutcome> {
    return { events: await this.addEvents(call) };
  }

  private async addEvents(call: AddCall): Promise<AddEvent[] | null> {
    const messages = call.messages.map((m) => ({ role: m.role, content: m.content }));
    const body = { messages, user_id: call.owner, metadata: metadataOf(call) };
    if (this.which === 'oss') return toEvents(memoriesOf(await this.http.once({ method: 'POST', path: '/memories', body })));
    const reply = (await this.http.once({
      method: 'POST',
      path: '/v3/memories/add/',
      body: call.timestamp !== null ? { ...body, timestamp: call.timestamp } : body,
    })) as { event_id?: unknown; status?: unknown; results?: unknown } | null;
    if (reply && Array.isArray(reply.results)) return toEvents(reply.results);
    if (!reply || typeof reply.event_id !== 'string')
      throw new BadReplyError(`add returned no event_id: ${JSON.stringify(reply)?.slice(0, 200)}`, false);
    return this.awaitEvent(reply.event_id);
  }

  /** Polls the platform's event until it is done; its results are the add's events. */
  private async awaitEvent(id: string): Promise<AddEvent[] | null> {
    const deadline = Date.now() + this.transport.timeoutMs;
    const step = Math.min(1000, Math.max(1, this.transport.retry.baseDelayMs));
    for (;;) {
      const ev = (await this.http.request({ method: 'GET', path: `/v1/event/${encodeURIComponent(id)}/` })) as {
        status?: string;
        results?: unknown;
        error?: unknown;
      };
      if (ev?.status === 'SUCCEEDED') return Array.isArray(ev.results) ? toEvents(ev.results) : null;
      if (ev?.status === 'FAILED')
        throw new BadReplyError(`the platform's add event ${id} FAILED: ${String(ev.error ?? 'no reason given')}`, false);
      if (Date.now() > deadline)
        throw new BadReplyError(
          `the platform's add event ${id} was still ${ev?.status ?? 'pending'} after ${this.transport.timeoutMs} ms`,
          false,
        );
      await sleep(step);
    }
  }

  async search(owner: string, query: string, limit: number): Promise<ServiceMemory[]> {
    const path = this.which === 'oss' ? '/search' : '/v3/memories/search/';
    const reply = await this.http.request({ method: 'POST', path, body: { query, filters: { user_id: owner }, top_k: limit } });
    return memoriesOf(reply)
      .map(toMemory)
      .filter((m): m is ServiceMemory => m !== null)
      .slice(0, limit);
  }

  async list(owner: string): Promise<ServiceMemory[]> {
    if (this.which === 'oss') {
      // Memory.get_all returns 20 by default; server/main.py allows at most 1000 (the most a lost reply can be looked for in).
      const reply = await this.http.request({ method: 'GET', path: '/memories', query: { user_id: owner, top_k: '1000' } });
      return memoriesOf(reply)
        .map(toMemory)
        .filter((m): m is ServiceMemory => m !== null);
    }
    const out: ServiceMemory[] = [];
    for (let page = 1; page <= 1000; page++) {
      const reply = (await this.http.request({
        method: 'POST',
        path: '/v3/memories/',
        query: { page: String(page), page_size: '100' },
        body: { filters: { user_id: owner } },
      })) as { next?: unknown };
      out.push(
        ...memoriesOf(reply)
          .map(toMemory)
          .filter((m): m is ServiceMemory => m !== null),
      );
      if (Array.isArray(reply) || !reply?.next) break;
    }
    return out;
  }

  async deleteOwner(owner: string): Promise<void> {
    const path = this.which === 'oss' ? '/memories' : '/v1/memories/';
    await this.http.request({ method: 'DELETE', path, query: { user_id: owner } });
  }

  addFailure(call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: this.which === 'oss' ? '/memories' : '/v3/memories/add/' }, e);
  }

  report(): Record<string, unknown> {
    return { sent: Object.fromEntries([...this.http.sent].sort()), retries: this.http.retries };
  }
}
