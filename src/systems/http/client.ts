/** rawrag's memory protocol (protocol.ts) as a MemoryService: four POSTs (and an optional fifth), replies checked against their schemas. */
import type { z } from 'zod';
import { BadReplyError } from '../../providers/errors.js';
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, pollUntil, statusOf, type ServiceTransport } from '../memory-service/http.js';
import type { AddCall, AddEvent, AddOutcome, MemoryService, ServiceMemory } from '../memory-service/service.js';
import { AddReply, DeleteReply, ListReply, PROTOCOL_VERSION, ReadyReply, SearchReply } from './protocol.js';

/** The value at `path` in `v` (undefined where the path ends early). */
function at(v: unknown, path: readonly PropertyKey[]): unknown {
  let cur = v;
  for (const k of path) cur = cur !== null && typeof cur === 'object' ? (cur as Record<PropertyKey, unknown>)[k] : undefined;
  return cur;
}

function checked<T>(schema: z.ZodType<T>, reply: unknown, call: string): T {
  const r = schema.safeParse(reply ?? {});
  if (!r.success) {
    const issue = r.error.issues[0]!;
    // A required field missing is a broken reply (issue 42), retried like a 5xx; a field of another type is the service's bug.
    const missing = at(reply, issue.path) === undefined;
    throw new BadReplyError(
      `the ${call} reply does not follow the protocol (${issue.path.join('.') || '(top level)'}: ${issue.message})`,
      missing,
    );
  }
  return r.data;
}

/** The reply read against `schema` inside the attempt (JsonService's `read`): empty, `null` or missing a field: retried. */
const reader =
  <T>(schema: z.ZodType<T>, call: string) =>
  (reply: unknown): T =>
    checked(schema, reply, call);

const EVENT_KEYS = new Set(['id', 'event', 'memory', 'previous_memory']);

/** A protocol event as a write event; the service's own keys stay on it as `extra`. */
function eventOf(e: NonNullable<z.infer<typeof AddReply>['events']>[number]): AddEvent {
  const extra = Object.fromEntries(Object.entries(e).filter(([k]) => !EVENT_KEYS.has(k)));
  return {
    id: e.id ?? null,
    event: e.event,
    memory: e.memory ?? null,
    previous: e.previous_memory ?? null,
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

function toMemory(m: z.infer<typeof SearchReply>['results'][number]): ServiceMemory {
  return { id: m.id, memory: m.memory, score: m.score ?? null, date: m.date ?? null, turnIds: m.turn_ids ?? [], addKey: m.add_id ?? null };
}

const notFound = (e: unknown) => statusOf(e) === 404;

/** The body of one add: every field of the protocol's AddRequest. */
export function addBody(call: AddCall): Record<string, unknown> {
  return {
    owner: call.owner,
    add_id: call.key,
    messages: call.messages.map((m) => ({
      role: m.role,
      content: m.content,
      speaker: m.speaker,
      text: m.text,
      captions: m.captions,
      turn_id: m.turnId,
    })),
    turn_ids: call.turnIds,
    session: call.session,
    date: call.date,
    timestamp: call.timestamp,
    owner_speaker: call.ownerSpeaker,
    ...(call.speakers?.length ? { speakers: call.speakers } : {}),
  };
}

export class HttpMemoryService implements MemoryService {
  readonly system: string;
  readonly api = `http/${PROTOCOL_VERSION}`;
  private readonly http: JsonService;
  /** Whether the service answers /ready (learnt at the first call; a 404 = searchable once acknowledged). */
  private hasReady: boolean | null = null;
  /** What the last delete said it removed, for rawrag memory purge. */
  lastRemoved: string[] = [];

  constructor(
    readonly url: string,
    name: string,
    key: string | undefined,
    private readonly transport: ServiceTransport,
  ) {
    this.system = name;
    const headers: Record<string, string> = {
      'x-rawrag-memory-protocol': String(PROTOCOL_VERSION),
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    };
    this.http = new JsonService(url, headers, transport, name);
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }

  async addOnce(call: AddCall): Promise<AddOutcome> {
    const reply = await this.http.once<z.infer<typeof AddReply>>({
      method: 'POST',
      path: '/add',
      body: addBody(call),
      read: reader(AddReply, 'add'),
    });
    return {
      events: reply.events ? reply.events.map(eventOf) : null,
    };
  }

  async search(owner: string, query: string, limit: number): Promise<ServiceMemory[]> {
    const reply = await this.http.request<z.infer<typeof SearchReply>>({
      method: 'POST',
      path: '/search',
      body: { owner, query, limit },
      read: reader(SearchReply, 'search'),
    });
    return reply.results.slice(0, limit).map(toMemory);
  }

  async list(owner: string): Promise<ServiceMemory[] | null> {
    try {
      const reply = await this.http.request<z.infer<typeof ListReply>>({
        method: 'POST',
        path: '/list',
        body: { owner },
        read: reader(ListReply, 'list'),
      });
      return reply.memories.map(toMemory);
    } catch (e) {
      // /list is optional: a service without it cannot be asked what it holds.
      if (notFound(e)) return null;
      throw e;
    }
  }

  async deleteOwner(owner: string): Promise<string[]> {
    const reply = checked(DeleteReply, await this.http.request({ method: 'POST', path: '/delete', body: { owner } }), 'delete');
    this.lastRemoved = reply.removed ?? [];
    return this.lastRemoved;
  }

  /** `/ready` until it says ready (a library that indexes at the end, a flush and a drain); a 404 = searchable once acknowledged. */
  async awaitReady(owner: string, _calls: readonly AddCall[], timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.hasReady === false) return;
    await pollUntil(
      async (report) => {
        try {
          const r = await this.http.request<z.infer<typeof ReadyReply>>({
            method: 'POST',
            path: '/ready',
            body: { owner },
            read: reader(ReadyReply, 'ready'),
          });
          this.hasReady = true;
          if (r.ready) return true;
          report(r.state ?? 'not ready');
          return undefined;
        } catch (e) {
          if (!notFound(e) || this.hasReady) throw e;
          this.hasReady = false;
          return true;
        }
      },
      { what: `${this.system} readiness of '${owner}'`, timeoutMs, firstMs: 200, maxMs: 5000, signal },
    );
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: '/add' }, e);
  }

  report(): Record<string, unknown> {
    return { sent: Object.fromEntries([...this.http.sent].sort()), retries: this.http.retries };
  }
}
