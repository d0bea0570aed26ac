/**
 * A loopback Mem0 service (127.0.0.1, port 0) speaking both REST APIs as mem0ai/mem0 defines them,
 * in the flavours a run can meet (written from mem0ai/mem0@8d5b7865b unless said):
 *
 * - the open-source server (server/main.py): `POST /memories` validated as `MemoryCreate` L180-189
 *   (messages: list of {role: str, content: str}, 422 when missing or mistyped; extra fields ignored,
 *   pydantic's default; no entity id -> 400, L370-371); `POST /search` as `SearchRequest` L198-207
 *   (query required; top-level user_id moved into `filters`, L456-462; the library then needs an
 *   entity id in `filters` -> 400, mem0/memory/main.py L1457-1461); `GET /memories?user_id=&top_k=`
 *   (top_k 0..1000 -> else 422, L417; the library's default 20 without it, main.py L1259);
 *   `DELETE /memories?user_id=` (L527-544); key in `X-API-Key`.
 * - `flavour: '2.x'` (the default; mem0ai >= 2.0, what the server installs): add-only — one fact per
 *   message, a text already stored (or repeated in the add) dropped silently (main.py L1006-1024),
 *   only `{id, memory, event: "ADD"}` returned (L1194-1197), the add's metadata kept on each memory;
 *   `infer: false` stores each message as it is and returns `actor_id` and `role` too (L880-913);
 *   search drops scores under the library's default threshold 0.1 (L1385).
 * - `flavour: '0.1.x'` (mem0ai < 2.0, v1.0.9 main.py L605-681): the "LLM" proposes per message ADD,
 *   UPDATE (same first four words, other text), DELETE ("forget ..." of a stored fact) or NONE (the
 *   same text); ADD / UPDATE / DELETE are returned (UPDATE with `previous_memory`), NONE only
 *   logged; an UPDATE replaces the memory's metadata with the updating add's (`_update_memory`
 *   L1278). `proposals` is that log (what mem0's `logger.info(resp)` prints), per add.
 * - `listDefault`: a server from before 2026-06-24 (#5753) has no `top_k` on GET /memories and lists
 *   at the library's default (100 before 2.0, 20 since), whatever is asked.
 * - the platform (mem0/client/main.py, docs/openapi.json): `GET /v1/ping/`; `POST /v3/memories/add/`
 *   queued as an event (`{event_id, status: "PENDING"}`) that is processed — its memories stored —
 *   once polled `eventPolls` times at `GET /v1/event/{id}/` or after `processMs`, whichever first;
 *   `failEvents` next events FAILED; `POST /v3/memories/search/` and `POST /v3/memories/` need
 *   `filters` (top-level entity ids -> 400), listing paginated (page_size <= 200, `next`);
 *   `DELETE /v1/memories/?user_id=` queued ("Delete in progress"): the owner's memories stay listed
 *   for `deleteListings` more listings (or `deleteMs`). The v3 pipeline is additive (2.x behaviour).
 *   `Authorization: Token`.
 * Faults are injected per request (status, slow, reset before or after the add was done, torn).
 */
import { randomUUID } from 'node:crypto';
import type { RecordedRequest } from './loopback-server.js';
import { MemoryServiceFake, type ServiceFault } from './memory-service-fake.js';

export type Mem0Request = RecordedRequest;

/** status: reply with it; slow: wait delayMs first; reset: drop the connection before doing anything; reset-after: do the work, then drop it; torn: do it, then a cut 200. */
export type Mem0Fault = ServiceFault;

export type Mem0Flavour = '2.x' | '0.1.x';

interface StoredMemory {
  id: string;
  user_id: string;
  memory: string;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string | null;
}

/** One proposal of the 0.1.x "LLM", as mem0 < 2.0 logs it. */
export interface Mem0Proposal {
  owner: string;
  /** rawrag's add key (metadata `rawrag_add`). */
  add: string;
  event: 'ADD' | 'UPDATE' | 'DELETE' | 'NONE';
  id: string | null;
  text: string;
  old_memory: string | null;
}

