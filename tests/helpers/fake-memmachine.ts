/**
 * A loopback MemMachine server (127.0.0.1, port 0) speaking REST API v2 as MemMachine/MemMachine
 * @18f12112 defines it, written from:
 * - packages/server/src/memmachine_server/server/api_v2/router.py L155-337 (routes: /projects 201 /
 *   409, /projects/get 404, /projects/delete 204 / 404, /memories, /memories/search,
 *   /memories/list, /health L1080-1087) and service.py L54-175 (add -> results [{uid}], search and
 *   list content shapes);
 * - packages/common/src/memmachine_common/api/spec.py (request models, validated as pydantic does:
 *   a missing required field or a wrong type is a 422, extra fields are ignored — no request model
 *   forbids them; SafeId L176-196; MemoryMessage L453-510 with metadata dict[str, str] and its
 *   timestamp parser; AddMemoriesSpec messages min_length 1; SearchMemoriesSpec, ListMemoriesSpec
 *   defaults) and server/app.py L65-90 (the 422 body);
 * - main/memmachine.py: a project delete only marks the session deleted and queues it (L580-606);
 *   a background worker removes its episodes, then the session row (L340-365), so the project
 *   still lists episodes and cannot be created again (409, while /projects/get says 404) until then;
 *   an add to a missing project creates it (episodic_memory_manager.py L225-285), an add to a
 *   deleted one stores its episodes and then fails (SessionDeletedError: 500);
 * - episodic memory: long-term search scored, `expand_context` neighbours around each match;
 *   short-term memory = the most recent episodes within a character capacity, older ones evicted
 *   into a summary (short_term_memory.py L187-240, L386-432), deduplicated against long-term by uid
 *   (episodic_memory.py L454-476); list ordered by created_at, page_num from 0
 *   (episode_sqlalchemy_store.py L345-377).
 * Its "embedding" is word overlap; its summary is deterministic text. Faults come from the base class.
 */
import { z } from 'zod';
import type { RecordedRequest } from './loopback-server.js';
import { MemoryServiceFake } from './memory-service-fake.js';

const SafeId = z
  .string()
  .regex(/^[\p{L}\p{N}_:-]+$/u, 'ID can only contain letters, numbers, underscore, hyphen, colon, or Unicode characters');
const OrgProj = { org_id: SafeId.default('universal'), project_id: SafeId.default('universal') };
const MemoryType = z.enum(['episodic', 'semantic']);

/** MemoryMessage.parse_timestamp: None -> now, numbers as Unix seconds (ms above 1e12), strings by fromisoformat. */
const Timestamp = z.union([
  z.null(),
  z.number(),
  z.string().regex(/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?(Z|[+-]\d{2}:?\d{2})?$/),
]);

const MemoryMessage = z.object({
  content: z.string(),
  producer: z.string().default('user'),
  produced_for: z.string().default(''),
  timestamp: Timestamp.optional(),
  role: z.string().default(''),
  metadata: z.record(z.string(), z.string()).default({}),
  episode_type: z.enum(['message']).nullable().default(null),
});
const AddMemoriesSpec = z.object({ ...OrgProj, types: z.array(MemoryType).default([]), messages: z.array(MemoryMessage).min(1) });
const SearchMemoriesSpec = z.object({
  ...OrgProj,
  top_k: z.number().int().default(10),
  query: z.string(),
  filter: z.string().default(''),
  set_metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  expand_context: z.number().int().default(0),
  score_threshold: z.number().nullable().default(null),
  types: z.array(MemoryType).default([]),
  agent_mode: z.boolean().default(false),
});
const ListMemoriesSpec = z.object({
  ...OrgProj,
  page_size: z.number().int().default(100),
  page_num: z.number().int().default(0),
  filter: z.string().default(''),
  set_metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  type: MemoryType.nullable().default(null),
});
const ProjectSpec = z.object({ org_id: SafeId, project_id: SafeId });
const CreateProjectSpec = ProjectSpec.extend({
  description: z.string().default(''),
  config: z.record(z.string(), z.unknown()).default({}),
});

interface StoredEpisode {
  uid: string;
  session_key: string;
  content: string;
  producer_id: string;
  producer_role: string;
  produced_for_id: string;
  created_at: string;
  /** For stable ordering of equal timestamps: insertion order. */
  seq: number;
  metadata: Record<string, string>;
}

interface Project {
  status: 'active' | 'deleted';
  description: string;
  /** Short-term memory: the most recent episodes (uids), and the summary of those evicted. */
  stm: string[];
  summary: string;
}

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/** Python's datetime.isoformat of an aware timestamp, as the server returns created_at. */
function isoOf(ts: string | number | null | undefined): string {
  if (ts === null || ts === undefined) return new Date().toISOString().replace('Z', '+00:00');
  if (typeof ts === 'number') return new Date((ts > 1e12 ? ts / 1000 : ts) * 1000).toISOString().replace('Z', '+00:00');
  return ts.replace(/Z$/, '+00:00');
}

