/**
 * Loopback memU services (127.0.0.1, port 0), written from the upstream source:
 * - `FakeMemuCloud`: the hosted API as its evaluators call it — paths under /api/v0/memory
 *   (EverMemOS memu_adapter.py) and /api/v2/memory (memu-py SDK 0.2.x, NevaMind-AI/memU@e19c9a1
 *   memu/sdk/python/client.py), `Authorization: Bearer <key>` (401 otherwise); bodies validated as the
 *   SDK's pydantic models define them (models.py L13-221: user_id / user_name / agent_id / agent_name
 *   required strings, messages `{role, content: str, time?}`, extra fields ignored, a missing or
 *   mistyped field a FastAPI 422); memorize answers `{task_id, status: "PENDING", message}` and its
 *   task goes PENDING -> PROCESSING -> SUCCESS (`{task_id, status, detail_info}`), writing its
 *   memories when done; related-memory-items answers `{related_memories: [{memory: {memory_id,
 *   category, content, happened_at, created_at, updated_at}, user_id, agent_id, similarity_score}],
 *   query, total_found, search_params}`; default-categories `{categories: [{name, type, user_id,
 *   agent_id, description, memory_items: {memories, memory_count} | null, summary}], total_categories}`;
 *   delete `{success, deleted_count}`. The hosted API itself is closed source.
 * - `FakeMemuServer`: memU-server (NevaMind-AI/memU-server@17071716 app/main.py L90-259,
 *   app/schemas/memory.py): memorize `{status: "success", result: {task_id: "memorize-<32 hex>",
 *   status: "PENDING", message}}` (MemorizeRequest: conversation dict | list, user_id non-empty after
 *   strip, agent_id default "", extra fields ignored), the workflow RUNNING -> COMPLETED, status 422
 *   for a malformed id and 404 for an unknown one; /retrieve takes `{query}` only (400 without a
 *   non-blank string) and searches every user's memories (memu-py's item and category top_k 5);
 *   /clear needs user_id or agent_id (422); /categories needs user_id. By default it reproduces the
 *   upstream bug: a retrieve that finds memories answers 500 "Internal server error" (its JSONResponse
 *   cannot serialise memu-py's datetimes); `fixed: true` answers them, dates as ISO strings.
 * Its "extraction" is one memory per message (its content); its "embedding" is word overlap. Faults come from the base class.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { RecordedRequest } from './loopback-server.js';
import { MemoryServiceFake } from './memory-service-fake.js';

interface Item {
  id: string;
  user: string;
  agent: string;
  content: string;
  category: string;
  happened_at: string;
  created_at: string;
}

interface Task {
  id: string;
  user: string;
  agent: string;
  created: number;
  polls: number;
  done: boolean;
  messages: Array<{ content: string; when: string | null }>;
}

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
const nowIso = () => new Date().toISOString().replace('Z', '');

/** Word overlap as a similarity in [0, 1]: any shared word scores at least 0.3. */
function similarity(query: string, text: string): number {
  const q = words(query);
  const hit = [...words(text)].filter((w) => q.has(w)).length / Math.max(1, q.size);
  return hit > 0 ? Math.round((0.3 + 0.7 * Math.min(1, hit)) * 1e4) / 1e4 : 0;
}

/** A date as the memory's happened_at: naive ISO (a trailing Z or offset dropped, a space read as T). */
function happenedAt(when: string | null | undefined): string {
  if (!when) return nowIso();
  return when.replace(' ', 'T').replace(/(Z|[+-]\d{2}:\d{2})$/, '');
}

