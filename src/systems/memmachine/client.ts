/**
 * MemMachine's REST API v2 as a MemoryService, read from MemMachine/MemMachine@18f12112
 * (packages/server/src/memmachine_server/server/api_v2/router.py, service.py;
 * packages/common/src/memmachine_common/api/spec.py):
 * - an owner is a project `{org_id, project_id}`: created first (`POST /api/v2/projects`, 201; 409
 *   when it exists — or is still being deleted: `/projects/get` then answers 404), deleted with
 *   `POST /api/v2/projects/delete` (204; the session is only marked deleted and a background worker
 *   removes its episodes, so a purge lists until they are gone);
 * - add: `POST /api/v2/memories {org_id, project_id, types: ["episodic"], messages}` answered with
 *   `{results: [{uid}]}`, one episode per message in order (memmachine.py add_episodes): episodic
 *   writes are awaited before the reply (episodic_memory.py add_memory_episodes), so a memory is
 *   searchable once acknowledged: no readiness wait (semantic memory, which ingests in the background,
 *   is not asked for);
 * - search: `POST /api/v2/memories/search {query, top_k, expand_context, types}` answered with
 *   `content.episodic_memory.{long_term_memory.episodes, short_term_memory.{episodes, episode_summary}}`;
 * - list: `POST /api/v2/memories/list {type: "episodic", page_size, page_num}` (page_num from 0,
 *   ordered by created_at: episode_sqlalchemy_store.py get_episode_messages).
 * No authentication upstream; a key, when set, goes as a Bearer token (a proxy in front of it).
 */
import { BadReplyError } from '../../providers/errors.js';
import type { RetryPolicy } from '../../providers/retry.js';
import { InputError } from '../../util/errors.js';
import { JsonService, statusOf, PollTimeout, pollUntil, type ServiceTransport } from '../memory-service/http.js';
import type {
  AddCall,
  AddEvent,
  AddOutcome,
  MemoryService,
  ServiceMemory,
  ServiceProbe,
  ServiceSearch,
} from '../memory-service/service.js';
import { episodeMemory, messagesOf, projectIdOf } from './wire.js';

export interface MemMachineOptions {
  org: string;
  expandContext: number;
  /** How long to wait for a project still being deleted before it can be created again (ms). */
  deleteTimeoutMs: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const shown = (v: unknown) => JSON.stringify(v)?.slice(0, 200);

/** An add's reply, read inside the attempt: without its `results` list it is broken, retried like a 5xx (issue 42). */
function addResults(reply: unknown): unknown[] {
  if (isObject(reply) && Array.isArray(reply.results)) return reply.results;
  throw new BadReplyError(`add returned no results list: ${shown(reply)}`, true);
}

type Episodic = { long_term_memory?: { episodes?: unknown[] }; short_term_memory?: { episodes?: unknown[]; episode_summary?: unknown[] } };

/**
 * A reply's `content` object (SearchResult.content), read inside the attempt: a reply without it is
 * broken, retried like a 5xx (issue 42). Its `episodic_memory` may be null (no episodic memory to
 * report: nothing found); an empty list is valid; one of another shape is a reply rawrag cannot read.
 */
function episodicOf(what: string, shape: 'object' | 'list'): (reply: unknown) => unknown {
  return (reply) => {
    const content = isObject(reply) ? reply.content : undefined;
    if (!isObject(content)) throw new BadReplyError(`${what} returned no content: ${shown(reply)}`, true);
    const em = content.episodic_memory ?? null;
    if (em !== null && (shape === 'list' ? !Array.isArray(em) : !isObject(em)))
      throw new BadReplyError(`${what} returned an episodic_memory rawrag cannot read: ${shown(reply)}`, false);
    return em;
  };
}

/** Episodes per listing page (the server's default is 100). */
const PAGE = 100;

export class MemMachineService implements MemoryService {
  readonly system = 'MemMachine';
  readonly api = 'memmachine-v2';
  private readonly http: JsonService;
  /** Projects this process created or found: created once, before their first add. */
  private readonly projects = new Map<string, Promise<void>>();

  constructor(
    readonly url: string,
    key: string | undefined,
    private readonly transport: ServiceTransport,
    private readonly opts: MemMachineOptions,
  ) {
    this.http = new JsonService(
      url.replace(/\/+$/, '') + '/api/v2',
      key ? { authorization: `Bearer ${key}` } : {},
      transport,
      'memmachine',
    );
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }

  private target(owner: string): { org_id: string; project_id: string } {
    return { org_id: this.opts.org, project_id: projectIdOf(owner) };
  }

