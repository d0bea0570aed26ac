/**
 * A loopback EverMemOS (EverCore) server (127.0.0.1, port 0) speaking REST API v1 as
 * EverMind-AI/EverMemOS@e37205f5 (methods/EverCore/) defines it, written from:
 * - src/infra_layer/adapters/input/api/memory/memory_controller.py (prefix /api/v1/memories; group
 *   add L235-380 answered `{data: {request_id, message_count, status, message}}`; group flush
 *   L438-488; delete L999-1020, 204), memory_search_controller.py L158-229 (POST /search),
 *   memory_get_controller.py L168-203 (POST /get), health/health_controller.py (GET /health);
 * - src/api_specs/dtos/memory.py: MessageItem L359-388 (role and timestamp required, content a
 *   non-empty string or content items), GroupAddRequest L401-418 (1-500 messages, sender_id on
 *   each), GroupFlushRequest L511-514, GetMemRequest L1006-1071 (page from 1, page_size <= 100,
 *   user_id or group_id in filters), SearchMemoriesRequest L1267-1398 (method keyword | vector |
 *   hybrid | agentic, memory_types from four, top_k -1 or 1-100, filters scoped); dtos/memory_delete.py
 *   (memory_id, or user_id / group_id filters). No model forbids extra fields: pydantic ignores them;
 *   a missing or wrong field is a 422 in the global handler's shape (global_exception_handler.py L43-65);
 * - src/api_specs/request_converter.py L346-436 and id_generator.py L135-157 (timestamp 0 refused,
 *   role user | assistant, ids with the reserved `gen_` prefix refused: 422);
 * - src/biz_layer/mem_memorize.py L1676-1860: messages accumulate until a boundary; the window before
 *   it becomes a MemCell whose episodes are written in the request; a flush consumes the whole
 *   window; a MemCell is stamped with its last message's time (conv_memcell_extractor.py L228-240);
 * - search_mem_service.py L926-977 (raw_message: the group's pending messages, top_k of them) and
 *   memcell_delete_service.py L224-262 (a delete by filters soft-deletes episodes; raw messages stay).
 * Its boundary detector is a rule (an hour's silence, or a full window) where upstream asks an LLM;
 * its episode is the window's lines; its retrieval is word overlap. Faults come from the base class.
 */
import { z } from 'zod';
import type { RecordedRequest } from './loopback-server.js';
import { MemoryServiceFake } from './memory-service-fake.js';

const ContentItem = z.object({ type: z.string(), text: z.string().nullable().optional() });
/** MessageItem: `content` a non-empty string (coerced to one text item) or a non-empty list of items. */
const MessageItem = z.object({
  message_id: z.string().nullable().optional(),
  sender_id: z.string().nullable().optional(),
  sender_name: z.string().nullable().optional(),
  role: z.string(),
  timestamp: z.number().int(),
  content: z.union([z.string().min(1, 'messages[].content must not be empty'), z.array(ContentItem).min(1)]),
});
const GroupAddRequest = z
  .object({
    group_id: z.string(),
    group_meta: z.record(z.string(), z.unknown()).nullable().optional(),
    messages: z.array(MessageItem).min(1).max(500),
  })
  .superRefine((v, ctx) =>
    v.messages.forEach((m, i) => {
      if (!m.sender_id) ctx.addIssue({ code: 'custom', message: `messages[${i}].sender_id is required for group add` });
    }),
  );
const GroupFlushRequest = z.object({ group_id: z.string() });
const scoped = (f: Record<string, unknown>) => 'user_id' in f || 'group_id' in f;
const SearchMemoriesRequest = z
  .object({
    query: z.string().min(1),
    method: z.string().default('hybrid'),
    memory_types: z.array(z.string()).default(['episodic_memory', 'profile']),
    top_k: z.number().int().min(-1).max(100).default(-1),
    radius: z.number().min(0).max(1).nullable().optional(),
    include_original_data: z.boolean().default(false),
    filters: z.record(z.string(), z.unknown()),
  })
  .superRefine((v, ctx) => {
    if (!['keyword', 'vector', 'hybrid', 'agentic'].includes(v.method))
      ctx.addIssue({ code: 'custom', message: `Unknown method: '${v.method}'. Allowed: agentic, hybrid, keyword, vector` });
    const bad = v.memory_types.filter((t) => !['episodic_memory', 'profile', 'raw_message', 'agent_memory'].includes(t));
    if (bad.length)
      ctx.addIssue({ code: 'custom', message: `memory_types must be from: agent_memory, episodic_memory, profile, raw_message` });
    if (!scoped(v.filters)) ctx.addIssue({ code: 'custom', message: "filters must contain at least one of 'user_id' or 'group_id'" });
    if (v.top_k === 0) ctx.addIssue({ code: 'custom', message: 'top_k must be -1 (return all results) or a positive integer (1-100)' });
  });
