/**
 * A loopback MemOS server (127.0.0.1, port 0) speaking its server API (`/product` routes) as
 * MemTensor/MemOS@be68e2fb defines it, written from:
 * - src/memos/api/routers/server_router.py L111-135, L234-246, L370-400 (routes) and server_api.py
 *   (GET /health; exceptions.py: the 422 body);
 * - src/memos/api/product_models.py (request models, validated as pydantic does: a missing required
 *   field or a wrong type is a 422, extra fields — the vendor's `conversation_id` on add and
 *   search — are ignored, no request model forbids them): APISearchRequest L366-605 (query and
 *   user_id required, top_k >= 1, relativity 0.45), APIADDRequest L608-831 (every field optional;
 *   async_mode "async" | "sync", default async; mem_cube_id -> writable_cube_ids), GetMemoryRequest
 *   L943-961 (mem_cube_id required, pages from 1), DeleteMemoryRequest L970-1008; messages as
 *   src/memos/types (role user | assistant | system | tool, user content required, chat_time and
 *   message_id optional strings);
 * - multi_mem_cube/single_cube.py L59-87, L502-561, L662-845: sync adds extract and write the
 *   memories before replying; async adds write one raw "fast" memory now (tags mode:fast) and queue
 *   a MEM_READ task that later replaces it with the extracted memories
 *   (mem_read_handler.py L110-440); the reply lists {memory, memory_id, memory_type, cube_id};
 *   info is kept on each memory's metadata.info (multi_modal_struct.py L401-423);
 * - scheduler_handler.py L375-445 + status_tracker.py: /scheduler/wait polls a Redis-backed task
 *   tracker; without Redis (the default compose file) it has no tasks and answers "idle" at once;
 * - search_handler.py L67-152 and formatters_handler.py L44-250: relativity threshold, text_mem
 *   grouped by cube (an empty list when nothing is found), pref_string only when preferences were found;
 * - memory_handler.py L218-314 (get_memory: text_mem and pref_mem pages with total_nodes) and
 *   L371-479 (delete by user_id: 200 with data.status success | failure).
 * Its "extraction" is one memory per message (its text), a preference for messages that say they
 * love something; its "embedding" is word overlap. Faults come from the base class.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { RecordedRequest } from './loopback-server.js';
import { MemoryServiceFake } from './memory-service-fake.js';

const Content = z.union([z.string(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);
const Common = { chat_time: z.string().nullable().optional(), message_id: z.string().nullable().optional(), name: z.string().optional() };
const Message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: Content, ...Common }),
  z.object({ role: z.literal('system'), content: Content, ...Common }),
  z.object({ role: z.literal('assistant'), content: Content.nullable().optional(), ...Common }),
  z.object({ role: z.literal('tool'), content: Content, tool_call_id: z.string(), ...Common }),
]);
const AddRequest = z.object({
  user_id: z.string().nullable().default(null),
  session_id: z.string().nullable().default(null),
  writable_cube_ids: z.array(z.string()).nullable().default(null),
  async_mode: z.enum(['async', 'sync']).default('async'),
  mode: z.enum(['fast', 'fine']).nullable().default(null),
  custom_tags: z.array(z.string()).nullable().default(null),
  info: z.record(z.string(), z.unknown()).nullable().default(null),
  messages: z
    .union([z.string(), z.array(Message)])
    .nullable()
    .default(null),
  mem_cube_id: z.string().nullable().default(null),
});
const SearchRequest = z.object({
  query: z.string(),
  user_id: z.string(),
  readable_cube_ids: z.array(z.string()).nullable().default(null),
  mode: z.enum(['fast', 'fine', 'mixture']).default('fast'),
  session_id: z.string().nullable().default(null),
  top_k: z.number().int().min(1).default(10),
  relativity: z.number().min(0).default(0.45),
  pref_top_k: z.number().int().min(0).default(6),
  include_preference: z.boolean().default(true),
  mem_cube_id: z.string().nullable().default(null),
});
const GetMemoryRequest = z.object({
  mem_cube_id: z.string(),
  user_id: z.string().nullable().default(null),
  include_preference: z.boolean().default(true),
  include_tool_memory: z.boolean().default(true),
  include_skill_memory: z.boolean().default(true),
  page: z.number().int().nullable().default(null),
  page_size: z.number().int().nullable().default(null),
});
const DeleteRequest = z
  .object({
    writable_cube_ids: z.array(z.string()).nullable().default(null),
    memory_ids: z.array(z.string()).nullable().default(null),
    user_id: z.string().nullable().default(null),
    session_id: z.string().nullable().default(null),
    conversation_id: z.string().nullable().default(null),
  })
  .refine((d) => !(d.conversation_id && d.session_id && d.conversation_id !== d.session_id), {
    message: 'Value error, conversation_id and session_id must be the same when both are set',
  });

type Msg = z.infer<typeof Message>;

export interface StoredMemory {
  id: string;
  cube: string;
  memory: string;
  metadata: {
    user_id: string | null;
    session_id: string;
    status: 'activated' | 'archived';
    memory_type: string;
    tags: string[];
    info: Record<string, unknown>;
    sources: Array<Record<string, unknown>>;
    created_at: string;
    preference_type?: string;
    preference?: string;
  };
}

interface Task {
  id: string;
  user_id: string | null;
  cube: string;
  fastId: string;
  status: 'waiting' | 'completed';
}

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
const textOf = (m: Msg) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''));

export interface FakeMemosOptions {
  delayMs?: number;
  /** The server runs with Redis (MEMSCHEDULER_USE_REDIS_QUEUE=true): /scheduler/wait sees the tasks. */
  redis?: boolean;
  /** How long a queued MEM_READ task takes before it replaces a fast memory (ms). */
  readDelayMs?: number;
  /** get_memory pages by memory type (a Neo4j-backed server); default: every node on every page, as the postgres store answers. */
  paged?: boolean;
}

