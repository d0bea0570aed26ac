/**
 * memU's hosted API (api.memu.so) as a MemoryService, as its third-party evaluators drive it:
 * - memorize: `POST <prefix>/memorize` (EverMemOS memu_adapter.py L226-288: `/api/v0/memory`;
 *   MemOS's client through memu-py SDK 0.2.x: `/api/v2/memory`, memU@e19c9a1
 *   memu/sdk/python/client.py L240-314), `Authorization: Bearer <MEMU_API_KEY>`, answered
 *   `{task_id, status, message}`; the task id is recorded as the add's ticket before any wait;
 * - task: `GET <prefix>/memorize/status/{task_id}` answered `{task_id, status, detail_info}`, polled
 *   every `poll_interval` s until SUCCESS / COMPLETED (EverMemOS L352-444, every 15 s; MemOS
 *   client.py L349-354, every 2 s), bounded by `readyTimeout`; FAILED / FAILURE / REVOKED: failed;
 * - search: `POST <prefix>/retrieve/related-memory-items {user_id, agent_id, query, top_k,
 *   min_similarity}` answered `related_memories[].{memory: {memory_id, category, content,
 *   happened_at}, similarity_score}` (EverMemOS L446-514; MemOS client.py L342-347), and, as
 *   EverMemOS does, `POST <prefix>/retrieve/default-categories {user_id, agent_id,
 *   want_memory_items: true}` for its category overview (L720-811);
 * - list: that default-categories reply's `categories[].memory_items.memories[]` (SDK models.py L88-134);
 * - delete: `POST <prefix>/delete {user_id, agent_id: null}` answered `{success, deleted_count}`
 *   (SDK client.py L515-564, models.py L210-221).
 * The hosted API is closed source: the paths and shapes are the evaluators' and the SDK's.
 */
import { BadReplyError } from '../../providers/errors.js';
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, needs, type ServiceTransport } from '../memory-service/http.js';
import type {
  AddCall,
  AddHooks,
  AddOutcome,
  MemoryService,
  ServiceMemory,
  ServiceProbe,
  ServiceSearch,
} from '../memory-service/service.js';
import { awaitTask, lostAdd, type TaskState } from './task.js';
import { categoryOverview, dayOf, evermemosMemorize, listedItem, memosMemorize, relatedMemory } from './wire.js';

export interface MemuCloudOptions {
  protocol: 'evermemos' | 'memos';
  prefix: string;
  agentId: string;
  agentName: string;
  minSimilarity: number;
  categories: boolean;
  pollMs: number;
  taskTimeoutMs: number;
  lostWaitMs: number;
}

const DONE = new Set(['SUCCESS', 'COMPLETED']);
const FAILED = new Set(['FAILED', 'FAILURE', 'REVOKED']);

export class MemuCloudService implements MemoryService {
  readonly system = 'MemU';
  readonly api: string;
  private readonly http: JsonService;

  constructor(
    readonly url: string,
    key: string | undefined,
    private readonly transport: ServiceTransport,
    private readonly opts: MemuCloudOptions,
  ) {
    this.api = `memu-cloud-${opts.protocol}`;
    this.http = new JsonService(url, key ? { authorization: `Bearer ${key}` } : {}, transport, 'memu');
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }

  private path(p: string): string {
    return `${this.opts.prefix.replace(/\/+$/, '')}${p}`;
  }

  probe(): Promise<ServiceProbe> {
    return Promise.resolve({
      notes: [
        `MemU cloud, ${this.opts.protocol === 'memos' ? "MemOS's client" : "EverMemOS's adapter"} protocol at ${this.url}${this.opts.prefix}: the hosted API is closed source; its paths and reply shapes are the evaluators' and the memu-py SDK's`,
      ],
    });
  }

  async addOnce(call: AddCall, hooks?: AddHooks): Promise<AddOutcome> {
    const agent = { id: this.opts.agentId, name: this.opts.agentName };
    const body = this.opts.protocol === 'memos' ? memosMemorize(call, agent) : evermemosMemorize(call, agent);
    const reply = await this.http.once<{ task_id: string }>({
      method: 'POST',
      path: this.path('/memorize'),
      body,
      read: needs('memorize', ['task_id'], 'string'),
    });
    const task = reply.task_id;
    hooks?.accepted(task);
    return this.awaitAccepted(call, task);
  }