const GetMemRequest = z
  .object({
    memory_type: z.enum(['episodic_memory', 'profile', 'agent_case', 'agent_skill']),
    page: z.number().int().min(1).default(1),
    page_size: z.number().int().min(1).max(100).default(20),
    rank_by: z.string().default('timestamp'),
    rank_order: z.enum(['asc', 'desc']).default('desc'),
    filters: z.record(z.string(), z.unknown()),
  })
  .superRefine((v, ctx) => {
    if (!scoped(v.filters))
      ctx.addIssue({ code: 'custom', message: "filters must contain at least one of 'user_id' or 'group_id' at first level" });
  });
const ALL = '__all__';
const DeleteMemoriesRequest = z
  .object({
    memory_id: z.string().nullable().default(null),
    user_id: z.string().nullable().default(ALL),
    group_id: z.string().nullable().default(ALL),
    session_id: z.string().nullable().default(ALL),
    sender_id: z.string().nullable().default(ALL),
  })
  .superRefine((v, ctx) => {
    if (v.memory_id !== null && [v.user_id, v.group_id, v.session_id, v.sender_id].some((f) => f !== ALL))
      ctx.addIssue({
        code: 'custom',
        message: 'When memory_id is provided, no other fields (user_id, group_id, session_id, sender_id) are allowed',
      });
    if (v.memory_id === null && v.user_id === ALL && v.group_id === ALL)
      ctx.addIssue({ code: 'custom', message: 'Either memory_id must be provided, or at least one of user_id / group_id is required' });
  });

interface RawMessage {
  id: string;
  message_id: string;
  group_id: string;
  sender_id: string;
  sender_name: string;
  content: string;
  ms: number;
}

interface Episode {
  id: string;
  group_id: string;
  ms: number;
  participants: string[];
  sender_ids: string[];
  subject: string;
  summary: string;
  episode: string;
  parent_id: string;
  deleted: boolean;
}

/** Python's aware datetime.isoformat() in UTC (microseconds only when there are any). */
function isoOf(ms: number): string {
  const d = new Date(ms).toISOString();
  const frac = ms % 1000 ? `.${String(ms % 1000).padStart(3, '0')}000` : '';
  return `${d.slice(0, 19)}${frac}+00:00`;
}

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/** A filter value as a predicate: a plain value is eq, `{in: [...]}`, or a range `{gt, gte, lt, lte}`. */
function matches(cond: unknown, value: string | number | null): boolean {
  if (cond === null || typeof cond !== 'object') return cond === value;
  const c = cond as Record<string, unknown>;
  if (Array.isArray(c.in)) return c.in.includes(value);
  const num = (v: unknown) => (typeof v === 'number' ? (v > 1e12 ? v : v * 1000) : typeof v === 'string' ? Date.parse(v) : NaN);
  const x = value as number;
  return (
    (c.gt === undefined || x > num(c.gt)) &&
    (c.gte === undefined || x >= num(c.gte)) &&
    (c.lt === undefined || x < num(c.lt)) &&
    (c.lte === undefined || x <= num(c.lte))
  );
}

export interface FakeEverMemosOptions {
  delayMs?: number;
  /** Messages a window holds before it is cut whatever the detector says (upstream: a message / token limit). */
  windowLimit?: number;
  /** Silence that ends a window (ms): the rule standing in for upstream's LLM boundary detection. */
  boundaryGapMs?: number;
}

export class FakeEverMemos extends MemoryServiceFake {
  readonly raw: RawMessage[] = [];
  /** Each group's accumulated window (raw message ids, in order): what a boundary or a flush consumes. */
  readonly windows = new Map<string, string[]>();
  readonly episodes: Episode[] = [];
  /** Question searches (episodic) that reached a group still holding accumulated messages. */
  searchesBeforeReady = 0;
  private nextId = 1;

  constructor(private readonly opts: FakeEverMemosOptions = {}) {
    super(opts.delayMs);
  }

  isAdd(r: RecordedRequest): boolean {
    return r.method === 'POST' && r.path === '/api/v1/memories/group';
  }

  /** Live episodes and messages still accumulated (the delete keeps raw messages: they would surface at the next extraction). */
  totalHeld(): number {
    return this.episodes.filter((e) => !e.deleted).length + [...this.windows.values()].reduce((n, w) => n + w.length, 0);
  }

  private objectId(): string {
    return (this.nextId++).toString(16).padStart(24, '0');
  }

