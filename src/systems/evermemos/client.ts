/**
 * EverMemOS's REST API v1 (EverCore) as a MemoryService, read from EverMind-AI/EverMemOS@e37205f5
 * (methods/EverCore/src/infra_layer/adapters/input/api/memory/*_controller.py, src/api_specs/dtos):
 * - an owner is a group (`group_id`): the whole conversation is one group stream;
 * - add: `POST /api/v1/memories/group {group_id, messages}` (GroupAddRequest: 1-500 MessageItems,
 *   sender_id required) answered `{data: {request_id, message_count, status: "accumulated" |
 *   "extracted", message}}`: the messages are stored as raw messages and pass boundary detection;
 *   a boundary turns the window before it into a MemCell and its episodes, in the request;
 * - readiness: `POST /group/flush {group_id}` extracts whatever is still accumulated, in the
 *   request (`data.status` "extracted" | "no_extraction"): searchable once it answers;
 * - search: `POST /search {query, method, memory_types, top_k, filters: {group_id}}` answered
 *   `{data: {episodes, profiles, raw_messages, ...}}`;
 * - list: `POST /get {memory_type: "episodic_memory", filters, page (from 1), page_size <= 100}`
 *   answered `{data: {episodes, total_count, count}}`;
 * - delete: `POST /delete {group_id}` (204), a soft delete of the group's episodes, atomic facts and
 *   foresights; raw messages and MemCells are kept (memcell_delete_service.py L224-262), so a flush
 *   first turns anything still accumulated into episodes the delete then removes.
 * No authentication upstream (default_auth "none"); a key, when set, goes as a Bearer token (a
 * proxy in front of it), as the vendor's HTTP adapter sends its api_key.
 */
import { BadReplyError } from '../../providers/errors.js';
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, statusOf, type ServiceTransport } from '../memory-service/http.js';
import type { AddCall, AddOutcome, MemoryService, ServiceMemory, ServiceProbe, ServiceSearch } from '../memory-service/service.js';
import { episodeMemory, messagesOf, timestampsMs } from './wire.js';

export type SearchMethod = 'keyword' | 'vector' | 'hybrid' | 'agentic';

export interface EverMemosOptions {
  method: SearchMethod;
  memoryTypes: string[];
  stepSeconds: number;
  fitToGap: number;
}

/** Episodes per listing page (GetMemRequest.page_size: at most 100). */
const PAGE = 100;
/** Raw messages a pending-message search returns at most (SearchMemoriesRequest.top_k <= 100). */
const PENDING = 100;

interface Envelope {
  data?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A reply's `data` object, read inside the attempt (JsonService's `read`): a reply without it, or
 * without the list `list` names, is a broken reply retried like a 5xx (issue 42); an empty list is valid.
 */
function dataOf<T>(what: string, list?: string): (reply: unknown) => T {
  return (reply) => {
    const d = (reply as Envelope | null)?.data;
    if (!isObject(d)) throw new BadReplyError(`${what} answered no data: ${JSON.stringify(reply)?.slice(0, 200)}`, true);
    if (list !== undefined && !Array.isArray(d[list]))
      throw new BadReplyError(`${what} answered no ${list} list: ${JSON.stringify(d).slice(0, 200)}`, true);
    return d as T;
  };
}

/** An add's or a flush's `data.status`: missing, it is a broken reply (retried); one of `known`, it is read. */
function statusRead(what: string, known: string[]): (reply: unknown) => string {
  return (reply) => {
    const d = dataOf<{ status?: unknown }>(what)(reply);
    if (typeof d.status !== 'string') throw new BadReplyError(`${what} answered no status: ${JSON.stringify(d).slice(0, 200)}`, true);
    if (!known.includes(d.status))
      throw new BadReplyError(`${what} answered status ${JSON.stringify(d.status)} (expected ${known.join(' or ')})`, false);
    return d.status;
  };
}

export class EverMemosService implements MemoryService {
  readonly system = 'EverMemOS';
  readonly api = 'evermemos-v1';
  private readonly http: JsonService;
  private readonly root: JsonService;

  constructor(
    readonly url: string,
    key: string | undefined,
    private readonly transport: ServiceTransport,
    private readonly opts: EverMemosOptions,
  ) {
    const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
    const base = url.replace(/\/+$/, '');
    this.http = new JsonService(`${base}/api/v1/memories`, headers, transport, 'evermemos');
    // /health sits outside the memories prefix (health_controller.py).
    this.root = new JsonService(base, headers, transport, 'evermemos');
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }


  async probe(): Promise<ServiceProbe> {
    const h = (await this.root.request({ method: 'GET', path: '/health' })) as { status?: unknown; version?: unknown } | null;
    const notes = [
      'EverMemOS: each conversation is one group; its memories are extracted at boundaries the server detects and by the flush after the last add, before any question is searched',
    ];
    return { version: typeof h?.version === 'string' ? h.version : null, notes, addOnly: true };
  }