const categoryOf = (content: string) => (/\b(i|my|me|i'm)\b/i.test(content) ? 'personal_info' : 'activities');

/** What both fakes keep: tasks and the memory items they write when done. */
abstract class MemuStore extends MemoryServiceFake {
  readonly items = new Map<string, Item>();
  readonly tasks = new Map<string, Task>();
  /** Searches answered while the searched user still had a memorize task running. */
  searchesBeforeReady = 0;

  constructor(
    protected readonly workMs: number,
    delayMs?: number,
  ) {
    super(delayMs);
  }

  totalHeld(): number {
    return this.items.size;
  }

  userItems(user: string): Item[] {
    return [...this.items.values()].filter((i) => i.user === user);
  }

  /** Tasks whose work time has passed write their memories (every request sees the service as it is now). */
  protected settle(): void {
    for (const t of this.tasks.values()) {
      if (t.done || Date.now() - t.created < this.workMs) continue;
      t.done = true;
      for (const m of t.messages) {
        const id = randomUUID();
        this.items.set(id, {
          id,
          user: t.user,
          agent: t.agent,
          content: m.content,
          category: categoryOf(m.content),
          happened_at: happenedAt(m.when),
          created_at: nowIso(),
        });
      }
    }
  }

  protected running(user: string | null): boolean {
    return [...this.tasks.values()].some((t) => !t.done && (user === null || t.user === user));
  }

  protected newTask(id: string, user: string, agent: string, messages: Task['messages']): Task {
    const t: Task = { id, user, agent, created: Date.now(), polls: 0, done: false, messages };
    this.tasks.set(id, t);
    this.applied.push(`${user} ${JSON.stringify(messages)}`);
    return t;
  }

  protected ranked(query: string, pool: Item[], k: number, min: number): Array<{ item: Item; score: number }> {
    return pool
      .map((item) => ({ item, score: similarity(query, item.content) }))
      .filter((x) => x.score > 0 && x.score >= min)
      .sort((a, b) => b.score - a.score || (a.item.id < b.item.id ? -1 : 1))
      .slice(0, k);
  }

  protected categoriesOf(user: string): Array<{ name: string; items: Item[] }> {
    const by = new Map<string, Item[]>();
    for (const i of this.userItems(user)) by.set(i.category, [...(by.get(i.category) ?? []), i]);
    return [...by.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, items]) => ({ name, items }));
  }

  protected summaryOf(items: Item[]): string {
    return `${items.length} memories; latest: ${items[items.length - 1]!.content.slice(0, 80)}`;
  }

  /** FastAPI's 422 for a body its pydantic model refuses. */
  protected invalid(error: z.ZodError): [number, unknown] {
    return [422, { detail: error.issues.map((i) => ({ type: i.code, loc: ['body', ...i.path], msg: i.message })) }];
  }
}

// ---- the hosted API (the SDK's request models) ----

const CloudMessage = z.object({ role: z.string(), content: z.string(), time: z.string().nullable().optional() });
const CloudMemorize = z
  .object({
    conversation_text: z.string().nullable().optional(),
    conversation: z.array(CloudMessage).nullable().optional(),
    user_id: z.string(),
    user_name: z.string(),
    agent_id: z.string(),
    agent_name: z.string(),
    session_date: z.string().nullable().optional(),
  })
  .refine((b) => b.conversation != null || b.conversation_text != null, {
    message: 'Either conversation_text or conversation must be provided',
  });
const CloudRelated = z.object({
  user_id: z.string(),
  agent_id: z.string().nullable().optional(),
  query: z.string(),
  top_k: z.number().int().default(10),
  min_similarity: z.number().default(0.3),
  include_categories: z.array(z.string()).nullable().optional(),
});
const CloudCategories = z.object({
  user_id: z.string(),
  agent_id: z.string().nullable().optional(),
  want_memory_items: z.boolean().default(false),
});
const CloudDelete = z.object({ user_id: z.string(), agent_id: z.string().nullable().optional() });

export interface FakeMemuCloudOptions {
  key?: string;
  /** How long a memorize task works before its memories exist (ms). */
  workMs?: number;
  delayMs?: number;
}

export class FakeMemuCloud extends MemuStore {
  readonly key: string;