export interface FakeMemMachineOptions {
  delayMs?: number;
  /** Short-term memory capacity in characters (upstream default 64,000). */
  stmCapacity?: number;
  /** How long the background worker takes to remove a deleted project's episodes (ms). */
  deleteDelayMs?: number;
}

export class FakeMemMachine extends MemoryServiceFake {
  readonly projects = new Map<string, Project>();
  readonly episodes = new Map<string, StoredEpisode>();
  private nextUid = 1;

  constructor(private readonly opts: FakeMemMachineOptions = {}) {
    super(opts.delayMs);
  }

  isAdd(r: RecordedRequest): boolean {
    return r.method === 'POST' && r.path === '/api/v2/memories';
  }

  totalHeld(): number {
    return this.episodes.size;
  }

  /** Episodes of one project (`org/project`), in created order. */
  projectEpisodes(key: string): StoredEpisode[] {
    return [...this.episodes.values()]
      .filter((e) => e.session_key === key)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.seq - b.seq);
  }

  protected override errorBody(status: number | undefined): unknown {
    return { detail: status === 429 ? 'Too Many Requests' : 'Internal Server Error' };
  }

  private invalid(error: z.ZodError): [number, unknown] {
    const parts = error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    const message = parts.length === 1 ? `Invalid request payload: ${parts[0]}` : `Invalid request payload:\n- ${parts.join('\n- ')}`;
    return [422, { detail: { code: 422, message, exception: 'RequestValidationError', internal_error: String(parts), trace: '' } }];
  }

  protected route(r: RecordedRequest): [number, unknown] {
    if (r.method === 'GET' && r.path === '/api/v2/health')
      return [200, { status: 'healthy', service: 'memmachine', version: '0.0.0-loopback' }];
    if (r.method !== 'POST') return [405, { detail: 'Method Not Allowed' }];
    switch (r.path) {
      case '/api/v2/projects':
        return this.createProject(r.body);
      case '/api/v2/projects/get':
        return this.getProject(r.body);
      case '/api/v2/projects/delete':
        return this.deleteProject(r.body);
      case '/api/v2/memories':
        return this.add(r.body);
      case '/api/v2/memories/search':
        return this.search(r.body);
      case '/api/v2/memories/list':
        return this.list(r.body);
      default:
        return [404, { detail: 'Not Found' }];
    }
  }

  private createProject(body: unknown): [number, unknown] {
    const p = CreateProjectSpec.safeParse(body);
    if (!p.success) return this.invalid(p.error);
    const key = `${p.data.org_id}/${p.data.project_id}`;
    if (this.projects.has(key))
      return [
        409,
        {
          detail: { code: 409, message: 'Project already exists', exception: 'SessionAlreadyExistsError', internal_error: key, trace: '' },
        },
      ];
    this.projects.set(key, { status: 'active', description: p.data.description, stm: [], summary: '' });
    const config = {
      backend: null,
      embedder: '',
      reranker: '',
      vector_graph_store: '',
      vector_store: '',
      segment_store: '',
      properties_schema: {},
    };
    return [201, { org_id: p.data.org_id, project_id: p.data.project_id, description: p.data.description, config }];
  }

  private getProject(body: unknown): [number, unknown] {
    const p = ProjectSpec.safeParse(body);
    if (!p.success) return this.invalid(p.error);
    const project = this.projects.get(`${p.data.org_id}/${p.data.project_id}`);
    if (!project || project.status !== 'active') return [404, { detail: 'Project does not exist' }];
    return [200, { org_id: p.data.org_id, project_id: p.data.project_id, description: project.description, config: {} }];
  }

  private deleteProject(body: unknown): [number, unknown] {
    const p = ProjectSpec.safeParse(body);
    if (!p.success) return this.invalid(p.error);
    const key = `${p.data.org_id}/${p.data.project_id}`;
    const project = this.projects.get(key);
    if (!project)
      return [
        404,
        { detail: { code: 404, message: 'Project does not exist', exception: 'SessionNotFoundError', internal_error: key, trace: '' } },
      ];
    if (project.status === 'active') {
      project.status = 'deleted';
      // The deletion worker: episodes first (every one of the session, those added meanwhile too), then the session row.
      setTimeout(() => {
        for (const e of this.projectEpisodes(key)) this.episodes.delete(e.uid);
        this.projects.delete(key);
      }, this.opts.deleteDelayMs ?? 30);
    }
    return [204, undefined];
  }

  private add(body: unknown): [number, unknown] {
    const p = AddMemoriesSpec.safeParse(body);
    if (!p.success) return this.invalid(p.error);
    const key = `${p.data.org_id}/${p.data.project_id}`;
    let project = this.projects.get(key);
    // The episode store takes them first (memmachine.py add_episodes), whatever the session's state.
    const added = p.data.messages.map((m) => this.store(key, m));
    this.applied.push(`${key} ${p.data.messages.map((m) => m.metadata.rawrag_add ?? m.content).join(' | ')}`);
    if (project?.status === 'deleted') return [500, { detail: 'Internal Server Error' }];
    // An add to a project that does not exist creates it (open_or_create_episodic_memory).
    if (!project) this.projects.set(key, (project = { status: 'active', description: '', stm: [], summary: '' }));
    const episodic = p.data.types.length === 0 || p.data.types.includes('episodic');
    if (episodic) this.remember(project, added);
    return [200, { results: added.map((e) => ({ uid: e.uid })) }];
  }

  private store(sessionKey: string, m: z.infer<typeof MemoryMessage>): StoredEpisode {
    const uid = String(this.nextUid++);
    const e: StoredEpisode = {
      uid,
      session_key: sessionKey,
      content: m.content,
      producer_id: m.producer,
      producer_role: m.role,
      produced_for_id: m.produced_for,
      created_at: isoOf(m.timestamp),
      seq: this.nextUid,
      metadata: m.metadata,
    };
    this.episodes.set(uid, e);
    return e;
  }

  /** Short-term memory: append, then evict the oldest into the summary while over capacity. */
  private remember(project: Project, added: StoredEpisode[]): void {
    project.stm.push(...added.map((e) => e.uid));
    const capacity = this.opts.stmCapacity ?? 64_000;
    const length = () => project.stm.reduce((n, u) => n + (this.episodes.get(u)?.content.length ?? 0), 0) + project.summary.length;
    const evicted: string[] = [];
    while (project.stm.length > 1 && length() > capacity) evicted.push(project.stm.shift()!);
    if (evicted.length) {
      const firsts = evicted.map((u) => this.episodes.get(u)?.content.split(/\s+/).slice(0, 4).join(' ') ?? '').join('; ');
      project.summary = `Earlier in the conversation: ${firsts}`.slice(0, Math.max(40, Math.floor(capacity / 4)));
    }
  }

  private serialise(e: StoredEpisode, score?: number): Record<string, unknown> {
    return {
      uid: e.uid,
      content: e.content,
      producer_id: e.producer_id,
      producer_role: e.producer_role,
      ...(e.produced_for_id ? { produced_for_id: e.produced_for_id } : {}),
      episode_type: 'message',
      metadata: e.metadata,
      created_at: e.created_at,
      ...(score !== undefined ? { score } : {}),
    };
  }

  private search(body: unknown): [number, unknown] {
    const p = SearchMemoriesSpec.safeParse(body);
    if (!p.success) return this.invalid(p.error);
    const key = `${p.data.org_id}/${p.data.project_id}`;
    let project = this.projects.get(key);
    if (project?.status === 'deleted') return [500, { detail: 'Internal Server Error' }];
    if (!project) this.projects.set(key, (project = { status: 'active', description: '', stm: [], summary: '' }));
    const episodic = p.data.types.length === 0 || p.data.types.includes('episodic');
    const content: Record<string, unknown> = {};
    if (episodic) {
      const limit = p.data.top_k;
      const stm = this.blindSearch ? [] : project.stm.slice(-limit).map((u) => this.episodes.get(u)!);
      const long = this.blindSearch ? [] : this.longTerm(key, p.data.query, limit, p.data.expand_context);
      const shown = new Set(stm.map((e) => e.uid));
      content.episodic_memory = {
        long_term_memory: { episodes: long.filter((x) => !shown.has(x.e.uid)).map((x) => this.serialise(x.e, x.score)) },
        short_term_memory: { episodes: stm.map((e) => this.serialise(e)), episode_summary: [this.blindSearch ? '' : project.summary] },
      };
    }
    if (p.data.types.length === 0 || p.data.types.includes('semantic')) content.semantic_memory = [];
    return [200, { status: 0, content }];
  }

  /** The top `limit` episodes by word overlap, each followed by `expand` neighbours either side (in created order). */
  private longTerm(key: string, query: string, limit: number, expand: number): Array<{ e: StoredEpisode; score: number }> {
    const all = this.projectEpisodes(key);
    const q = words(query);
    const scored = all
      .map((e, i) => ({ e, i, score: [...words(e.content)].filter((w) => q.has(w)).length / Math.max(1, q.size) }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, Math.max(0, limit));
    const out: Array<{ e: StoredEpisode; score: number }> = [];
    const seen = new Set<string>();
    for (const m of scored)
      for (let j = Math.max(0, m.i - expand); j <= Math.min(all.length - 1, m.i + expand); j++) {
        const e = all[j]!;
        if (seen.has(e.uid)) continue;
        seen.add(e.uid);
        out.push({ e, score: Math.round(m.score * 1e4) / 1e4 });
      }
    return out;
  }

  private list(body: unknown): [number, unknown] {
    const p = ListMemoriesSpec.safeParse(body);
    if (!p.success) return this.invalid(p.error);
    const key = `${p.data.org_id}/${p.data.project_id}`;
    const content: Record<string, unknown> = {};
    if (p.data.type === null || p.data.type === 'episodic') {
      const page = this.projectEpisodes(key).slice(p.data.page_size * p.data.page_num, p.data.page_size * (p.data.page_num + 1));
      content.episodic_memory = page.map((e) => ({
        ...this.serialise(e),
        session_key: e.session_key,
        sequence_num: 0,
        content_type: 'string',
      }));
    }
    if (p.data.type === null || p.data.type === 'semantic') content.semantic_memory = [];
    return [200, { status: 0, content }];
  }
}