  async addOnce(call: AddCall): Promise<AddOutcome> {
    await this.http.once({
      method: 'POST',
      path: '/group',
      body: { group_id: call.owner, messages: messagesOf(call, this.opts) },
      read: statusRead('group add', ['accumulated', 'extracted']),
    });
    // The reply names no memory: episodes appear at a boundary, whichever add (or the flush) finds it.
    return { events: null };
  }

  /** The flush: extraction of whatever the group still accumulates, done before the reply. */
  async awaitReady(owner: string): Promise<void> {
    await this.http.request({
      method: 'POST',
      path: '/group/flush',
      body: { group_id: owner },
      read: statusRead('group flush', ['extracted', 'no_extraction']),
    });
  }

  /**
   * Whether an add whose reply was lost was done: its messages are still pending in the group (a
   * raw-message search lists them with their message ids), or a boundary already folded them into
   * a MemCell — whose episodes are stamped with the MemCell's last message's time
   * (conv_memcell_extractor.py L228-240, every MemCell is made there; episode_memory_extractor.py
   * L234, L328), so one stamped within the call's span holds some of them. `/get` filters on
   * `timestamp` with gte / lte in epoch ms (memory_get_controller.py L58-68).
   */
  async findAdd(call: AddCall): Promise<string[]> {
    const ids = new Set(call.messages.map((m) => m.turnId));
    const pending = await this.http.request<{ raw_messages?: unknown[] }>({
      method: 'POST',
      path: '/search',
      body: {
        query: call.messages[0]?.text || call.key,
        method: 'keyword',
        memory_types: ['raw_message'],
        top_k: PENDING,
        filters: { group_id: call.owner },
      },
      read: dataOf('raw message search'),
    });
    const found = (pending.raw_messages ?? [])
      .map((r) => (r as { message_id?: unknown })?.message_id)
      .filter((id): id is string => typeof id === 'string' && ids.has(id));
    if (found.length) return found;
    const stamps = timestampsMs(call, this.opts.stepSeconds, this.opts.fitToGap);
    const folded = await this.page(call.owner, 1, { timestamp: { gte: Math.min(...stamps), lte: Math.max(...stamps) } });
    return folded.episodes.map((e) => (e as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string');
  }

  async search(owner: string, query: string, limit: number): Promise<ServiceSearch> {
    const d = await this.http.request<{ episodes: unknown[] }>({
      method: 'POST',
      path: '/search',
      body: { query, method: this.opts.method, memory_types: this.opts.memoryTypes, top_k: limit, filters: { group_id: owner } },
      read: dataOf('search', 'episodes'),
    });
    return { memories: d.episodes.map(episodeMemory).filter((m): m is ServiceMemory => m !== null) };
  }

  private async page(owner: string, page: number, extra: Record<string, unknown> = {}): Promise<{ episodes: unknown[]; total: number }> {
    const d = await this.http.request<{ episodes: unknown[]; total_count?: unknown }>({
      method: 'POST',
      path: '/get',
      body: {
        memory_type: 'episodic_memory',
        filters: { group_id: owner, ...extra },
        page,
        page_size: PAGE,
        rank_by: 'timestamp',
        rank_order: 'asc',
      },
      read: dataOf('get', 'episodes'),
    });
    return { episodes: d.episodes, total: typeof d.total_count === 'number' ? d.total_count : d.episodes.length };
  }

  async list(owner: string): Promise<ServiceMemory[]> {
    const out: ServiceMemory[] = [];
    for (let page = 1; ; page++) {
      const { episodes, total } = await this.page(owner, page);
      out.push(...episodes.map(episodeMemory).filter((m): m is ServiceMemory => m !== null));
      if (episodes.length < PAGE || page * PAGE >= total) return out;
    }
  }

  /**
   * Flush, then the soft delete of the group: raw messages are not deleted by filters, so the
   * flush first turns any still accumulated (a killed ingest) into episodes the delete removes.
   */
  async deleteOwner(owner: string): Promise<string[]> {
    await this.awaitReady(owner);
    try {
      await this.http.request({ method: 'POST', path: '/delete', body: { group_id: owner } });
    } catch (e) {
      if (statusOf(e) !== 404) throw e;
    }
    return [`the episodes of group '${owner}' (a soft delete: the server keeps its raw messages and MemCells)`];
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: '/group' }, e);
  }

  report(): Record<string, unknown> {
    const sent = new Map([...this.http.sent].map(([k, v]) => [k.replace(' /', ' /api/v1/memories/'), v] as const));
    for (const [k, v] of this.root.sent) sent.set(k, v);
    return { sent: Object.fromEntries([...sent].sort()), retries: this.http.retries + this.root.retries };
  }
}
