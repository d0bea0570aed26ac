/**
 * Self-hosted memU-server (NevaMind-AI/memU-server@17071716 app/main.py, app/schemas/memory.py) as
 * a MemoryService:
 * - memorize: `POST /memorize {conversation, user_id, agent_id}` (MemorizeRequest, schemas L7-21)
 *   answered `{status: "success", result: {task_id: "memorize-<32 hex>", status: "PENDING", message}}`
 *   (main.py L90-146): the conversation is written to a file and a Temporal workflow runs memu-py's
 *   `MemoryService.memorize` on it;
 * - task: `GET /memorize/status/{task_id}` answered `result.status` = the workflow's status (RUNNING,
 *   COMPLETED, FAILED, CANCELED, TERMINATED, TIMED_OUT; main.py L153-193), 404 for an unknown task;
 * - search: `POST /retrieve {query}` (main.py L196-209) takes no owner: it searches everything the
 *   server holds, so the system holds one owner at a time (the pipeline ingests, answers and clears
 *   one episode after another);
 * - list: `POST /categories {user_id}` (main.py L231-254): the user's categories and their summaries
 *   (memU-server lists no memory items); delete: `POST /clear {user_id}` (main.py L212-228).
 * The server has no authentication: no key is sent.
 */
import { BadReplyError } from '../../providers/errors.js';
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, needs, ServiceError, statusOf, type ServiceTransport } from '../memory-service/http.js';
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
import { categoryOverview, serverCategory, serverItem, serverMemorize } from './wire.js';

export interface MemuServerOptions {
  agentId: string;
  pollMs: number;
  taskTimeoutMs: number;
  lostWaitMs: number;
}

const FAILED = new Set(['FAILED', 'CANCELED', 'TERMINATED', 'TIMED_OUT']);

/**
 * memU-server's known bug, named where a retrieve fails with it: its /retrieve returns memu-py's
 * result in a plain JSONResponse, and that result holds Python datetimes, so every retrieve that finds
 * a memory fails to serialise and answers 500.
 */
export const RETRIEVE_BUG =
  "memU-server answered 500 to POST /retrieve after its memorize tasks completed: this is memU-server's own bug, not a transient error. " +
  "Its /retrieve (NevaMind-AI/memU-server@17071716 app/main.py L203-209) returns memu-py's retrieve result in a plain JSONResponse, and that result " +
  'holds memory items and categories dumped with Python datetime fields (memu-py src/memu/app/retrieve.py L426-452 _rag_build_context -> ' +
  "_materialize_hits L943-952 -> service.py L375-377 model_dump(exclude={'embedding'}) without mode='json'; created_at / updated_at / happened_at " +
  'are datetimes, database/models.py L35-40, L76-81): json.dumps raises TypeError, caught at main.py L207-209 as "Internal server error". ' +
  'Every retrieve that finds a memory fails; only one that finds nothing answers. Fix it upstream (jsonable_encoder(result), or ' +
  "model_dump(mode='json')), or use the hosted API: -S api=cloud";

export class MemuServerService implements MemoryService {
  readonly system = 'MemU';
  readonly api = 'memu-server';
  private readonly http: JsonService;
  /**
   * /retrieve with at most two retries: its 500s are almost always the upstream bug, and questions are
   * searched concurrently, so the transport's full retries would only multiply them.
   */
  private readonly retrieveHttp: JsonService;
  /** /retrieve has answered 500 after memorize: the upstream bug, named in every later failure. */
  private retrieveBug = false;

  constructor(
    readonly url: string,
    private readonly transport: ServiceTransport,
    private readonly opts: MemuServerOptions,
  ) {
    this.http = new JsonService(url, {}, transport, 'memu-server');
    const retry = { ...transport.retry, maxRetries: Math.min(2, transport.retry.maxRetries) };
    this.retrieveHttp = new JsonService(url, {}, { ...transport, retry }, 'memu-server');
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }

  async probe(): Promise<ServiceProbe> {
    const r = (await this.http.request({ method: 'GET', path: '/' })) as { message?: unknown } | null;
    if (typeof r?.message !== 'string') throw new BadReplyError(`memU-server's GET / answered ${JSON.stringify(r)?.slice(0, 200)}`, false);
    return {
      notes: [
        "memU-server's /retrieve takes no owner: MemU holds one episode at a time (ingested, answered, cleared one after another)",
        "memU-server@17071716's /retrieve answers 500 whenever it finds memories (an upstream bug: app/main.py L203-209 puts memu-py's datetimes in a plain JSONResponse); unless this server is patched, every question fails with that error, named",
      ],
    };
  }