export class FakeMemos extends MemoryServiceFake {
  readonly memories = new Map<string, StoredMemory>();
  readonly tasks: Task[] = [];
  /** Searches answered while the searched cube still had queued MEM_READ work (memories not yet extracted). */
  searchesBeforeReady = 0;

  constructor(private readonly opts: FakeMemosOptions = {}) {
    super(opts.delayMs);
  }

  isAdd(r: RecordedRequest): boolean {
    return r.method === 'POST' && r.path === '/product/add';
  }

  totalHeld(): number {
    return this.memories.size;
  }

  cubeMemories(cube: string): StoredMemory[] {
    return [...this.memories.values()].filter((m) => m.cube === cube);
  }

  pending(cube: string): Task[] {
    return this.tasks.filter((t) => t.cube === cube && t.status === 'waiting');
  }

  protected override errorBody(status: number | undefined): unknown {
    return { code: status ?? 500, message: `injected ${status}`, data: null };
  }

  private invalid(method: string, path: string, error: z.ZodError): [number, unknown] {
    const detail = error.issues.map((i) => ({ type: i.code, loc: ['body', ...i.path], msg: i.message }));
    const readable = detail.map((d) => `[${d.loc.join(' -> ')}] ${d.msg} (type: ${d.type})`);
    return [422, { code: 422, message: `Parameter validation error on ${method} ${path}: ${readable.join('; ')}`, detail, data: null }];
  }

  protected route(r: RecordedRequest): [number, unknown] | Promise<[number, unknown]> {
    if (r.method === 'GET' && r.path === '/health') return [200, { status: 'healthy', service: 'memos', version: '1.0.1' }];
    if (r.method !== 'POST') return [405, { detail: 'Method Not Allowed' }];
    switch (r.path) {
      case '/product/add':
        return this.add(r);
      case '/product/search':
        return this.search(r);
      case '/product/get_memory':
        return this.getMemory(r);
      case '/product/delete_memory':
        return this.deleteMemory(r);
      case '/product/scheduler/wait':
        return this.wait(r);
      default:
        return [404, { detail: 'Not Found' }];
    }
  }

  private add(r: RecordedRequest): [number, unknown] {
    const p = AddRequest.safeParse(r.body);
    if (!p.success) return this.invalid('POST', r.path, p.error);
    const b = p.data;
    const cube = (b.writable_cube_ids?.length ? b.writable_cube_ids : b.mem_cube_id ? [b.mem_cube_id] : [b.user_id])[0];
    if (!cube) return [500, { code: 500, message: 'no cube', data: null }];
    const messages: Msg[] = typeof b.messages === 'string' ? [{ role: 'user', content: b.messages }] : (b.messages ?? []);
    const info = { ...(b.info ?? {}) };
    this.applied.push(`${cube} ${typeof info.rawrag_add === 'string' ? info.rawrag_add : JSON.stringify(messages)}`);
    const session = b.session_id ?? 'default_session';
    let written: StoredMemory[];
    if (b.async_mode === 'sync') written = this.extract(cube, b.user_id, session, messages, info);
    else {
      const fast = this.put(cube, b.user_id, session, messages.map(textOf).join('\n'), 'WorkingMemory', ['mode:fast'], info, messages);
      written = [fast];
      const task: Task = { id: randomUUID(), user_id: b.user_id, cube, fastId: fast.id, status: 'waiting' };
      this.tasks.push(task);
      setTimeout(() => this.memRead(task, messages, info), this.opts.readDelayMs ?? 50);
    }
    const data = written.map((m) => ({ memory: m.memory, memory_id: m.id, memory_type: m.metadata.memory_type, cube_id: cube }));
    return [200, { code: 200, message: 'Memory added successfully', data }];
  }

