/**
 * MemOS's server API (`/product` routes, src/memos/api/routers/server_router.py) as a MemoryService,
 * read from MemTensor/MemOS@be68e2fb:
 * - add: `POST /product/add {user_id, mem_cube_id, conversation_id, messages, async_mode, info}`
 *   (APIADDRequest, product_models.py L608-831: extra fields are ignored — `conversation_id`, which
 *   the vendor's client sends, is not one of its fields; `mem_cube_id` becomes `writable_cube_ids`);
 *   answered `{code, message: "Memory added successfully", data: [{memory, memory_id, memory_type,
 *   cube_id}]}` (multi_mem_cube/single_cube.py L662-845). With `async_mode: "sync"` the memories are
 *   extracted and written before the reply; with "async" (the default) raw "fast" memories are
 *   written, and a background MEM_READ task replaces them with the extracted ones later;
 * - readiness in async mode: `POST /product/scheduler/wait?user_name=&timeout_seconds=` answers
 *   `{message: "idle" | "timeout"}` (scheduler_handler.py L375-445) from a Redis-backed task tracker;
 * - search: `POST /product/search {query, user_id, mem_cube_id, top_k, mode, include_preference,
 *   pref_top_k}` answered `data.text_mem[].memories[]` and, when preferences were found, `data.pref_string`;
 * - list: `POST /product/get_memory {mem_cube_id, user_id, page, page_size}` (pages from 1,
 *   `total_nodes`); delete: `POST /product/delete_memory {user_id, writable_cube_ids}`, answered
 *   200 with `data.status` "success" or "failure".
 * The key, when set, is sent as the vendor's client sends it: the bare `Authorization` header.
 */
import { BadReplyError } from '../../providers/errors.js';
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, pollUntil, type ServiceTransport } from '../memory-service/http.js';
import {
  metadataOf,
  type AddCall,
  type AddEvent,
  type AddOutcome,
  type MemoryService,
  type ServiceMemory,
  type ServiceProbe,
  type ServiceSearch,
} from '../memory-service/service.js';
import { addReply, deleteStatus, listReply, searchReply } from './replies.js';
import { conversationIdOf, isLive, messagesOf, nodeMemory } from './wire.js';

export type ReadyMode = 'sync' | 'wait';

export interface MemosOptions {
  ready: ReadyMode;
  mode: 'fast' | 'fine' | 'mixture';
  includePreference: boolean;
  prefTopK: number;
  /** The search's relativity threshold; null: not sent (the server's default, 0.45). */
  relativity: number | null;
}

/** Nodes per listing page. */
const PAGE = 100;


export class MemosService implements MemoryService {
  readonly system = 'MemOS';
  readonly api = 'memos-server-api';
  private readonly http: JsonService;

  constructor(
    readonly url: string,
    key: string | undefined,
    private readonly transport: ServiceTransport,
    private readonly opts: MemosOptions,
  ) {
    this.http = new JsonService(url, key ? { authorization: key } : {}, transport, 'memos');
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }


  async probe(): Promise<ServiceProbe> {
    const h = (await this.http.request({ method: 'GET', path: '/health' })) as { version?: unknown } | null;
    const notes =
      this.opts.ready === 'wait'
        ? [
            "MemOS readiness by /product/scheduler/wait (-S ready=wait): its task tracker is Redis-backed (MEMSCHEDULER_USE_REDIS_QUEUE=true); without Redis the server answers 'idle' at once, and searches may see raw memories the background extraction has not replaced yet",
          ]
        : [];
    return { version: typeof h?.version === 'string' ? h.version : null, notes };
  }

  async addOnce(call: AddCall): Promise<AddOutcome> {
    const body = {
      messages: messagesOf(call),
      user_id: call.owner,
      mem_cube_id: call.owner,
      conversation_id: conversationIdOf(call),
      ...(this.opts.ready === 'sync' ? { async_mode: 'sync' } : {}),
      info: metadataOf(call),
    };
    // An empty or null reply, another message or no data list: retried like a 5xx (the add looked for first).
    const data = await this.http.once<unknown[]>({ method: 'POST', path: '/product/add', body, read: addReply });
    // Async adds answer with raw memories the background extraction deletes later: no event to keep.
    if (this.opts.ready !== 'sync') return { events: null };
    const events: AddEvent[] = [];
    const unread: unknown[] = [];
    for (const d of data) {
      const o = (d ?? {}) as { memory_id?: unknown; memory?: unknown };
      if (typeof o.memory_id === 'string')
        events.push({ id: o.memory_id, event: 'ADD', memory: typeof o.memory === 'string' ? o.memory : null, previous: null });
      else unread.push(d);
    }
    return { events, ...(unread.length ? { unread } : {}) };
  }

