/**
 * A loopback Zep Cloud (127.0.0.1, port 0) serving the graph API under /api/v2 as Zep's SDK calls it
 * (getzep/zep-python@a80dee37, src/zep_cloud/graph/): `POST /graph/create {graph_id}` (a graph that
 * exists: 400); `POST /graph {graph_id|user_id, type: text|message|json, data, created_at,
 * metadata (at most 10 keys, scalars or lists of scalars), source_description}` -> Episode {uuid,
 * content, created_at, processed: false, metadata} (unknown graph: 404; data over 10,000
 * characters: 400), processed in the background: after `processPolls` listings of its graph (or
 * `processMs`), it becomes one fact (an edge `{uuid, fact: data, valid_at: created_at, episodes:
 * [uuid]}`) and one entity per speaker (`{uuid, name, summary}`); `GET /graph/episodes/graph/{id}
 * ?lastn=` -> {episodes}; `POST /graph/search {graph_id|user_id, query, scope: edges|nodes,
 * reranker, limit <= 50}` -> {edges} or {nodes}, processed ones only, by shared words; `POST
 * /graph/edge/graph/{id}` and `/graph/node/graph/{id}` {limit, uuid_cursor} -> lists;
 * `DELETE /graph/{id}`. The key: `Authorization: Api-Key <key>` (401 otherwise).
 */
import { randomUUID } from 'node:crypto';
import type { RecordedRequest } from './loopback-server.js';
import { MemoryServiceFake } from './memory-service-fake.js';

const PREFIX = '/api/v2';
const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

interface Episode {
  uuid: string;
  graph: string;
  content: string;
  created_at: string;
  metadata: Record<string, unknown> | null;
  processed: boolean;
  queuedAt: number;
  polls: number;
}
interface Edge {
  uuid: string;
  fact: string;
  name: string;
  valid_at: string;
  episodes: string[];
  created_at: string;
}
interface Node {
  uuid: string;
  name: string;
  summary: string;
  created_at: string;
}
interface Graph {
  episodes: Episode[];
  edges: Edge[];
  nodes: Map<string, Node>;
}

const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

export class FakeZepCloud extends MemoryServiceFake {
  readonly graphs = new Map<string, Graph>();

  constructor(private readonly opts: { key?: string; processPolls?: number; processMs?: number } = {}) {
    super();
  }

  isAdd(r: RecordedRequest): boolean {
    return r.method === 'POST' && r.path === `${PREFIX}/graph`;
  }

  totalHeld(): number {
    return [...this.graphs.values()].reduce((n, g) => n + g.episodes.length + g.edges.length + g.nodes.size, 0);
  }

  /** Episodes whose background processing is done: each is a fact, its speaker an entity. */
  private settle(g: Graph): void {
    const now = Date.now();
    for (const ep of g.episodes) {
      if (ep.processed || (ep.polls < (this.opts.processPolls ?? 1) && now - ep.queuedAt < (this.opts.processMs ?? 2000))) continue;
      ep.processed = true;
      g.edges.push({
        uuid: randomUUID(),
        fact: ep.content,
        name: 'SAID',
        valid_at: ep.created_at,
        episodes: [ep.uuid],
        created_at: ep.created_at,
      });
      for (const line of ep.content.split('\n')) {
        const speaker = line.slice(0, Math.max(0, line.indexOf(': ')));
        if (!speaker) continue;
        const node = g.nodes.get(speaker) ?? { uuid: randomUUID(), name: speaker, summary: '', created_at: ep.created_at };
        node.summary = `${speaker} said: ${line.slice(speaker.length + 2)}`.slice(0, 200);
        g.nodes.set(speaker, node);
      }
    }
  }