  /** Polls the task at the evaluator's interval until it is done (its reply is kept: the API reports no memories). */
  awaitAccepted(call: AddCall, task: string, signal?: AbortSignal): Promise<AddOutcome> {
    return awaitTask(
      async () => {
        const r = (await this.http.request({ method: 'GET', path: this.path(`/memorize/status/${encodeURIComponent(task)}`) })) as Record<
          string,
          unknown
        > | null;
        const status = typeof r?.status === 'string' ? r.status.toUpperCase() : 'without a status';
        const state: TaskState = DONE.has(status) ? 'done' : FAILED.has(status) ? 'failed' : 'waiting';
        return { state, status, detail: typeof r?.detail_info === 'string' ? r.detail_info : null };
      },
      { what: `MemU memorize task ${task} (${call.key})`, pollMs: this.opts.pollMs, timeoutMs: this.opts.taskTimeoutMs, signal },
    );
  }

  /**
   * A memorize whose reply was lost: the memories its task writes (nothing carries rawrag's key):
   * a call of the whole conversation is the owner's only add, so any item is its; a session's call
   * is known by items that happened on its session's day. Looked for until `lost_wait` (the task may still run).
   */
  findAdd(call: AddCall): Promise<string[]> {
    const whole = call.turnIds.length > call.sessionTurns;
    const day = call.timestamp !== null ? dayOf(call.timestamp) : null;
    return lostAdd(
      async () => {
        const items = await this.list(call.owner);
        return items.filter((m) => whole || (day !== null && m.date === day)).map((m) => m.id);
      },
      { what: `MemU memories of ${call.key}`, waitMs: this.opts.lostWaitMs, pollMs: this.opts.pollMs },
    );
  }

  private async categoriesOf(owner: string): Promise<unknown[]> {
    const reply = (await this.http.request({
      method: 'POST',
      path: this.path('/retrieve/default-categories'),
      body: { user_id: owner, agent_id: this.opts.agentId, want_memory_items: true },
      read: needs('default-categories', ['categories'], 'list'),
    })) as { categories?: unknown } | null;
    return Array.isArray(reply?.categories) ? reply.categories : [];
  }

  async search(owner: string, query: string, limit: number): Promise<ServiceSearch> {
    const body = {
      user_id: owner,
      agent_id: this.opts.agentId,
      query,
      top_k: limit,
      min_similarity: this.opts.minSimilarity,
      // The SDK's model_dump() sends its optional field as null (MemOS's client goes through it).
      ...(this.opts.protocol === 'memos' ? { include_categories: null } : {}),
    };
    const reply = (await this.http.request({
      method: 'POST',
      path: this.path('/retrieve/related-memory-items'),
      body,
      read: needs('related-memory-items', ['related_memories'], 'list'),
    })) as {
      related_memories?: unknown;
    } | null;
    const related = Array.isArray(reply?.related_memories) ? reply.related_memories : [];
    const memories = related.map(relatedMemory).filter((m): m is ServiceMemory => m !== null);
    return { memories: memories.slice(0, limit), appendix: this.opts.categories ? await this.overview(owner) : null };
  }

  /** EverMemOS fetches the category overview after each search and shows nothing when it fails (memu_adapter.py L754-759). */
  private async overview(owner: string): Promise<string | null> {
    try {
      return categoryOverview(await this.categoriesOf(owner));
    } catch {
      return null;
    }
  }

  async list(owner: string): Promise<ServiceMemory[]> {
    const out: ServiceMemory[] = [];
    for (const c of await this.categoriesOf(owner)) {
      const items = (c as { memory_items?: { memories?: unknown } })?.memory_items?.memories;
      if (Array.isArray(items)) out.push(...items.map(listedItem).filter((m): m is ServiceMemory => m !== null));
    }
    // An item may sit in several categories: once each.
    return [...new Map(out.map((m) => [m.id, m])).values()];
  }

  async deleteOwner(owner: string): Promise<string[]> {
    const reply = (await this.http.request({ method: 'POST', path: this.path('/delete'), body: { user_id: owner, agent_id: null } })) as {
      success?: unknown;
      deleted_count?: unknown;
    } | null;
    if (reply?.success !== true)
      throw new BadReplyError(`MemU delete of '${owner}' answered ${JSON.stringify(reply)?.slice(0, 300)} (expected success true)`, false);
    return typeof reply.deleted_count === 'number' ? [`${reply.deleted_count} memories`] : [];
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: this.path('/memorize') }, e);
  }

  report(): Record<string, unknown> {
    return { sent: Object.fromEntries([...this.http.sent].sort()), retries: this.http.retries };
  }
}