  protected override errorBody(status: number | undefined): unknown {
    return this.error(status ?? 500, status === 429 ? 'Too Many Requests' : 'Internal server error', '');
  }

  private error(status: number, message: string, path: string): unknown {
    const code = status === 422 || status === 400 || status === 404 ? 'HTTP_ERROR' : 'SYSTEM_ERROR';
    return { code, message, request_id: 'req_loopback', timestamp: new Date().toISOString().replace('Z', '+00:00'), path };
  }

  private invalid(error: z.ZodError, path: string): [number, unknown] {
    const first = error.issues[0]!;
    const loc = first.path.join(' -> ');
    return [422, this.error(422, loc ? `${first.message}: ${loc}` : first.message, path)];
  }

  protected route(r: RecordedRequest): [number, unknown] {
    if (r.method === 'GET' && r.path === '/health')
      return [200, { status: 'healthy', timestamp: new Date().toISOString(), message: 'System running normally' }];
    if (r.method !== 'POST') return [405, { detail: 'Method Not Allowed' }];
    if (r.body === null || typeof r.body !== 'object') return [400, this.error(400, 'Invalid JSON request body', r.path)];
    switch (r.path) {
      case '/api/v1/memories/group':
        return this.add(r.body, r.path);
      case '/api/v1/memories/group/flush':
        return this.flush(r.body, r.path);
      case '/api/v1/memories/search':
        return this.search(r.body, r.path);
      case '/api/v1/memories/get':
        return this.get(r.body, r.path);
      case '/api/v1/memories/delete':
        return this.delete(r.body, r.path);
      default:
        return [404, this.error(404, 'Not Found', r.path)];
    }
  }

  private add(body: unknown, path: string): [number, unknown] {
    const p = GroupAddRequest.safeParse(body);
    if (!p.success) return this.invalid(p.error, path);
    // request_converter.py: the checks after the model's.
    const refuse = (message: string): [number, unknown] => [422, this.error(422, message, path)];
    if (p.data.group_id.startsWith('gen_') || !p.data.group_id) return refuse('group_id must not start with reserved prefix');
    for (const m of p.data.messages) {
      if (!m.timestamp) return refuse('Missing required field: messages[].timestamp');
      if (m.role !== 'user' && m.role !== 'assistant')
        return refuse(`Invalid value for messages[].role: '${m.role}'. Must be 'user' or 'assistant'`);
      if (m.message_id?.startsWith('gen_') || m.sender_id!.startsWith('gen_')) return refuse('ids must not start with reserved prefix');
    }
    const group = p.data.group_id;
    const window = this.windows.get(group) ?? [];
    this.windows.set(group, window);
    let extracted = 0;
    for (const m of p.data.messages) {
      const content = typeof m.content === 'string' ? m.content : m.content.map((c) => c.text ?? '').join(' ');
      const msg: RawMessage = {
        id: this.objectId(),
        message_id: m.message_id ?? `gen_msg_${group}_${m.timestamp}`,
        group_id: group,
        sender_id: m.sender_id!,
        sender_name: m.sender_name ?? m.sender_id!,
        content,
        ms: m.timestamp,
      };
      // The boundary comes before the new message: the window so far becomes a MemCell.
      const last = this.raw.find((x) => x.id === window[window.length - 1]);
      const gap = this.opts.boundaryGapMs ?? 3_600_000;
      if (last && (msg.ms - last.ms >= gap || window.length >= (this.opts.windowLimit ?? 40))) extracted += this.extract(group);
      this.raw.push(msg);
      this.windows.get(group)!.push(msg.id);
    }
    this.applied.push(`${group} ${p.data.messages.map((m) => m.message_id ?? m.timestamp).join(' ')}`);
    const status = extracted > 0 ? 'extracted' : 'accumulated';
    return [200, { data: { request_id: 'req_loopback', message_count: p.data.messages.length, status, message: 'Messages accepted' } }];
  }

  /** The group's whole window as one MemCell and its episode; returns the memories written. */
  private extract(group: string): number {
    const ids = this.windows.get(group) ?? [];
    if (!ids.length) return 0;
    const msgs = ids.map((id) => this.raw.find((x) => x.id === id)!);
    this.windows.set(group, []);
    const names = [...new Set(msgs.map((m) => m.sender_name))];
    this.episodes.push({
      id: this.objectId(),
      group_id: group,
      ms: msgs[msgs.length - 1]!.ms,
      participants: [...new Set(msgs.map((m) => m.sender_id))],
      sender_ids: [...new Set(msgs.map((m) => m.sender_id))],
      subject: `Conversation between ${names.join(' and ')}`,
      summary: msgs[0]!.content.slice(0, 120),
      episode: msgs.map((m) => `${m.sender_name}: ${m.content}`).join('\n'),
      parent_id: this.objectId(),
      deleted: false,
    });
    return 1;
  }