  async addOnce(call: AddCall, hooks?: AddHooks): Promise<AddOutcome> {
    const reply = await this.http.once<{ result: { task_id: string } }>({
      method: 'POST',
      path: '/memorize',
      body: serverMemorize(call, this.opts.agentId),
      read: needs('memorize', ['result', 'task_id'], 'string'),
    });
    const task = reply.result.task_id;
    hooks?.accepted(task);
    return this.awaitAccepted(call, task);
  }

  awaitAccepted(call: AddCall, task: string, signal?: AbortSignal): Promise<AddOutcome> {
    return awaitTask(
      async () => {
        const r = (await this.http.request({ method: 'GET', path: `/memorize/status/${encodeURIComponent(task)}` })) as {
          result?: { status?: unknown; detail?: unknown };
        } | null;
        const status = typeof r?.result?.status === 'string' ? r.result.status.toUpperCase() : 'without a status';
        const state: TaskState = status === 'COMPLETED' ? 'done' : FAILED.has(status) ? 'failed' : 'waiting';
        return { state, status, detail: typeof r?.result?.detail === 'string' ? r.result.detail : null };
      },
      { what: `memU-server memorize task ${task} (${call.key})`, pollMs: this.opts.pollMs, timeoutMs: this.opts.taskTimeoutMs, signal },
    );
  }

  /** A lost memorize reply: the whole conversation is the owner's one add, so any category summary of the owner is its. */
  findAdd(call: AddCall): Promise<string[]> {
    return lostAdd(async () => (await this.list(call.owner)).map((m) => m.id), {
      what: `memU-server categories of ${call.owner}`,
      waitMs: this.opts.lostWaitMs,
      pollMs: this.opts.pollMs,
    });
  }

  async search(_owner: string, query: string, limit: number): Promise<ServiceSearch> {
    const spec = { method: 'POST' as const, path: '/retrieve', body: { query }, read: needs('retrieve', ['result', 'items'], 'list') };
    let reply: { result?: { items?: unknown; categories?: unknown } } | null;
    try {
      // Once the bug has shown, one attempt per question: the usual retries cannot help.
      reply = this.retrieveBug ? await this.retrieveHttp.once(spec) : await this.retrieveHttp.request(spec);
    } catch (e) {
      // Searches come only after the episode's memorize tasks completed: a 500 (after the usual retries)
      // is the upstream serialisation bug, named, and not retried again, rather than left as "Internal server error".
      const status = statusOf(e);
      if (status === 500) {
        this.retrieveBug = true;
        throw new BadReplyError(`${RETRIEVE_BUG} (${this.http.transport.secrets.scrub(String((e as Error).message))})`, false);
      }
      if (this.retrieveBug && !(e instanceof ServiceError)) throw this.retrieveHttp.failure(spec, e);
      throw e;
    }
    const items = Array.isArray(reply?.result?.items) ? (reply.result.items as unknown[]) : [];
    const memories = items.map(serverItem).filter((m): m is ServiceMemory => m !== null);
    return { memories: memories.slice(0, limit), appendix: categoryOverview(reply?.result?.categories) };
  }

  async list(owner: string): Promise<ServiceMemory[]> {
    const reply = await this.http.request<{ result?: { categories?: unknown } } | null>({
      method: 'POST',
      path: '/categories',
      body: { user_id: owner },
      read: needs('categories', ['result', 'categories'], 'list'),
    });
    const cats = Array.isArray(reply?.result?.categories) ? (reply.result.categories as unknown[]) : [];
    return cats.map(serverCategory).filter((m): m is ServiceMemory => m !== null);
  }

  async deleteOwner(owner: string): Promise<string[]> {
    const reply = await this.http.request<{
      result?: { purged_categories?: unknown; purged_items?: unknown; purged_resources?: unknown };
    } | null>({ method: 'POST', path: '/clear', body: { user_id: owner }, read: needs('clear', ['result'], 'object') });
    const r = reply?.result;
    if (!r) throw new BadReplyError(`memU-server /clear of '${owner}' answered ${JSON.stringify(reply)?.slice(0, 300)}`, false);
    return [
      `${String(r.purged_items ?? 0)} items, ${String(r.purged_categories ?? 0)} categories, ${String(r.purged_resources ?? 0)} resources`,
    ];
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: '/memorize' }, e);
  }

  report(): Record<string, unknown> {
    const sent = new Map([...this.http.sent, ...this.retrieveHttp.sent]);
    return { sent: Object.fromEntries([...sent].sort()), retries: this.http.retries + this.retrieveHttp.retries };
  }
}