  async probe(): Promise<ServiceProbe> {
    const h = (await this.http.request({ method: 'GET', path: '/health' })) as { version?: unknown } | null;
    return { version: typeof h?.version === 'string' ? h.version : null, addOnly: true };
  }

  /** Creates the owner's project once per process; an existing one is used, one still being deleted is waited for. */
  private ensureProject(owner: string): Promise<void> {
    let p = this.projects.get(owner);
    if (!p) {
      p = this.createProject(owner);
      this.projects.set(owner, p);
      p.catch(() => this.projects.delete(owner));
    }
    return p;
  }

  private async createProject(owner: string): Promise<void> {
    const body = { ...this.target(owner), description: `rawrag ${owner}` };
    try {
      await pollUntil(
        async (report) => {
          try {
            await this.http.request({ method: 'POST', path: '/projects', body });
            return true;
          } catch (e) {
            if (statusOf(e) !== 409) throw e;
          }
          // 409: it exists, or it is marked deleted and its episodes are still being removed (get answers 404 then).
          try {
            await this.http.request({ method: 'POST', path: '/projects/get', body: this.target(owner) });
            return true;
          } catch (e) {
            if (statusOf(e) !== 404) throw e;
            report('being deleted');
            return undefined;
          }
        },
        { what: `MemMachine project of '${owner}'`, timeoutMs: this.opts.deleteTimeoutMs, firstMs: 200, maxMs: 2000 },
      );
    } catch (e) {
      if (e instanceof PollTimeout)
        throw new InputError(
          `${e.message}: a delete of this project is still queued on the server (-S deleteTimeout=SECONDS waits longer)`,
          {
            place: this.url,
          },
        );
      throw e;
    }
  }

  async addOnce(call: AddCall): Promise<AddOutcome> {
    await this.ensureProject(call.owner);
    const results = await this.http.once<unknown[]>({
      method: 'POST',
      path: '/memories',
      body: { ...this.target(call.owner), types: ['episodic'], messages: messagesOf(call) },
      read: addResults,
    });
    const uids = results.map((r) => (r as { uid?: unknown })?.uid);
    const exact = uids.length === call.messages.length && uids.every((u) => typeof u === 'string');
    // One episode per message, in order: each memory's own turn is known exactly.
    const events: AddEvent[] = uids.flatMap((u, i) =>
      typeof u === 'string'
        ? [{ id: u, event: 'ADD' as const, memory: null, previous: null, ...(exact ? { turns: [call.messages[i]!.turnId] } : {}) }]
        : [],
    );
    const unread = results.filter((r) => typeof (r as { uid?: unknown })?.uid !== 'string');
    return { events, ...(unread.length ? { unread } : {}) };
  }

  async search(owner: string, query: string, limit: number): Promise<ServiceSearch> {
    const em = await this.http.request<Episodic | null>({
      method: 'POST',
      path: '/memories/search',
      body: { ...this.target(owner), query, top_k: limit, expand_context: this.opts.expandContext, types: ['episodic'] },
      read: episodicOf('search', 'object'),
    });
    // Long-term episodes, then short-term ones, then the summary: the helper's build_episodic_ctx order.
    const episodes = [...(em?.long_term_memory?.episodes ?? []), ...(em?.short_term_memory?.episodes ?? [])];
    const summaries = (em?.short_term_memory?.episode_summary ?? []).filter((s): s is string => typeof s === 'string' && s.trim() !== '');
    return {
      memories: episodes.map(episodeMemory).filter((m): m is ServiceMemory => m !== null),
      appendix: summaries.length ? `<WORKING MEMORY SUMMARY>\n${summaries.join('\n')}\n</WORKING MEMORY SUMMARY>` : null,
    };
  }

  async list(owner: string): Promise<ServiceMemory[]> {
    const out: ServiceMemory[] = [];
    for (let page = 0; ; page++) {
      const list = ((await this.http.request<unknown[] | null>({
        method: 'POST',
        path: '/memories/list',
        body: { ...this.target(owner), type: 'episodic', page_size: PAGE, page_num: page },
        read: episodicOf('list', 'list'),
      })) ?? []) as unknown[];
      out.push(...list.map(episodeMemory).filter((m): m is ServiceMemory => m !== null));
      if (list.length < PAGE) return out;
    }
  }

  async deleteOwner(owner: string): Promise<void> {
    this.projects.delete(owner);
    try {
      await this.http.request({ method: 'POST', path: '/projects/delete', body: this.target(owner) });
    } catch (e) {
      // No such project (never created, or deleted already): nothing to delete.
      if (statusOf(e) !== 404) throw e;
    }
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: '/api/v2/memories' }, e);
  }

  report(): Record<string, unknown> {
    return { sent: Object.fromEntries([...this.http.sent].sort()), retries: this.http.retries };
  }
}