  private flush(body: unknown, path: string): [number, unknown] {
    const p = GroupFlushRequest.safeParse(body);
    if (!p.success) return this.invalid(p.error, path);
    const status = this.extract(p.data.group_id) > 0 ? 'extracted' : 'no_extraction';
    return [200, { data: { request_id: 'req_loopback', status, message: 'Flush completed' } }];
  }

  private groupOf(filters: Record<string, unknown>): unknown {
    return filters.group_id;
  }

  private live(filters: Record<string, unknown>): Episode[] {
    const group = this.groupOf(filters);
    return this.episodes.filter(
      (e) =>
        !e.deleted &&
        (group === undefined || matches(group, e.group_id)) &&
        (filters.timestamp === undefined || matches(filters.timestamp, e.ms)),
    );
  }

  private item(e: Episode, score?: number): Record<string, unknown> {
    return {
      id: e.id,
      user_id: null,
      group_id: e.group_id,
      session_id: '-1',
      timestamp: isoOf(e.ms),
      participants: e.participants,
      ...(score === undefined ? { sender_ids: e.sender_ids } : {}),
      summary: e.summary,
      subject: e.subject,
      episode: e.episode,
      type: 'Conversation',
      parent_type: 'memcell',
      parent_id: e.parent_id,
      ...(score !== undefined ? { score, atomic_facts: [] } : {}),
    };
  }

  private search(body: unknown, path: string): [number, unknown] {
    const p = SearchMemoriesRequest.safeParse(body);
    if (!p.success) return this.invalid(p.error, path);
    const { query, top_k, filters, memory_types, method } = p.data;
    const limit = top_k > 0 ? top_k : 100;
    const group = this.groupOf(filters);
    let episodes: Record<string, unknown>[] = [];
    if (memory_types.includes('episodic_memory')) {
      if (typeof group === 'string' && this.windows.get(group)?.length) this.searchesBeforeReady++;
      const q = words(query);
      episodes = this.blindSearch
        ? []
        : this.live(filters)
            .map((e, i) => ({ e, i, score: [...words(`${e.subject} ${e.episode}`)].filter((w) => q.has(w)).length / Math.max(1, q.size) }))
            .sort((a, b) => b.score - a.score || a.i - b.i)
            .slice(0, limit)
            .map((x) => this.item(x.e, Math.round(x.score * 1e4) / 1e4));
    }
    const raw = memory_types.includes('raw_message')
      ? this.raw
          .filter((m) => matches(group, m.group_id) && [...this.windows.values()].some((w) => w.includes(m.id)))
          .slice(0, limit)
          .map((m) => ({
            id: m.id,
            request_id: 'req_loopback',
            message_id: m.message_id,
            group_id: m.group_id,
            session_id: '-1',
            sender_id: m.sender_id,
            sender_name: m.sender_name,
            content_items: [{ type: 'text', text: m.content }],
            timestamp: isoOf(m.ms),
          }))
      : [];
    const data = {
      episodes,
      profiles: [],
      raw_messages: raw,
      agent_memory: null,
      query: { text: query, method, filters_applied: filters },
      original_data: null,
    };
    return [200, { data }];
  }

  private get(body: unknown, path: string): [number, unknown] {
    const p = GetMemRequest.safeParse(body);
    if (!p.success) return this.invalid(p.error, path);
    const { page, page_size, rank_order, filters, memory_type } = p.data;
    const all =
      memory_type === 'episodic_memory' ? this.live(filters).sort((a, b) => (rank_order === 'asc' ? a.ms - b.ms : b.ms - a.ms)) : [];
    const shown = all.slice((page - 1) * page_size, page * page_size).map((e) => this.item(e));
    return [
      200,
      { data: { episodes: shown, profiles: [], agent_cases: [], agent_skills: [], total_count: all.length, count: shown.length } },
    ];
  }

  private delete(body: unknown, path: string): [number, unknown] {
    const p = DeleteMemoriesRequest.safeParse(body);
    if (!p.success) return this.invalid(p.error, path);
    const d = p.data;
    // A soft delete of episodes; raw messages and MemCells are source data and stay.
    for (const e of this.episodes)
      if (d.memory_id !== null ? e.id === d.memory_id || e.parent_id === d.memory_id : d.group_id === ALL || e.group_id === d.group_id)
        if (d.user_id === ALL || d.user_id === null) e.deleted = true;
    return [204, undefined];
  }
}