  constructor(opts: FakeMemuCloudOptions = {}) {
    super(opts.workMs ?? 40, opts.delayMs);
    this.key = opts.key ?? 'memu-test-key';
  }

  isAdd(r: RecordedRequest): boolean {
    return r.method === 'POST' && /^\/api\/v[02]\/memory\/memorize$/.test(r.path);
  }

  protected route(r: RecordedRequest): [number, unknown] {
    if (r.headers.authorization !== `Bearer ${this.key}`) return [401, { detail: 'Invalid or missing API key' }];
    const m = /^\/api\/v[02]\/memory(\/.*)$/.exec(r.path);
    if (!m) return [404, { detail: 'Not Found' }];
    this.settle();
    const path = m[1]!;
    const status = /^\/memorize\/status\/([^/]+)$/.exec(path);
    if (status && r.method === 'GET') return this.status(decodeURIComponent(status[1]!));
    if (r.method !== 'POST') return [405, { detail: 'Method Not Allowed' }];
    if (path === '/memorize') return this.memorize(r);
    if (path === '/retrieve/related-memory-items') return this.related(r);
    if (path === '/retrieve/default-categories') return this.defaultCategories(r);
    if (path === '/delete') return this.delete(r);
    return [404, { detail: 'Not Found' }];
  }

  private memorize(r: RecordedRequest): [number, unknown] {
    const p = CloudMemorize.safeParse(r.body);
    if (!p.success) return this.invalid(p.error);
    const b = p.data;
    const messages = (b.conversation ?? [{ role: 'user', content: b.conversation_text!, time: null }]).map((m) => ({
      content: m.content,
      when: m.time ?? b.session_date ?? null,
    }));
    const t = this.newTask(randomUUID(), b.user_id, b.agent_id, messages);
    return [200, { task_id: t.id, status: 'PENDING', message: `Memorization task submitted for user ${b.user_id}` }];
  }

  private status(id: string): [number, unknown] {
    const t = this.tasks.get(id);
    if (!t) return [404, { detail: `Task ${id} not found` }];
    const status = t.done ? 'SUCCESS' : t.polls++ === 0 ? 'PENDING' : 'PROCESSING';
    return [200, { task_id: id, status, detail_info: t.done ? 'Memorization completed' : '' }];
  }

  private related(r: RecordedRequest): [number, unknown] {
    const p = CloudRelated.safeParse(r.body);
    if (!p.success) return this.invalid(p.error);
    const b = p.data;
    if (this.running(b.user_id)) this.searchesBeforeReady++;
    const pool = this.blindSearch ? [] : this.userItems(b.user_id);
    const hits = this.ranked(b.query, pool, b.top_k, b.min_similarity);
    return [
      200,
      {
        related_memories: hits.map(({ item, score }) => ({
          memory: {
            memory_id: item.id,
            category: item.category,
            content: item.content,
            happened_at: item.happened_at,
            created_at: item.created_at,
            updated_at: item.created_at,
          },
          user_id: item.user,
          agent_id: item.agent,
          similarity_score: score,
        })),
        query: b.query,
        total_found: hits.length,
        search_params: { top_k: b.top_k, min_similarity: b.min_similarity },
      },
    ];
  }

  private defaultCategories(r: RecordedRequest): [number, unknown] {
    const p = CloudCategories.safeParse(r.body);
    if (!p.success) return this.invalid(p.error);
    const b = p.data;
    const categories = this.categoriesOf(b.user_id).map(({ name, items }) => ({
      name,
      type: 'default',
      user_id: b.user_id,
      agent_id: b.agent_id ?? null,
      description: `memories of kind ${name}`,
      memory_items: b.want_memory_items
        ? {
            memories: items.map((i) => ({
              memory_id: i.id,
              category: i.category,
              content: i.content,
              happened_at: i.happened_at,
              created_at: i.created_at,
              updated_at: i.created_at,
            })),
            memory_count: items.length,
          }
        : null,
      summary: this.summaryOf(items),
    }));
    return [200, { categories, total_categories: categories.length }];
  }

