/**
 * Mem0's two REST APIs as a MemoryService (src/systems/memory-service/service.ts), read from
 * mem0ai/mem0:
 * - the open-source server (server/main.py): `POST /memories` {messages, user_id, metadata, prompt}
 *   -> {results: [{id, memory, event, previous_memory?}]}; `POST /search` {query, filters: {user_id},
 *   top_k}; `GET /memories?user_id=&top_k=` (at most 1000, and no `top_k` at all before 2026-06-24:
 *   the library's default then, 100 before mem0ai 2.0 and 20 since); `DELETE /memories?user_id=`;
 *   key in `X-API-Key`. It does not report its mem0ai version.
 * - the hosted platform (mem0/client/main.py, docs/openapi.json): `GET /v1/ping/` (the SDK's key
 *   check); `POST /v3/memories/add/` {messages, user_id, metadata, timestamp, custom_instructions}
 *   -> {event_id, status: PENDING}, polled at `GET /v1/event/{event_id}/` until SUCCEEDED (its
 *   `results` carry the events) or FAILED; `POST /v3/memories/search/` {query, filters, top_k};
 *   `POST /v3/memories/?page=&page_size=` {filters} (paginated, `next`); `DELETE /v1/memories/?user_id=`
 *   (queued: "Delete in progress"); key as `Authorization: Token <key>`.
 * Messages are Mem0's own evaluation's (evaluation/src/memzero/add.py@9315e3036^ L105-113):
 * `Name: text`, the owner's own speaker as `user`, no image captions; the session's date in metadata
 * as `timestamp` (L83), beside rawrag's own metadata.
 */
import { BadReplyError } from '../../providers/errors.js';
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, pollUntil, PollTimeout, type ServiceTransport } from '../memory-service/http.js';
import {
  AcceptedAddFailed,
  metadataOf,
  type AddCall,
  type AddHooks,
  type AddOutcome,
  type MemoryService,
  type ServiceMemory,
  type ServiceMessage,
  type ServiceProbe,
} from '../memory-service/service.js';
import { memoriesOf, ossAddOutcome, outcomeOf, platformAddReply } from './replies.js';

export type Mem0Api = 'oss' | 'platform';

export interface Mem0Options {
  api: Mem0Api;
  /** Append image captions to the text (Mem0's evaluation sends the text alone). */
  captions: boolean;
  /** Extraction instructions sent with every add (Mem0's evaluation's custom instructions), or null. */
  instructions: string | null;
  /** How long to wait for one accepted add (the platform's event) before giving up for this run (ms). */
  waitMs: number;
}

/** The OSS server's listing cap, and the library defaults an older server (no `top_k` on GET /memories) lists at. */
const OSS_LIST_MAX = 1000;
const LIBRARY_LIST_DEFAULTS = [20, 100];

/** A message as Mem0's evaluation wrote it: `Name: text` for a named speaker, the text alone for user / assistant. */
export function mem0Content(m: ServiceMessage, captions: boolean): string {
  if (captions) return m.content;
  return m.content.startsWith(`${m.speaker}: `) ? `${m.speaker}: ${m.text}` : m.text;
}

const OSS_NOTE =
  "Mem0's open-source server does not report its mem0ai version; mem0ai >= 2.0 (what a fresh server image installs: server/requirements.txt asks for mem0ai>=0.1.48) is add-only — it returns only ADD events and drops duplicates silently — so a write audit of this run can show 0 % mutations by construction. The paper's audit (UPDATE+DELETE 4.39 % of Mem0's proposals) needs a server with mem0ai < 2.0 and its proposal log (rawrag memory audit RUN --proposals FILE), or --system agentic-memory.";
const PLATFORM_NOTE =
  "Mem0's platform adds through its v3 pipeline, additive by its own description (docs/openapi.json, POST /v3/memories/add/: 'the V3 additive pipeline'): it returns only ADD events, so its write audit shows 0 % mutations by construction. Mem0's published LoCoMo figures came from the earlier add API (POST /v1/memories/ with version v2), which could UPDATE and DELETE. The paper's audit (UPDATE+DELETE 4.39 % of Mem0's proposals) needs a server with mem0ai < 2.0 and its proposal log (rawrag memory audit RUN --proposals FILE), or --system agentic-memory.";