export interface FakeMem0Options {
  apiKey?: string;
  delayMs?: number;
  flavour?: Mem0Flavour;
  /** GET /memories ignores top_k and lists at most this many (a server before 2026-06-24). */
  listDefault?: number | null;
  /** Platform: polls answered RUNNING before an event is processed (default 1). */
  eventPolls?: number;
  /** Platform: an event is processed this long after it was queued even if nobody polls (default 2000 ms). */
  processMs?: number;
  /** Platform: listings of an owner that still show its memories after its delete was queued (default 2). */
  deleteListings?: number;
  /** Platform: a queued delete is done this long after it was asked for (default 3000 ms). */
  deleteMs?: number;
}

interface QueuedAdd {
  owner: string;
  messages: Array<{ role: string; content: string }>;
  metadata: Record<string, unknown>;
  timestamp?: number;
  polls: number;
  at: number;
  status: 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  results: unknown[];
}

const words = (s: string) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];
const head = (s: string) => words(s).slice(0, 4).join(' ');
const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v);
const ENTITY = ['user_id', 'agent_id', 'run_id'] as const;

export class FakeMem0 extends MemoryServiceFake {
  readonly memories = new Map<string, StoredMemory>();
  private readonly events = new Map<string, QueuedAdd>();
  private readonly deletes: Array<{ owner: string; listings: number; at: number }> = [];
  /** Every add the service performed (after any fault that let it through), by rawrag's add key ... */
  readonly performed: string[] = [];
  /** ... and by owner and key (`<owner> <key>`). */
  readonly performedBy: string[] = [];
  /** The 0.1.x "LLM"'s proposals, NONE included (mem0's log), in order. */
  readonly proposals: Mem0Proposal[] = [];
  /** Platform: the next N events end FAILED (nothing stored). */
  failEvents = 0;
  /** Platform: an event's results also hold an entry that is no event (an unknown shape). */
  oddResult = false;
  /** Platform: polls answered RUNNING before an event is processed (settable: the background work "finishes"). */
  eventPolls: number;
  readonly flavour: Mem0Flavour;

  constructor(private readonly opts: FakeMem0Options = {}) {
    super(opts.delayMs);
    this.flavour = opts.flavour ?? '2.x';
    this.eventPolls = opts.eventPolls ?? 1;
  }

  isAdd(r: Mem0Request): boolean {
    return r.method === 'POST' && (r.path === '/memories' || r.path === '/v3/memories/add/');
  }

  /** Every add request, faulted ones included. */
  override adds(): Mem0Request[] {
    return this.requests.filter((r) => this.isAdd(r));
  }

  totalHeld(): number {
    this.settle();
    return this.memories.size;
  }

  ownerMemories(owner: string): StoredMemory[] {
    return [...this.memories.values()].filter((m) => m.user_id === owner);
  }

  protected route(r: Mem0Request): [number, unknown] {
    this.settle();
    const platform = r.path.startsWith('/v1/') || r.path.startsWith('/v3/');
    if (this.opts.apiKey) {
      const ok = platform ? r.headers.authorization === `Token ${this.opts.apiKey}` : r.headers['x-api-key'] === this.opts.apiKey;
      if (!ok) return [401, { detail: 'Authentication required. Provide a Bearer token or X-API-Key header.' }];
    }
    return platform ? this.routePlatform(r) : this.routeOss(r);
  }

  // --- the open-source server -------------------------------------------------------------