  /** Async mode: until the scheduler says the owner's background tasks are done, bounded by `timeoutMs`. */
  async awaitReady(owner: string, _calls: readonly AddCall[], timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.opts.ready !== 'wait') return;
    const started = Date.now();
    // Each wait blocks on the server: keep it well inside this process's own request timeout.
    const perCall = Math.max(0.1, Math.min(60, this.transport.timeoutMs / 2000));
    await pollUntil(
      async (report) => {
        const left = Math.max(0.1, (timeoutMs - (Date.now() - started)) / 1000);
        const r = (await this.http.request({
          method: 'POST',
          path: '/product/scheduler/wait',
          query: { user_name: owner, timeout_seconds: String(Math.min(perCall, left)) },
        })) as { message?: unknown; data?: { running_tasks?: unknown } } | null;
        if (r?.message === 'idle') return true;
        report(`busy (${String(r?.data?.running_tasks ?? '?')} tasks running)`);
        return undefined;
      },
      { what: `MemOS scheduler for '${owner}'`, timeoutMs, firstMs: 100, maxMs: 1000, signal },
    );
  }

  async search(owner: string, query: string, limit: number): Promise<ServiceSearch> {
    const body = {
      query,
      user_id: owner,
      mem_cube_id: owner,
      conversation_id: '',
      top_k: limit,
      mode: this.opts.mode,
      include_preference: this.opts.includePreference,
      pref_top_k: this.opts.prefTopK,
      ...(this.opts.relativity !== null ? { relativity: this.opts.relativity } : {}),
    };
    const { groups, prefString } = await this.http.request<ReturnType<typeof searchReply>>({ method: 'POST', path: '/product/search', body, read: searchReply });
    // One cube is searched: text_mem holds at most one group (none when nothing was found).
    const nodes = (groups as Array<{ memories?: unknown }>).flatMap((g) => (Array.isArray(g?.memories) ? g.memories : []));
    return {
      memories: nodes.map(nodeMemory).filter((m): m is ServiceMemory => m !== null),
      appendix: prefString,
    };
  }

  /**
   * Every live memory of `owner`, each once. MemOS's postgres graph store (graph_dbs/postgres.py
   * export_graph) ignores page, page_size and the memory type: each page, and the pref_mem group as
   * well as text_mem, holds every node. So a memory is kept once by id, and the listing stops at a
   * page that brings nothing new (as well as at a short or last page).
   */
  async list(owner: string): Promise<ServiceMemory[]> {
    const out = new Map<string, ServiceMemory>();
    for (let page = 1; ; page++) {
      const data = await this.http.request<Record<string, unknown>>({
        method: 'POST',
        path: '/product/get_memory',
        body: { mem_cube_id: owner, user_id: owner, include_tool_memory: false, include_skill_memory: false, page, page_size: PAGE },
        read: listReply,
      });
      const before = out.size;
      let seen = 0;
      let total = 0;
      for (const kind of ['text_mem', 'pref_mem']) {
        const group = (Array.isArray(data[kind]) ? (data[kind] as unknown[])[0] : undefined) as
          { memories?: unknown; total_nodes?: unknown } | undefined;
        const nodes = Array.isArray(group?.memories) ? (group!.memories as unknown[]) : [];
        seen = Math.max(seen, nodes.length);
        total = Math.max(total, typeof group?.total_nodes === 'number' ? group.total_nodes : 0);
        for (const n of nodes.filter(isLive)) {
          const m = nodeMemory(n);
          if (m && !out.has(m.id)) out.set(m.id, m);
        }
      }
      if (seen < PAGE || page * PAGE >= total || out.size === before) return [...out.values()];
    }
  }

  /**
   * Deletes `owner`'s memories by user (the vendor's way). MemOS's server (memory_handler.py
   * handle_delete_memories, at be68e2fb L452 and in 2.0.32) deletes them and then reads
   * `naive_mem_cube.pref_mem`, which the server's NaiveMemCube no longer has: it answers
   * "failure" after deleting. So a failure is checked by listing what is left, and what is left is
   * deleted by its ids (a delete that never touches pref_mem); only a failure then is one.
   */
  async deleteOwner(owner: string): Promise<void> {
    const status = await this.deleteBy({ user_id: owner, writable_cube_ids: [owner] });
    if (status === 'success') return;
    const left = await this.list(owner);
    if (left.length === 0) return;
    const again = await this.deleteBy({ memory_ids: left.map((m) => m.id), writable_cube_ids: [owner] });
    if (again !== 'success')
      throw new BadReplyError(
        `MemOS delete of '${owner}' answered data.status "${status}", and the delete of its ${left.length} memories left by id "${again}" (expected "success")`,
        false,
      );
  }

  private deleteBy(body: Record<string, unknown>): Promise<string> {
    return this.http.request<string>({ method: 'POST', path: '/product/delete_memory', body, read: deleteStatus });
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: '/product/add' }, e);
  }

  report(): Record<string, unknown> {
    return { sent: Object.fromEntries([...this.http.sent].sort()), retries: this.http.retries };
  }
}