export class Mem0Service implements MemoryService {
  readonly system = 'Mem0';
  readonly api: string;
  private readonly http: JsonService;
  /** Listings that came back at a cap (the OSS server cannot page): a lost reply was looked for by a filtered search too. */
  private cappedLists = 0;

  constructor(
    readonly url: string,
    private readonly opts: Mem0Options,
    key: string | undefined,
    private readonly transport: ServiceTransport,
  ) {
    this.api = `mem0-${opts.api}`;
    const headers: Record<string, string> = key ? (opts.api === 'platform' ? { authorization: `Token ${key}` } : { 'x-api-key': key }) : {};
    this.http = new JsonService(url, headers, transport, 'mem0');
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }

  async probe(): Promise<ServiceProbe> {
    if (this.opts.api === 'oss') return { version: null, notes: [OSS_NOTE] };
    // The SDK's own first call: a wrong key fails here, before any add.
    await this.http.request({ method: 'GET', path: '/v1/ping/' });
    return { version: 'platform v3 API', addOnly: true, notes: [PLATFORM_NOTE] };
  }

  private body(call: AddCall): Record<string, unknown> {
    return {
      messages: call.messages.map((m) => ({ role: m.role, content: mem0Content(m, this.opts.captions) })),
      user_id: call.owner,
      metadata: { ...metadataOf(call), timestamp: call.date },
    };
  }

  async addOnce(call: AddCall, hooks?: AddHooks): Promise<AddOutcome> {
    const instructions = this.opts.instructions;
    if (this.opts.api === 'oss') {
      const body = { ...this.body(call), ...(instructions ? { prompt: instructions } : {}) };
      return this.http.once<AddOutcome>({ method: 'POST', path: '/memories', body, read: ossAddOutcome });
    }
    const body = {
      ...this.body(call),
      ...(call.timestamp !== null ? { timestamp: call.timestamp } : {}),
      ...(instructions ? { custom_instructions: instructions } : {}),
    };
    const reply = await this.http.once<Record<string, unknown>>({
      method: 'POST',
      path: '/v3/memories/add/',
      body,
      read: platformAddReply,
    });
    // `infer: false` answers at once with the results; otherwise the add is queued as an event.
    if (Array.isArray(reply.results)) return outcomeOf(reply.results);
    if (typeof reply.event_id !== 'string') throw new BadReplyError('add returned no event_id', true); // checked by platformAddReply
    hooks?.accepted(reply.event_id);
    return this.awaitEvent(call, reply.event_id);
  }

  awaitAccepted(call: AddCall, ticket: string, signal?: AbortSignal): Promise<AddOutcome> {
    return this.awaitEvent(call, ticket, signal);
  }

  /** Polls the platform's event (backoff up to 5 s) until it is done; its results are the add's events. */
  private async awaitEvent(call: AddCall, id: string, signal?: AbortSignal): Promise<AddOutcome> {
    const what = `Mem0's add event ${id} (${call.key})`;
    try {
      return await pollUntil(
        async (report) => {
          const ev = await this.readEvent(call, id);
          if ('outcome' in ev) return ev.outcome;
          report(ev.status);
          return undefined;
        },
        { what, timeoutMs: this.opts.waitMs, firstMs: Math.min(500, Math.max(1, this.transport.retry.baseDelayMs)), maxMs: 5000, signal },
      );
    } catch (e) {
      if (!(e instanceof PollTimeout)) throw e;
      throw new BadReplyError(
        `${e.message}: the add was accepted and is recorded with its event; the next run (or --retry-errors) waits on it again rather than sending it twice (-S readyTimeout=SECONDS waits longer)`,
        false,
      );
    }
  }