  private routeOss(r: Mem0Request): [number, unknown] {
    const b = r.body;
    const key = `${r.method} ${r.path}`;
    if (key === 'POST /memories') {
      const invalid = messagesInvalid(b?.messages) ?? (isObject(b) ? null : 'body: field required');
      if (invalid) return [422, { detail: [{ loc: ['body', 'messages'], msg: invalid, type: 'value_error' }] }];
      const owner = b.user_id ?? b.agent_id ?? b.run_id;
      if (!owner) return [400, { detail: 'At least one identifier (user_id, agent_id, run_id) is required.' }];
      if (b.metadata !== undefined && b.metadata !== null && !isObject(b.metadata))
        return [422, { detail: [{ loc: ['body', 'metadata'], msg: 'Input should be a valid dictionary' }] }];
      return [200, { results: this.add(owner, b.messages, b.metadata ?? {}, { infer: b.infer !== false }) }];
    }
    if (key === 'POST /search') {
      if (!isObject(b) || typeof b.query !== 'string')
        return [422, { detail: [{ loc: ['body', 'query'], msg: 'Field required', type: 'missing' }] }];
      const filters: Record<string, unknown> = { ...(isObject(b.filters) ? b.filters : {}) };
      for (const k of ENTITY) if (b[k]) filters[k] = b[k];
      if (!ENTITY.some((k) => filters[k])) return [400, { detail: 'filters must contain at least one of: user_id, agent_id, run_id.' }];
      if (this.blindSearch) return [200, { results: [] }];
      const threshold = typeof b.threshold === 'number' ? b.threshold : this.flavour === '2.x' ? 0.1 : 0;
      return [200, { results: this.search(filters, b.query, b.top_k ?? 20, threshold) }];
    }
    if (key === 'GET /memories') {
      if (!r.query.user_id) return [403, { detail: 'Admin role required to list all memories.' }];
      const asked = r.query.top_k === undefined ? 20 : Number(r.query.top_k);
      if (!(asked >= 0 && asked <= 1000)) return [422, { detail: 'top_k: ensure this value is less than or equal to 1000' }];
      const top = this.opts.listDefault ?? asked;
      return [
        200,
        {
          results: this.ownerMemories(r.query.user_id)
            .slice(0, top)
            .map((m) => this.serialise(m)),
        },
      ];
    }
    if (key === 'DELETE /memories') {
      const owner = r.query.user_id;
      if (!owner) return [400, { detail: 'At least one identifier is required.' }];
      for (const m of this.ownerMemories(owner)) this.memories.delete(m.id);
      return [200, { message: 'All relevant memories deleted' }];
    }
    return [404, { detail: 'Not Found' }];
  }

  // --- the platform -----------------------------------------------------------------------

  private routePlatform(r: Mem0Request): [number, unknown] {
    const b = r.body;
    const key = `${r.method} ${r.path}`;
    if (key === 'GET /v1/ping/') return [200, { status: 'ok', org_id: 'org-1', project_id: 'proj-1', user_email: 'eval@example.org' }];
    if (key === 'POST /v3/memories/add/') {
      const invalid = messagesInvalid(b?.messages, ['user', 'assistant', 'system']);
      if (invalid) return [400, { error: `messages: ${invalid}` }];
      const owner = b.user_id ?? b.agent_id ?? b.run_id;
      if (!owner) return [400, { error: 'At least one entity ID (user_id, agent_id, run_id) is required.' }];
      if (b.infer === false)
        return [200, { message: 'ok', results: this.add(owner, b.messages, b.metadata ?? {}, { infer: false, platform: true }) }];
      const id = randomUUID();
      this.events.set(id, {
        owner,
        messages: b.messages,
        metadata: b.metadata ?? {},
        timestamp: b.timestamp,
        polls: 0,
        at: Date.now(),
        status: 'PENDING',
        results: [],
      });
      return [200, { event_id: id, status: 'PENDING' }];
    }
    const ev = /^\/v1\/event\/([^/]+)\/$/.exec(r.path);
    if (r.method === 'GET' && ev) {
      const e = this.events.get(ev[1]!);
      if (!e) return [404, { error: "Event not found or you don't have permission to access it." }];
      e.polls++;
      this.settle();
      if (e.status === 'SUCCEEDED' || e.status === 'FAILED')
        return [
          200,
          {
            id: ev[1],
            event_type: 'ADD',
            status: e.status,
            results: e.results,
            ...(e.status === 'FAILED' ? { error: 'extraction failed' } : {}),
          },
        ];
      e.status = 'RUNNING';
      return [200, { id: ev[1], event_type: 'ADD', status: 'RUNNING' }];
    }
    if (key === 'POST /v3/memories/search/' || key === 'POST /v3/memories/') {
      if (!isObject(b)) return [400, { error: 'filters: This field is required.' }];
      if (ENTITY.some((k) => b[k] !== undefined)) return [400, { error: 'Top-level entity parameters are not supported. Use filters.' }];
      if (!isObject(b.filters) || !ENTITY.some((k) => b.filters[k]))
        return [400, { error: 'filters must include at least one entity ID.' }];
      if (key === 'POST /v3/memories/search/') {
        if (typeof b.query !== 'string' || b.query.length === 0) return [400, { error: 'query: This field may not be blank.' }];
        if (this.blindSearch) return [200, { results: [] }];
        return [200, { results: this.search(b.filters, b.query, b.top_k ?? 10, typeof b.threshold === 'number' ? b.threshold : 0.1) }];
      }
      const size = Number(r.query.page_size ?? 100);
      if (!(size >= 1 && size <= 200)) return [400, { error: 'page_size must be between 1 and 200' }];
      const page = Number(r.query.page ?? 1);
      const all = this.listPlatform(String(b.filters.user_id ?? ''));
      const slice = all.slice((page - 1) * size, page * size);
      const next = page * size < all.length ? `${this.url}/v3/memories/?page=${page + 1}&page_size=${size}` : null;
      return [200, { count: all.length, next, previous: null, results: slice }];
    }
    if (key === 'DELETE /v1/memories/') {
      const owner = r.query.user_id;
      if (!owner) return [400, { error: 'At least one filter is required.' }];
      this.deletes.push({ owner, listings: this.opts.deleteListings ?? 2, at: Date.now() + (this.opts.deleteMs ?? 3000) });
      return [200, { message: 'Delete in progress. This may take some time.', event_id: randomUUID() }];
    }
    return [404, { detail: 'Not Found' }];
  }

