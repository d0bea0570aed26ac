/**
 * Zep's hosted API (api.getzep.com/api/v2) as a MemoryService, read from its SDK
 * (getzep/zep-python@a80dee37, src/zep_cloud/): graphs are created with `POST /graph/create
 * {graph_id}`; an episode is `POST /graph {graph_id, type: "message", data, created_at, metadata}`
 * -> Episode {uuid, processed}, processed in the background (`GET /graph/episodes/graph/{id}?lastn=`
 * says which are done); `POST /graph/search {graph_id, query, scope: edges|nodes, reranker, limit}`
 * -> {edges: [{uuid, fact, valid_at, episodes}], nodes: [{uuid, name, summary}]}; listings
 * `POST /graph/edge/graph/{id}` and `/graph/node/graph/{id}` {limit, uuid_cursor}; `DELETE /graph/{id}`.
 * The key travels as `Authorization: Api-Key <key>`.
 */
import { BadReplyError } from '../../providers/errors.js';
import type { RetryPolicy } from '../../providers/retry.js';
import { JsonService, needs, pollUntil, statusOf, type ServiceTransport } from '../memory-service/http.js';
import {
  metadataOf,
  readMetadata,
  type AddCall,
  type AddOutcome,
  type MemoryService,
  type ServiceMemory,
} from '../memory-service/service.js';
import { isoUtc } from '../memory-service/plan.js';

type Json = Record<string, any>;

const PAGE = 100;
/** Episodes asked for per listing (the owner's adds so far, at most). */
const EPISODES_MAX = 10_000;

/** An episode body as zep_locomo_ingestion.py writes a message: `Speaker: text`. */
export function zepData(call: AddCall): string {
  return call.messages.map((m) => `${m.speaker}: ${m.text}`).join('\n');
}

/** How a search's limit is shared: facts (cross-encoder) get the larger half, entities (RRF) the rest. */
export function splitLimit(limit: number): { edges: number; nodes: number } {
  const edges = Math.ceil(limit / 2);
  return { edges, nodes: limit - edges };
}

