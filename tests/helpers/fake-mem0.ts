/**
 * A loopback Mem0 service (127.0.0.1, port 0) speaking both REST APIs as mem0ai/mem0 defines
 * them: the open-source server (server/main.py: POST /memories, POST /search, GET and DELETE
 * /memories?user_id=, X-API-Key) and the hosted platform (POST /v3/memories/add/ answered with an
 * event polled at GET /v1/event/{id}/, POST /v3/memories/search/, POST /v3/memories/ paginated,
 * DELETE /v1/memories/, Authorization: Token). Its "LLM" is deterministic: every message becomes a
 * fact; a fact whose first four words match a stored one UPDATEs it (or is a NONE when the text is
 * the same); "forget ..." DELETEs. Metadata is kept on each memory as Mem0 keeps it. Faults are
 * injected per request (status, slow, reset before or after the add was done).
 */
import { randomUUID } from 'node:crypto';
import type { RecordedRequest } from './loopback-server.js';
import { MemoryServiceFake, type ServiceFault } from './memory-service-fake.js';

export type Mem0Request = RecordedRequest;

/** status: reply with it; slow: wait delayMs first; reset: drop the connection before doing anything; reset-after: do the work, then drop it; torn: do it, then a cut 200. */
export type Mem0Fault = ServiceFault;

interface StoredMemory {
  id: string;
  user_id: string;
  memory: string;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string | null;
}

const words = (s: string) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];

export class FakeMem0 extends MemoryServiceFake {
  readonly memories = new Map<string, StoredMemory>();
  private readonly events = new Map<string, { polls: number; results: unknown[] }>();
  /** Every add the service performed (after any fault that let it through), by rawrag's add key ... */
  readonly performed: string[] = [];
  /** ... and by owner and key (`<owner> <key>`). */
  readonly performedBy: string[] = [];

  constructor(private readonly opts: { apiKey?: string; delayMs?: number } = {}) {
    super(opts.delayMs);
  }

  isAdd(r: Mem0Request): boolean {
    return r.method === 'POST' && (r.path === '/memories' || r.path === '/v3/memories/add/');
  }

  /** Every add request, faulted ones included. */
  override adds(): Mem0Request[] {
    return this.requests.filter((r) => this.isAdd(r));
  }

  totalHeld(): number {
    return this.memories.size;
  }

  ownerMemories(owner: string): StoredMemory[] {
    return [...this.memories.values()].filter((m) => m.user_id === owner);
  }

  protected route(r: Mem0Request): [number, unknown] {
    const platform = r.path.startsWith('/v1/') || r.path.startsWith('/v3/');
    if (this.opts.apiKey) {
      const ok = platform ? r.headers.authorization === `Token ${this.opts.apiKey}` : r.headers['x-api-key'] === this.opts.apiKey;
      if (!ok) return [401, { detail: 'Authentication required. Provide a Bearer token or X-API-Key header.' }];
    }
    return this.routeApi(r);
  }