  /** The background MEM_READ: the fast memory's messages extracted, the fast memory deleted (skipped when it is gone). */
  private memRead(task: Task, messages: Msg[], info: Record<string, unknown>): void {
    const fast = this.memories.get(task.fastId);
    if (fast) {
      this.extract(task.cube, task.user_id, fast.metadata.session_id, messages, info);
      this.memories.delete(fast.id);
    }
    task.status = 'completed';
  }

  /** "Fine" extraction: a memory per message; a message that loves something also a preference. */
  private extract(cube: string, user: string | null, session: string, messages: Msg[], info: Record<string, unknown>): StoredMemory[] {
    const out: StoredMemory[] = [];
    for (const m of messages) {
      const text = textOf(m);
      out.push(this.put(cube, user, session, text, m.role === 'user' ? 'UserMemory' : 'LongTermMemory', [], info, [m]));
      if (/\blov(e|es|ed)\b/i.test(text)) {
        const pref = this.put(cube, user, session, text, 'PreferenceMemory', [], info, [m]);
        pref.metadata.preference_type = 'explicit_preference';
        pref.metadata.preference = text;
      }
    }
    return out;
  }

  private put(
    cube: string,
    user: string | null,
    session: string,
    memory: string,
    type: string,
    tags: string[],
    info: Record<string, unknown>,
    sources: Msg[],
  ): StoredMemory {
    const m: StoredMemory = {
      id: randomUUID(),
      cube,
      memory,
      metadata: {
        user_id: user,
        session_id: session,
        status: 'activated',
        memory_type: type,
        tags,
        info: { ...info },
        sources: sources.map((s) => ({ type: 'chat', role: s.role, content: textOf(s), chat_time: s.chat_time ?? null })),
        created_at: new Date().toISOString(),
      },
    };
    this.memories.set(m.id, m);
    return m;
  }

  private node(m: StoredMemory, relativity?: number): Record<string, unknown> {
    return {
      id: m.id,
      memory: m.memory,
      metadata: {
        ...m.metadata,
        embedding: [],
        usage: [],
        id: m.id,
        memory: m.memory,
        ...(relativity !== undefined ? { relativity } : {}),
      },
      ref_id: `[${m.id.split('-')[0]}]`,
    };
  }

  private search(r: RecordedRequest): [number, unknown] {
    const p = SearchRequest.safeParse(r.body);
    if (!p.success) return this.invalid('POST', r.path, p.error);
    const b = p.data;
    const cube = (b.readable_cube_ids?.length ? b.readable_cube_ids : b.mem_cube_id ? [b.mem_cube_id] : [b.user_id])[0]!;
    if (this.pending(cube).length) this.searchesBeforeReady++;
    const q = words(b.query);
    const score = (m: StoredMemory) => {
      const hit = [...words(m.memory)].filter((w) => q.has(w)).length / Math.max(1, q.size);
      return hit > 0 ? Math.round((0.5 + hit / 2) * 1e4) / 1e4 : 0.1;
    };
    const live = this.blindSearch ? [] : this.cubeMemories(cube).filter((m) => m.metadata.status === 'activated');
    const ranked = (types: string[], k: number) =>
      live
        .filter((m) => types.includes(m.metadata.memory_type))
        .map((m) => ({ m, s: score(m) }))
        .filter((x) => x.s >= b.relativity)
        .sort((x, y) => y.s - x.s || (x.m.id < y.m.id ? -1 : 1))
        .slice(0, k);
    const text = ranked(['WorkingMemory', 'LongTermMemory', 'UserMemory', 'OuterMemory', 'RawFileMemory'], b.top_k);
    const prefs = b.include_preference ? ranked(['PreferenceMemory'], b.pref_top_k) : [];
    const data: Record<string, unknown> = {
      text_mem: text.length ? [{ cube_id: cube, memories: text.map((x) => this.node(x.m, x.s)) }] : [],
      act_mem: [],
      para_mem: [],
      pref_mem: [{ cube_id: cube, memories: prefs.map((x) => this.node(x.m, x.s)), total_nodes: prefs.length }],
      pref_note: '',
      tool_mem: [{ cube_id: cube, memories: [], total_nodes: 0 }],
      skill_mem: [{ cube_id: cube, memories: [], total_nodes: 0 }],
    };
    if (prefs.length) {
      const note = 'When answering, follow the preferences above.';
      data.pref_string = `Explicit Preference:\n${prefs.map((x, i) => `${i + 1}. ${x.m.metadata.preference}`).join('\n')}\n${note}`;
      data.pref_note = note;
    }
    return [200, { code: 200, message: 'Search completed successfully', data }];
  }

