/** rawrag's memory protocol (protocol.ts) as a MemoryService: four POSTs, replies checked against their schemas. */
import type { z } from 'zod';
import { BadReplyError, HttpStatusError } from '../../providers/errors.js';
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, type ServiceTransport } from '../memory-service/http.js';
import type { AddCall, AddEvent, MemoryService, ServiceMemory } from '../memory-service/service.js';
import { AddReply, ListReply, PROTOCOL_VERSION, SearchReply } from './protocol.js';

function checked<T>(schema: z.ZodType<T>, reply: unknown, call: string): T {
  const r = schema.safeParse(reply ?? {});
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new BadReplyError(
      `the ${call} reply does not follow the protocol (${issue.path.join('.') || '(top level)'}: ${issue.message})`,
      false,
    );
  }
  return r.data;
}

function toMemory(m: z.infer<typeof SearchReply>['results'][number]): ServiceMemory {
  return { id: m.id, memory: m.memory, score: m.score ?? null, date: m.date ?? null, turnIds: m.turn_ids ?? [], addKey: m.add_id ?? null };
}

export class HttpMemoryService implements MemoryService {
  readonly system: string;
  readonly api = `http/${PROTOCOL_VERSION}`;
  private readonly http: JsonService;

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

  async addOnce(call: AddCall): Promise<AddEvent[] | null> {
    const body = {
      owner: call.owner,
      add_id: call.key,
      messages: call.messages,
      turn_ids: call.turnIds,
      session: call.session,
      date: call.date,
      timestamp: call.timestamp,
    };
    const reply = checked(AddReply, await this.http.once({ method: 'POST', path: '/add', body }), 'add');
    return reply.events
      ? reply.events.map((e) => ({ id: e.id ?? null, event: e.event, memory: e.memory ?? null, previous: e.previous_memory ?? null }))
      : null;
  }

  async search(owner: string, query: string, limit: number): Promise<ServiceMemory[]> {
    const reply = checked(
      SearchReply,
      await this.http.request({ method: 'POST', path: '/search', body: { owner, query, limit } }),
      'search',
    );
    return reply.results.slice(0, limit).map(toMemory);
  }

  async list(owner: string): Promise<ServiceMemory[] | null> {
    try {
      const reply = checked(ListReply, await this.http.request({ method: 'POST', path: '/list', body: { owner } }), 'list');
      return reply.memories.map(toMemory);
    } catch (e) {
      // /list is optional: a service without it cannot be asked what it holds.
      if ((e as { status?: number }).status === 404 || (e instanceof HttpStatusError && e.status === 404)) return null;
      throw e;
    }
  }

  async deleteOwner(owner: string): Promise<void> {
    await this.http.request({ method: 'POST', path: '/delete', body: { owner } });
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: '/add' }, e);
  }

  report(): Record<string, unknown> {
    return { sent: Object.fromEntries([...this.http.sent].sort()), retries: this.http.retries };
  }
}