  /** A platform listing: a queued delete of the owner is done after its last listing that still shows the memories. */
  private listPlatform(owner: string): unknown[] {
    const queued = this.deletes.find((d) => d.owner === owner);
    if (queued) {
      if (queued.listings > 0) queued.listings--;
      else this.finishDelete(queued);
    }
    return this.ownerMemories(owner).map((m) => this.serialise(m, true));
  }

  private finishDelete(d: { owner: string }): void {
    for (const m of this.ownerMemories(d.owner)) this.memories.delete(m.id);
    this.deletes.splice(this.deletes.indexOf(d as (typeof this.deletes)[number]), 1);
  }

  /** Background work due: events processed (polled enough, or old enough), queued deletes done (old enough). */
  private settle(): void {
    for (const d of [...this.deletes]) if (Date.now() >= d.at) this.finishDelete(d);
    for (const e of this.events.values()) {
      if (e.status === 'SUCCEEDED' || e.status === 'FAILED') continue;
      if (e.polls < this.eventPolls + 1 && Date.now() - e.at < (this.opts.processMs ?? 2000)) continue;
      if (this.failEvents > 0) {
        this.failEvents--;
        e.status = 'FAILED';
        continue;
      }
      e.results = this.add(e.owner, e.messages, e.metadata, { infer: true, platform: true, timestamp: e.timestamp });
      if (this.oddResult) e.results.push({ type: 'entity_link', entity: 'Caroline', memory_ids: [] });
      e.status = 'SUCCEEDED';
    }
  }

  // --- the "LLM" and the store ------------------------------------------------------------

  private search(filters: Record<string, unknown>, query: string, topK: number, threshold: number): unknown[] {
    const q = new Set(words(query));
    const owner = String(filters.user_id ?? filters.agent_id ?? filters.run_id);
    const meta = Object.entries(filters).filter(([k]) => !(ENTITY as readonly string[]).includes(k));
    return this.ownerMemories(owner)
      .filter((m) => meta.every(([k, v]) => m.metadata[k] === v))
      .map((m) => ({ m, score: words(m.memory).filter((w) => q.has(w)).length / Math.max(1, words(m.memory).length) }))
      .filter((s) => s.score >= threshold)
      .sort((x, y) => y.score - x.score || (x.m.id < y.m.id ? -1 : 1))
      .slice(0, topK)
      .map((s) => ({ ...this.serialise(s.m), score: Math.round(s.score * 1e4) / 1e4 }));
  }

  private serialise(m: StoredMemory, platform = false): Record<string, unknown> {
    return {
      id: m.id,
      memory: m.memory,
      user_id: m.user_id,
      ...(platform ? { categories: [] } : { hash: 'h' }),
      metadata: m.metadata,
      created_at: m.created_at,
      updated_at: m.updated_at,
    };
  }