  /**
   * As MemOS's server answers it over its postgres graph store (memory_handler.py L218-314 over
   * graph_dbs/postgres.py export_graph, compared with MemoryOS 2.0.32 in tests/real/memos.test.ts):
   * page, page_size and the memory type are ignored, so every page, and pref_mem as well as
   * text_mem, holds every node of the cube (`paged: true` pages by type as the Neo4j store does).
   */
  private getMemory(r: RecordedRequest): [number, unknown] {
    const p = GetMemoryRequest.safeParse(r.body);
    if (!p.success) return this.invalid('POST', r.path, p.error);
    const b = p.data;
    const paged = this.opts.paged === true;
    const group = (types: string[]) => {
      const all = this.cubeMemories(b.mem_cube_id).filter((m) => !paged || types.includes(m.metadata.memory_type));
      const page =
        paged && b.page !== null && b.page_size !== null
          ? all.slice((Math.max(1, b.page) - 1) * b.page_size, Math.max(1, b.page) * b.page_size)
          : all;
      return [{ cube_id: b.mem_cube_id, memories: page.map((m) => this.node(m)), total_nodes: all.length }];
    };
    const data = {
      text_mem: group(['WorkingMemory', 'LongTermMemory', 'UserMemory', 'OuterMemory']),
      pref_mem: b.include_preference ? group(['PreferenceMemory']) : [],
      tool_mem: b.include_tool_memory ? group(['ToolSchemaMemory', 'ToolTrajectoryMemory']) : [],
      skill_mem: b.include_skill_memory ? group(['SkillMemory']) : [],
    };
    return [200, { code: 200, message: 'Memories retrieved successfully', data }];
  }

  private deleteMemory(r: RecordedRequest): [number, unknown] {
    const p = DeleteRequest.safeParse(r.body);
    if (!p.success) return this.invalid('POST', r.path, p.error);
    const b = p.data;
    const session = b.session_id ?? b.conversation_id;
    const byFilter = b.user_id !== null || session !== null;
    if ([b.memory_ids !== null, byFilter].filter(Boolean).length !== 1)
      return [
        200,
        {
          code: 200,
          message: 'Exactly one delete mode must be provided: memory_ids, file_ids, or filter/user_id/session_id.',
          data: { status: 'failure' },
        },
      ];
    for (const m of [...this.memories.values()]) {
      const hit = b.memory_ids
        ? b.memory_ids.includes(m.id)
        : (b.user_id === null || m.metadata.user_id === b.user_id) &&
          (session === null || m.metadata.session_id === session) &&
          (!b.writable_cube_ids?.length || b.writable_cube_ids.includes(m.cube));
      if (hit) this.memories.delete(m.id);
    }
    // A delete by user or session then reads naive_mem_cube.pref_mem, which the server's cube lacks
    // (memory_handler.py L452): the memories are gone, the reply says failure (as MemoryOS 2.0.32 answers).
    if (byFilter && !b.memory_ids) return [200, { code: 200, message: 'Failed to delete memories', data: { status: 'failure' } }];
    return [200, { code: 200, message: 'Memories deleted successfully', data: { status: 'success' } }];
  }

  /** /scheduler/wait: blocks until the user's tracked tasks are done or the timeout passes; no Redis, no tasks: idle at once. */
  private async wait(r: RecordedRequest): Promise<[number, unknown]> {
    const user = r.query.user_name;
    if (!user)
      return [
        422,
        {
          code: 422,
          message: 'Parameter validation error on POST /product/scheduler/wait: [query -> user_name] Field required (type: missing)',
          data: null,
        },
      ];
    const timeout = Number(r.query.timeout_seconds ?? 120);
    const poll = Number(r.query.poll_interval ?? 0.5);
    if (!Number.isFinite(timeout) || !Number.isFinite(poll))
      return [422, { code: 422, message: 'Parameter validation error: timeout_seconds / poll_interval must be numbers', data: null }];
    const started = Date.now();
    const active = () => (this.opts.redis ? this.tasks.filter((t) => t.user_id === user && t.status === 'waiting').length : 0);
    while (active() > 0 && Date.now() - started < timeout * 1000) await new Promise((res) => setTimeout(res, Math.min(poll * 1000, 20)));
    const running = active();
    const waited = Math.round(Date.now() - started) / 1000;
    return [
      200,
      {
        message: running ? 'timeout' : 'idle',
        data: { running_tasks: running, waited_seconds: waited, timed_out: running > 0, user_name: user },
      },
    ];
  }
}