  private async readEvent(call: AddCall, id: string): Promise<{ outcome: AddOutcome } | { status: string }> {
    let ev: Record<string, unknown> | null;
    try {
      ev = await this.http.request({ method: 'GET', path: `/v1/event/${encodeURIComponent(id)}/` });
    } catch (e) {
      if ((e as { status?: number }).status !== 404) throw e;
      // An event the platform no longer knows: the add's memories tell whether it was done.
      const found = await this.findAdd(call);
      if (found.length) return { outcome: { events: null, unread: [{ event_id: id, status: 'not found', memories_found: found }] } };
      throw new AcceptedAddFailed(`Mem0's add event ${id} is unknown to the platform and no memory holds the add`);
    }
    const status = typeof ev?.status === 'string' ? ev.status : 'without a status';
    if (status === 'SUCCEEDED') return { outcome: Array.isArray(ev!.results) ? outcomeOf(ev!.results) : { events: null, unread: [ev] } };
    if (status === 'FAILED') throw new AcceptedAddFailed(`Mem0's add event ${id} FAILED: ${String(ev!.error ?? 'no reason given')}`);
    return { status };
  }

  async search(owner: string, query: string, limit: number): Promise<ServiceMemory[]> {
    const path = this.opts.api === 'oss' ? '/search' : '/v3/memories/search/';
    // Empty, `null` or without its list: retried like a 5xx; an empty list is a valid search.
    const found = await this.http.request<ServiceMemory[]>({
      method: 'POST',
      path,
      body: { query, filters: { user_id: owner }, top_k: limit },
      read: memoriesOf,
    });
    return found.slice(0, limit);
  }

  async list(owner: string): Promise<ServiceMemory[]> {
    return (await this.listing(owner)).memories;
  }

  /** Every memory of the owner, and whether the listing may have stopped at a cap (the OSS server has no pages). */
  private async listing(owner: string): Promise<{ memories: ServiceMemory[]; capped: boolean }> {
    if (this.opts.api === 'oss') {
      const memories = await this.http.request<ServiceMemory[]>({
        method: 'GET',
        path: '/memories',
        query: { user_id: owner, top_k: String(OSS_LIST_MAX) },
        read: memoriesOf,
      });
      const capped = memories.length === OSS_LIST_MAX || LIBRARY_LIST_DEFAULTS.includes(memories.length);
      if (capped) this.cappedLists++;
      return { memories, capped };
    }
    const memories: ServiceMemory[] = [];
    for (let page = 1; page <= 10_000; page++) {
      const { got, more } = await this.http.request<{ got: ServiceMemory[]; more: boolean }>({
        method: 'POST',
        path: '/v3/memories/',
        query: { page: String(page), page_size: '100' },
        body: { filters: { user_id: owner } },
        read: (reply) => ({ got: memoriesOf(reply), more: !Array.isArray(reply) && Boolean((reply as { next?: unknown }).next) }),
      });
      memories.push(...got);
      if (!more || got.length === 0) break;
    }
    return { memories, capped: false };
  }

  /**
   * The memories holding `call`'s key. A listing that may have stopped at a cap cannot show an
   * add's absence: a search filtered on rawrag's metadata (the server passes `filters` on to its
   * vector store) looks further, with the add's first message as the query.
   */
  async findAdd(call: AddCall): Promise<string[]> {
    const { memories, capped } = await this.listing(call.owner);
    const found = memories.filter((m) => m.addKey === call.key).map((m) => m.id);
    if (found.length || !capped || this.opts.api !== 'oss') return found;
    const query = call.messages[0] ? mem0Content(call.messages[0], this.opts.captions) : call.key;
    const searched = await this.http.request<ServiceMemory[]>({
      method: 'POST',
      path: '/search',
      body: { query, filters: { user_id: call.owner, rawrag_add: call.key }, top_k: 100, threshold: 0 },
      read: memoriesOf,
    });
    return searched.filter((m) => m.addKey === call.key).map((m) => m.id);
  }

  async deleteOwner(owner: string): Promise<void> {
    const path = this.opts.api === 'oss' ? '/memories' : '/v1/memories/';
    await this.http.request({ method: 'DELETE', path, query: { user_id: owner } });
  }

  addFailure(call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: this.opts.api === 'oss' ? '/memories' : '/v3/memories/add/' }, e);
  }

  report(): Record<string, unknown> {
    return {
      sent: Object.fromEntries([...this.http.sent].sort()),
      retries: this.http.retries,
      ...(this.cappedLists ? { capped_listings: this.cappedLists } : {}),
    };
  }
}