  private add(
    owner: string,
    messages: Array<{ role: string; content: string }>,
    metadata: Record<string, unknown>,
    o: { infer: boolean; platform?: boolean; timestamp?: number },
  ): unknown[] {
    const key = typeof metadata.rawrag_add === 'string' ? metadata.rawrag_add : JSON.stringify(messages);
    if (typeof metadata.rawrag_add === 'string') {
      this.performed.push(metadata.rawrag_add);
      this.performedBy.push(`${owner} ${metadata.rawrag_add}`);
    }
    this.applied.push(`${owner} ${key}`);
    const now = o.timestamp ? new Date(o.timestamp * 1000).toISOString() : new Date().toISOString();
    const store = (text: string, meta: Record<string, unknown>) => {
      const id = randomUUID();
      this.memories.set(id, { id, user_id: owner, memory: text, metadata: { ...meta }, created_at: now, updated_at: null });
      return id;
    };
    if (!o.infer)
      return messages.map((m) => {
        const id = store(m.content, { ...metadata, role: m.role });
        return o.platform
          ? { id, data: { memory: m.content }, event: 'ADD' }
          : { id, memory: m.content, event: 'ADD', actor_id: null, role: m.role };
      });
    return this.flavour === '0.1.x' && !o.platform
      ? this.addMutating(owner, key, messages, metadata, now, store)
      : this.addOnly(owner, messages, metadata, store, o.platform);
  }

  /** mem0ai >= 2.0: one fact per message, a text already held (or repeated in this add) dropped silently, only ADD returned. */
  private addOnly(
    owner: string,
    messages: Array<{ content: string }>,
    metadata: Record<string, unknown>,
    store: (text: string, meta: Record<string, unknown>) => string,
    platform?: boolean,
  ): unknown[] {
    const held = new Set(this.ownerMemories(owner).map((m) => m.memory));
    const out: unknown[] = [];
    for (const msg of messages) {
      const text = String(msg.content).trim();
      if (held.has(text)) continue;
      held.add(text);
      const id = store(text, metadata);
      out.push(platform ? { id, data: { memory: text }, event: 'ADD' } : { id, memory: text, event: 'ADD' });
    }
    return out;
  }

  /** mem0ai < 2.0: ADD / UPDATE / DELETE returned, NONE only logged; an UPDATE takes the updating add's metadata. */
  private addMutating(
    owner: string,
    add: string,
    messages: Array<{ content: string }>,
    metadata: Record<string, unknown>,
    now: string,
    store: (text: string, meta: Record<string, unknown>) => string,
  ): unknown[] {
    const results: unknown[] = [];
    for (const msg of messages) {
      const text = String(msg.content).trim();
      const same = this.ownerMemories(owner).find((m) => head(m.memory) === head(text));
      const propose = (event: Mem0Proposal['event'], id: string | null, old: string | null) =>
        this.proposals.push({ owner, add, event, id, text, old_memory: old });
      if (/\bforget\b/i.test(text) && same) {
        propose('DELETE', same.id, same.memory);
        this.memories.delete(same.id);
        results.push({ id: same.id, memory: same.memory, event: 'DELETE' });
      } else if (same && same.memory === text) {
        propose('NONE', same.id, same.memory);
      } else if (same) {
        const previous = same.memory;
        propose('UPDATE', same.id, previous);
        same.memory = text;
        same.metadata = { ...metadata };
        same.updated_at = now;
        results.push({ id: same.id, memory: text, event: 'UPDATE', previous_memory: previous });
      } else {
        const id = store(text, metadata);
        propose('ADD', id, null);
        results.push({ id, memory: text, event: 'ADD' });
      }
    }
    return results;
  }
}

/** Why a `messages` value fails the upstream model (a list of {role: str, content: str}), or null. */
function messagesInvalid(messages: unknown, roles?: string[]): string | null {
  if (!Array.isArray(messages)) return 'Field required (a list of messages)';
  for (const [i, m] of messages.entries()) {
    if (!isObject(m) || typeof m.role !== 'string' || typeof m.content !== 'string')
      return `messages[${i}]: role and content must be strings`;
    if (roles && !roles.includes(m.role)) return `messages[${i}].role: "${m.role}" is not a valid choice`;
  }
  return null;
}