  private delete(r: RecordedRequest): [number, unknown] {
    const p = CloudDelete.safeParse(r.body);
    if (!p.success) return this.invalid(p.error);
    let n = 0;
    for (const i of [...this.items.values()])
      if (i.user === p.data.user_id && (p.data.agent_id == null || i.agent === p.data.agent_id)) {
        this.items.delete(i.id);
        n++;
      }
    return [200, { success: true, deleted_count: n }];
  }
}

// ---- memU-server (app/schemas/memory.py) ----

const ServerMemorize = z.object({
  conversation: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]),
  user_id: z
    .string()
    .transform((s) => s.trim())
    .pipe(z.string().min(1)),
  agent_id: z.string().default(''),
  override_config: z.record(z.string(), z.unknown()).nullable().default(null),
});
const blankToNull = z
  .string()
  .nullable()
  .optional()
  .transform((s) => (typeof s === 'string' && s.trim() ? s.trim() : null));
const ServerClear = z.object({ user_id: blankToNull, agent_id: blankToNull }).refine((b) => b.user_id !== null || b.agent_id !== null, {
  message: 'Value error, At least one of user_id or agent_id must be provided',
});
const ServerCategories = z.object({
  user_id: z
    .string()
    .transform((s) => s.trim())
    .pipe(z.string().min(1)),
  agent_id: z.string().nullable().default(null),
});
const WORKFLOW_ID = /^memorize-[0-9a-f]{32}$/;

export interface FakeMemuServerOptions {
  /** A memU-server whose /retrieve serialises its result (the upstream bug fixed). */
  fixed?: boolean;
  workMs?: number;
  delayMs?: number;
}

export class FakeMemuServer extends MemuStore {
  /** How many users held memories whenever a retrieve arrived (the server's retrieve searches them all). */
  readonly usersAtRetrieve: number[] = [];
  readonly fixed: boolean;

  constructor(opts: FakeMemuServerOptions = {}) {
    super(opts.workMs ?? 40, opts.delayMs);
    this.fixed = opts.fixed ?? false;
  }

  isAdd(r: RecordedRequest): boolean {
    return r.method === 'POST' && r.path === '/memorize';
  }

  protected route(r: RecordedRequest): [number, unknown] {
    this.settle();
    if (r.method === 'GET' && r.path === '/') return [200, { message: 'Hello MemU user!' }];
    const status = /^\/memorize\/status\/([^/]+)$/.exec(r.path);
    if (status && r.method === 'GET') return this.status(decodeURIComponent(status[1]!));
    if (r.method !== 'POST') return [405, { detail: 'Method Not Allowed' }];
    if (r.path === '/memorize') return this.memorize(r);
    if (r.path === '/retrieve') return this.retrieve(r);
    if (r.path === '/clear') return this.clear(r);
    if (r.path === '/categories') return this.categories(r);
    return [404, { detail: 'Not Found' }];
  }

  private memorize(r: RecordedRequest): [number, unknown] {
    const p = ServerMemorize.safeParse(r.body);
    if (!p.success) return this.invalid(p.error);
    const b = p.data;
    // memu-py's conversation preprocessing: a list of messages, or {content: [...]} (utils/conversation.py L50-57).
    const list = Array.isArray(b.conversation) ? b.conversation : Array.isArray(b.conversation.content) ? b.conversation.content : [];
    const messages = (list as Array<Record<string, unknown>>)
      .filter((m) => m && typeof m === 'object')
      .map((m) => {
        const c = m.content as unknown;
        const text = typeof c === 'string' ? c : c && typeof c === 'object' ? String((c as { text?: unknown }).text ?? '') : '';
        return { content: text, when: typeof m.created_at === 'string' ? m.created_at : '' };
      });
    const id = `memorize-${randomBytes(16).toString('hex')}`;
    this.newTask(id, b.user_id, b.agent_id, messages);
    return [
      200,
      { status: 'success', result: { task_id: id, status: 'PENDING', message: `Memorization task submitted for user ${b.user_id}` } },
    ];
  }