function listOf(reply: unknown, key: string): Json[] {
  if (Array.isArray(reply)) return reply as Json[];
  const v = (reply as Json | null)?.[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new BadReplyError(`the reply's ${key} is not a list`, true);
  return v as Json[];
}

export class ZepCloudService implements MemoryService {
  readonly system = 'Zep';
  readonly api = 'zep-cloud-v2';
  private readonly http: JsonService;
  private readonly created = new Set<string>();
  /** Episode uuid -> rawrag's metadata of its add (from add replies and episode listings). */
  private readonly episodes = new Map<string, { turnIds: string[]; addKey: string | null; date: string | null }>();

  constructor(
    readonly url: string,
    key: string | undefined,
    private readonly transport: ServiceTransport,
  ) {
    this.http = new JsonService(url, key ? { authorization: `Api-Key ${key}` } : {}, transport, 'zep');
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }

  /** POST /graph/create once per graph; a graph that exists already (a resumed run) is fine. */
  private async ensureGraph(graph: string): Promise<void> {
    if (this.created.has(graph)) return;
    try {
      await this.http.request({ method: 'POST', path: '/graph/create', body: { graph_id: graph } });
    } catch (e) {
      const status = statusOf(e);
      if (status !== 400 && status !== 409) throw e;
    }
    this.created.add(graph);
  }

  async addOnce(call: AddCall): Promise<AddOutcome> {
    await this.ensureGraph(call.owner);
    const body = {
      graph_id: call.owner,
      type: 'message',
      data: zepData(call),
      ...(call.timestamp !== null ? { created_at: isoUtc(call.timestamp) } : {}),
      metadata: metadataOf(call),
    };
    // The reply is the episode: an empty, null or uuid-less 200 is retried like a 5xx (issue 42).
    const episode = await this.http.once<Json>({ method: 'POST', path: '/graph', body, read: needs('Zep', ['uuid'], 'string') });
    if (typeof episode?.uuid === 'string') this.episodes.set(episode.uuid, { turnIds: call.turnIds, addKey: call.key, date: call.date });
    return { events: null };
  }

  /** The owner's episodes (newest `lastn`), each recorded with rawrag's metadata. */
  private async listEpisodes(owner: string, lastn = EPISODES_MAX): Promise<Json[]> {
    let reply: unknown;
    try {
      reply = await this.http.request({
        method: 'GET',
        path: `/graph/episodes/graph/${encodeURIComponent(owner)}`,
        query: { lastn: String(lastn) },
      });
    } catch (e) {
      if (statusOf(e) === 404) return [];
      throw e;
    }
    const episodes = listOf(reply, 'episodes');
    for (const ep of episodes) if (typeof ep.uuid === 'string') this.episodes.set(ep.uuid, readMetadata(ep.metadata));
    return episodes;
  }

  /** Every episode of the owner's adds processed (the graph is searchable), bounded by `timeoutMs`. */
  async awaitReady(owner: string, calls: readonly AddCall[], timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const keys = new Set(calls.map((c) => c.key));
    await pollUntil(
      async (report) => {
        const eps = (await this.listEpisodes(owner)).filter((ep) => keys.has(readMetadata(ep.metadata).addKey ?? ''));
        const waiting = eps.filter((ep) => ep.processed === false).length;
        if (waiting === 0) return true;
        report(`${waiting} of ${eps.length} episodes not processed yet`);
        return undefined;
      },
      {
        what: `Zep's processing of graph '${owner}'`,
        timeoutMs,
        firstMs: Math.min(1000, Math.max(1, this.transport.retry.baseDelayMs)),
        maxMs: 5000,
        signal,
      },
    );
  }

  private memoryOfEdge(e: Json): ServiceMemory {
    const from = (Array.isArray(e.episodes) ? (e.episodes as string[]) : [])
      .map((u) => this.episodes.get(u))
      .filter((m) => m !== undefined);
    const turnIds = [...new Set(from.flatMap((m) => m!.turnIds))];
    const adds = [...new Set(from.map((m) => m!.addKey))];
    return {
      id: `edge:${String(e.uuid)}`,
      memory: String(e.fact ?? ''),
      score: typeof e.score === 'number' ? e.score : null,
      date: typeof e.valid_at === 'string' ? e.valid_at : null,
      turnIds,
      addKey: adds.length === 1 ? adds[0]! : null,
    };
  }

  private static memoryOfNode(n: Json): ServiceMemory {
    return {
      id: `node:${String(n.uuid)}`,
      memory: `${String(n.name ?? '')}: ${String(n.summary ?? '')}`,
      score: typeof n.score === 'number' ? n.score : null,
      date: null,
      turnIds: [],
      addKey: null,
    };
  }

  /** Facts reranked by the cross-encoder, then entities by RRF (zep_locomo_search.py L67-68), the limit split between them. */
  async search(owner: string, query: string, limit: number): Promise<ServiceMemory[]> {
    const { edges, nodes } = splitLimit(limit);
    const ask = (scope: string, reranker: string, n: number) =>
      n > 0
        ? // Its lists are optional in Zep's schema; an empty or null body is still retried (`read`).
          this.http.request<Json>({
            method: 'POST',
            path: '/graph/search',
            body: { graph_id: owner, query, scope, reranker, limit: n },
            read: (r) => r,
          })
        : Promise.resolve({} as Json);
    const [e, n] = await Promise.all([ask('edges', 'cross_encoder', edges), ask('nodes', 'rrf', nodes)]);
    const facts = listOf(e, 'edges');
    if (facts.some((f) => (f.episodes ?? []).some((u: string) => !this.episodes.has(u)))) await this.listEpisodes(owner);
    return [...facts.map((f) => this.memoryOfEdge(f)), ...listOf(n, 'nodes').map(ZepCloudService.memoryOfNode)].slice(0, limit);
  }

  private async page(path: string): Promise<Json[]> {
    const out: Json[] = [];
    let cursor: string | undefined;
    for (;;) {
      let got: Json[];
      try {
        got = listOf(
          await this.http.request({ method: 'POST', path, body: { limit: PAGE, ...(cursor ? { uuid_cursor: cursor } : {}) } }),
          'items',
        );
      } catch (e) {
        if (statusOf(e) === 404) return out;
        throw e;
      }
      out.push(...got);
      if (got.length < PAGE) return out;
      cursor = String(got[got.length - 1]!.uuid);
    }
  }

  async list(owner: string): Promise<ServiceMemory[]> {
    const graph = encodeURIComponent(owner);
    await this.listEpisodes(owner);
    const edges = await this.page(`/graph/edge/graph/${graph}`);
    const nodes = await this.page(`/graph/node/graph/${graph}`);
    return [...edges.map((e) => this.memoryOfEdge(e)), ...nodes.map(ZepCloudService.memoryOfNode)];
  }

  /** An add whose reply was lost: the owner's episodes carrying its key. */
  async findAdd(call: AddCall): Promise<string[]> {
    return (await this.listEpisodes(call.owner)).filter((ep) => readMetadata(ep.metadata).addKey === call.key).map((ep) => String(ep.uuid));
  }

  async deleteOwner(owner: string): Promise<void> {
    try {
      await this.http.request({ method: 'DELETE', path: `/graph/${encodeURIComponent(owner)}` });
    } catch (e) {
      if (statusOf(e) !== 404) throw e;
    }
    this.created.delete(owner);
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: '/graph' }, e);
  }

  report(): Record<string, unknown> {
    return { sent: Object.fromEntries([...this.http.sent].sort()), retries: this.http.retries };
  }
}