  private routeApi(r: Mem0Request): [number, unknown] {
    const b = r.body ?? {};
    const key = `${r.method} ${r.path}`;
    if (key === 'POST /memories' || key === 'POST /v3/memories/add/') {
      const owner = b.user_id ?? b.agent_id ?? b.run_id;
      if (!owner) return [400, { detail: 'At least one identifier (user_id, agent_id, run_id) is required.' }];
      if (!Array.isArray(b.messages)) return [422, { detail: 'messages: field required' }];
      const results = this.add(owner, b.messages, b.metadata ?? {}, b.timestamp);
      if (r.path === '/memories') return [200, { results }];
      const id = randomUUID();
      this.events.set(id, { polls: 0, results });
      return [200, { event_id: id, status: 'PENDING' }];
    }
    const ev = /^\/v1\/event\/([^/]+)\/$/.exec(r.path);
    if (r.method === 'GET' && ev) {
      const e = this.events.get(ev[1]!);
      if (!e) return [404, { detail: 'not found' }];
      e.polls++;
      // The first poll finds it still running, as a real background job would be.
      return [
        200,
        e.polls < 2 ? { id: ev[1], status: 'RUNNING' } : { id: ev[1], event_type: 'ADD', status: 'SUCCEEDED', results: e.results },
      ];
    }
    if (key === 'POST /search' || key === 'POST /v3/memories/search/') {
      if (typeof b.query !== 'string') return [422, { detail: 'query: field required' }];
      const owner = b.filters?.user_id ?? b.user_id;
      if (!owner) return [400, { detail: 'filters must contain at least one of: user_id, agent_id, run_id' }];
      if (this.blindSearch) return [200, { results: [] }];
      const q = new Set(words(b.query));
      const scored = this.ownerMemories(owner)
        .map((m) => ({ m, score: words(m.memory).filter((w) => q.has(w)).length / Math.max(1, words(m.memory).length) }))
        .sort((x, y) => y.score - x.score || (x.m.id < y.m.id ? -1 : 1))
        .slice(0, b.top_k ?? 20);
      return [200, { results: scored.map((s) => ({ ...this.serialise(s.m), score: Math.round(s.score * 1e4) / 1e4 })) }];
    }
    if (key === 'GET /memories') {
      if (!r.query.user_id) return [403, { detail: 'Admin role required to list all memories.' }];
      // server/main.py: top_k <= 1000, and Memory.get_all's default is 20.
      const topK = Number(r.query.top_k ?? 20);
      if (!(topK >= 0 && topK <= 1000)) return [422, { detail: 'top_k: ensure this value is less than or equal to 1000' }];
      return [
        200,
        {
          results: this.ownerMemories(r.query.user_id)
            .slice(0, topK)
            .map((m) => this.serialise(m)),
        },
      ];
    }
    if (key === 'POST /v3/memories/') {
      const all = this.ownerMemories(b.filters?.user_id ?? '').map((m) => this.serialise(m));
      const page = Number(r.query.page ?? 1);
      const size = Number(r.query.page_size ?? 100);
      const slice = all.slice((page - 1) * size, page * size);
      return [200, { count: all.length, next: page * size < all.length ? `?page=${page + 1}` : null, previous: null, results: slice }];
    }
    if (key === 'DELETE /memories' || key === 'DELETE /v1/memories/') {
      const owner = r.query.user_id;
      if (!owner) return [400, { detail: 'At least one identifier is required.' }];
      for (const m of this.ownerMemories(owner)) this.memories.delete(m.id);
      return [200, { message: 'All relevant memories deleted' }];
    }
    return [404, { detail: 'Not Found' }];
  }

  private serialise(m: StoredMemory): Record<string, unknown> {
    return {
      id: m.id,
      memory: m.memory,
      user_id: m.user_id,
      hash: 'h',
      metadata: m.metadata,
      created_at: m.created_at,
      updated_at: m.updated_at,
    };
  }

  /** The deterministic "extraction": one fact per message; same first four words = the same fact. */
  private add(owner: string, messages: Array<{ content: string }>, metadata: Record<string, unknown>, timestamp?: number): unknown[] {
    if (typeof metadata.rawrag_add === 'string') {
      this.performed.push(metadata.rawrag_add);
      this.performedBy.push(`${owner} ${metadata.rawrag_add}`);
    }
    this.applied.push(`${owner} ${typeof metadata.rawrag_add === 'string' ? metadata.rawrag_add : JSON.stringify(messages)}`);
    const now = timestamp ? new Date(timestamp * 1000).toISOString() : new Date().toISOString();
    const results: unknown[] = [];
    for (const msg of messages) {
      const text = String(msg.content).trim();
      const head = words(text).slice(0, 4).join(' ');
      const same = this.ownerMemories(owner).find((m) => words(m.memory).slice(0, 4).join(' ') === head);
      if (/\bforget\b/i.test(text) && same) {
        this.memories.delete(same.id);
        results.push({ id: same.id, memory: same.memory, event: 'DELETE' });
      } else if (same && same.memory === text) {
        results.push({ id: same.id, memory: text, event: 'NONE' });
      } else if (same) {
        const previous = same.memory;
        same.memory = text;
        same.metadata = { ...metadata };
        same.updated_at = now;
        results.push({ id: same.id, memory: text, event: 'UPDATE', previous_memory: previous });
      } else {
        const id = randomUUID();
        this.memories.set(id, { id, user_id: owner, memory: text, metadata: { ...metadata }, created_at: now, updated_at: null });
        results.push({ id, memory: text, event: 'ADD' });
      }
    }
    return results;
  }
}