  private status(id: string): [number, unknown] {
    if (!WORKFLOW_ID.test(id))
      return [422, { detail: "task_id must match the format 'memorize-<uuid4hex>' (e.g. memorize-abc123def456...)" }];
    const t = this.tasks.get(id);
    if (!t) return [404, { detail: `Task ${id} not found` }];
    return [
      200,
      { status: 'success', result: { task_id: id, status: t.done ? 'COMPLETED' : 'RUNNING', detail: t.done ? 'SUCCESS' : null } },
    ];
  }

  private retrieve(r: RecordedRequest): [number, unknown] {
    const body = r.body;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return [422, { detail: [{ type: 'dict_type', loc: ['body'], msg: 'Input should be a valid dictionary' }] }];
    if (!('query' in body)) return [400, { detail: "Missing 'query' in request body" }];
    if (typeof body.query !== 'string' || !body.query.trim()) return [400, { detail: "'query' must be a non-empty string" }];
    const users = new Set([...this.items.values()].map((i) => i.user));
    this.usersAtRetrieve.push(users.size);
    if (this.running(null)) this.searchesBeforeReady++;
    const query = body.query.trim();
    const pool = this.blindSearch ? [] : [...this.items.values()];
    const items = this.ranked(query, pool, 5, 0);
    const cats = this.blindSearch ? [] : [...users].flatMap((u) => this.categoriesOf(u).map((c) => ({ ...c, user: u }))).slice(0, 5);
    // The upstream bug: memu-py's hits carry datetimes a plain JSONResponse cannot encode.
    if (!this.fixed && (items.length || cats.length)) return [500, { detail: 'Internal server error' }];
    const result = {
      needs_retrieval: true,
      original_query: query,
      rewritten_query: query,
      next_step_query: null,
      categories: cats.map((c) => ({
        id: `${c.user}/${c.name}`,
        name: c.name,
        description: `memories of kind ${c.name}`,
        summary: this.summaryOf(c.items),
        user_id: c.user,
        agent_id: c.items[0]!.agent,
        created_at: c.items[0]!.created_at,
        updated_at: c.items[0]!.created_at,
        score: 0.5,
      })),
      items: items.map(({ item, score }) => ({
        id: item.id,
        resource_id: null,
        memory_type: 'event',
        summary: item.content,
        happened_at: item.happened_at,
        extra: {},
        user_id: item.user,
        agent_id: item.agent,
        created_at: item.created_at,
        updated_at: item.created_at,
        score,
      })),
      resources: [],
    };
    return [200, { status: 'success', result }];
  }

  private clear(r: RecordedRequest): [number, unknown] {
    const p = ServerClear.safeParse(r.body ?? {});
    if (!p.success) return this.invalid(p.error);
    const { user_id, agent_id } = p.data;
    const match = (i: Item) => (user_id === null || i.user === user_id) && (agent_id === null || i.agent === agent_id);
    const gone = [...this.items.values()].filter(match);
    const cats = new Set(gone.map((i) => `${i.user}/${i.category}`));
    for (const i of gone) this.items.delete(i.id);
    return [200, { status: 'success', result: { purged_categories: cats.size, purged_items: gone.length, purged_resources: 0 } }];
  }

  private categories(r: RecordedRequest): [number, unknown] {
    const p = ServerCategories.safeParse(r.body);
    if (!p.success) return this.invalid(p.error);
    const categories = this.categoriesOf(p.data.user_id).map(({ name, items }) => ({
      name,
      description: `memories of kind ${name}`,
      user_id: p.data.user_id,
      agent_id: items[0]!.agent,
      summary: this.summaryOf(items),
    }));
    return [200, { status: 'success', result: { categories } }];
  }
}