  protected route(r: RecordedRequest): [number, unknown] {
    if (this.opts.key && r.headers.authorization !== `Api-Key ${this.opts.key}`) return [401, { message: 'unauthorized' }];
    if (!r.path.startsWith(PREFIX)) return [404, { message: 'not found' }];
    const path = r.path.slice(PREFIX.length);
    const b = r.body ?? {};
    if (r.method === 'POST' && path === '/graph/create') {
      if (typeof b.graph_id !== 'string' || !b.graph_id) return [400, { message: 'graph_id is required' }];
      if (this.graphs.has(b.graph_id)) return [400, { message: 'graph already exists' }];
      this.graphs.set(b.graph_id, { episodes: [], edges: [], nodes: new Map() });
      return [201, { graph_id: b.graph_id, uuid: randomUUID(), created_at: new Date().toISOString() }];
    }
    if (r.method === 'POST' && path === '/graph') return this.add(b);
    const m = /^\/graph\/(episodes\/graph|edge\/graph|node\/graph)\/([^/]+)$/.exec(path);
    if (m) {
      const g = this.graphs.get(decodeURIComponent(m[2]!));
      if (!g) return [404, { message: 'graph not found' }];
      if (m[1] === 'episodes/graph' && r.method === 'GET') {
        for (const ep of g.episodes) ep.polls++;
        this.settle(g);
        const lastn = Number(r.query.lastn ?? 10);
        return [200, { episodes: g.episodes.slice(-lastn).map(({ graph: _g, queuedAt: _q, polls: _p, ...ep }) => ep) }];
      }
      if (r.method === 'POST') {
        const items: Array<{ uuid: string }> = m[1] === 'edge/graph' ? g.edges : [...g.nodes.values()];
        const from = b.uuid_cursor ? items.findIndex((x) => x.uuid === b.uuid_cursor) + 1 : 0;
        return [200, items.slice(from, from + (b.limit ?? 100))];
      }
    }
    if (r.method === 'POST' && path === '/graph/search') return this.search(b);
    const del = /^\/graph\/([^/]+)$/.exec(path);
    if (r.method === 'DELETE' && del) {
      if (!this.graphs.delete(decodeURIComponent(del[1]!))) return [404, { message: 'graph not found' }];
      return [200, { message: 'Deleted' }];
    }
    return [404, { message: 'not found' }];
  }

  private add(b: Record<string, any>): [number, unknown] {
    const id = b.graph_id ?? b.user_id;
    if (!['text', 'message', 'json'].includes(b.type)) return [400, { message: 'type must be one of text, message, json' }];
    if (typeof b.data !== 'string' || !b.data) return [400, { message: 'data is required' }];
    if (b.data.length > 10_000) return [400, { message: 'data exceeds 10000 characters' }];
    const meta = b.metadata;
    if (meta !== undefined && meta !== null) {
      const entries = Object.entries(meta as Record<string, unknown>);
      if (entries.length > 10) return [400, { message: 'metadata: max 10 keys' }];
      if (!entries.every(([, v]) => isScalar(v) || (Array.isArray(v) && v.every(isScalar))))
        return [400, { message: 'metadata values must be scalars or arrays of scalars' }];
    }
    const g = this.graphs.get(id);
    if (!g) return [404, { message: 'graph not found' }];
    const ep: Episode = {
      uuid: randomUUID(),
      graph: id,
      content: b.data,
      created_at: b.created_at ?? new Date().toISOString(),
      metadata: meta ?? null,
      processed: false,
      queuedAt: Date.now(),
      polls: 0,
    };
    g.episodes.push(ep);
    this.applied.push(`${id} ${b.data}`);
    return [
      200,
      { uuid: ep.uuid, content: ep.content, created_at: ep.created_at, metadata: ep.metadata, processed: false, source: b.type },
    ];
  }

  private search(b: Record<string, any>): [number, unknown] {
    const g = this.graphs.get(b.graph_id ?? b.user_id);
    if (typeof b.query !== 'string') return [400, { message: 'query is required' }];
    const limit = b.limit ?? 10;
    if (limit > 50) return [400, { message: 'limit: at most 50' }];
    if (!g) return [404, { message: 'graph not found' }];
    this.settle(g);
    const q = words(b.query);
    const score = (text: string) => [...words(text)].filter((w) => q.has(w)).length;
    const rank = <T>(items: T[], text: (x: T) => string) =>
      this.blindSearch
        ? []
        : items
            .map((x) => ({ x, s: score(text(x)) }))
            .filter((h) => h.s > 0)
            .sort((a, c) => c.s - a.s)
            .slice(0, limit)
            .map((h) => ({ ...h.x, score: h.s }));
    if ((b.scope ?? 'edges') === 'nodes') return [200, { nodes: rank([...g.nodes.values()], (n) => `${n.name} ${n.summary}`) }];
    return [200, { edges: rank(g.edges, (e) => e.fact) }];
  }
}
