/**
 * A loopback Supermemory (127.0.0.1, port 0) serving the routes of its published API reference
 * (supermemoryai/supermemory@34876664 apps/docs/api-reference/, recall/search.mdx,
 * ingestion/document-operations.mdx): `POST /v3/documents {content, containerTag, metadata,
 * customId}` -> {id, status: "queued"} (content required; metadata values scalars); a document is
 * indexed after `processPolls` reads of it (its own GET or a listing) or `processMs`: then `done`,
 * with one memory per message of the session JSON in its content (`Speaker: content`);
 * `GET /v3/documents/{id}`; `POST /v3/documents/list {containerTags, limit, page}` -> {memories,
 * pagination}; `POST /v4/search {q, containerTag, limit, threshold, include: {chunks}}` ->
 * {results: [{id, memory, similarity, metadata, updatedAt, version, chunks?}], timing, total}, the
 * similarity the share of the query's words a memory holds; `DELETE /v3/container-tags/{tag}`.
 * The key: `Authorization: Bearer <key>` (401 otherwise).
 */
import { randomUUID } from 'node:crypto';
import type { RecordedRequest } from './loopback-server.js';
import { MemoryServiceFake } from './memory-service-fake.js';

interface Doc {
  id: string;
  tag: string;
  content: string;
  metadata: Record<string, unknown>;
  status: 'queued' | 'done';
  reads: number;
  at: number;
  memories: Array<{ id: string; memory: string }>;
}

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

export class FakeSupermemory extends MemoryServiceFake {
  readonly docs: Doc[] = [];

  constructor(private readonly opts: { key?: string; processPolls?: number; processMs?: number } = {}) {
    super();
  }

  isAdd(r: RecordedRequest): boolean {
    return r.method === 'POST' && r.path === '/v3/documents';
  }

  totalHeld(): number {
    return this.docs.length;
  }

  private settle(d: Doc): Doc {
    if (d.status === 'done' || (d.reads < (this.opts.processPolls ?? 1) && Date.now() - d.at < (this.opts.processMs ?? 2000))) return d;
    d.status = 'done';
    const json = d.content.slice(d.content.indexOf('stringified JSON:\n') + 'stringified JSON:\n'.length);
    const messages = JSON.parse(json.replace(/&lt;/g, '<').replace(/&gt;/g, '>')) as Array<{ speaker: string; content: string }>;
    d.memories = messages.map((m) => ({ id: randomUUID(), memory: `${m.speaker}: ${m.content}` }));
    return d;
  }

  private view(d: Doc) {
    return {
      id: d.id,
      status: d.status,
      type: 'text',
      containerTags: [d.tag],
      metadata: d.metadata,
      title: d.content.split('\n')[0],
      createdAt: new Date(d.at).toISOString(),
    };
  }

  protected route(r: RecordedRequest): [number, unknown] {
    if (this.opts.key && r.headers.authorization !== `Bearer ${this.opts.key}`) return [401, { error: 'Unauthorized' }];
    const b = r.body ?? {};
    if (r.method === 'POST' && r.path === '/v3/documents') {
      if (typeof b.content !== 'string' || !b.content) return [400, { error: 'content is required' }];
      if (b.metadata && !Object.values(b.metadata).every(isScalar))
        return [400, { error: 'metadata values must be strings, numbers or booleans' }];
      const d: Doc = {
        id: randomUUID(),
        tag: b.containerTag ?? 'sm_project_default',
        content: b.content,
        metadata: b.metadata ?? {},
        status: 'queued',
        reads: 0,
        at: Date.now(),
        memories: [],
      };
      this.docs.push(d);
      this.applied.push(`${d.tag} ${b.content}`);
      return [200, { id: d.id, status: 'queued' }];
    }
    const one = /^\/v3\/documents\/([^/]+)$/.exec(r.path);
    if (r.method === 'GET' && one) {
      const d = this.docs.find((x) => x.id === one[1]);
      if (!d) return [404, { error: 'Document not found' }];
      d.reads++;
      return [200, this.view(this.settle(d))];
    }
    if (r.method === 'POST' && r.path === '/v3/documents/list') {
      const tags: string[] = b.containerTags ?? [];
      const mine = this.docs.filter((d) => tags.length === 0 || tags.includes(d.tag));
      for (const d of mine) d.reads++;
      const limit = b.limit ?? 50;
      const page = b.page ?? 1;
      const items = mine.slice((page - 1) * limit, page * limit).map((d) => this.view(this.settle(d)));
      return [
        200,
        {
          memories: items,
          pagination: { currentPage: page, totalPages: Math.max(1, Math.ceil(mine.length / limit)), totalItems: mine.length },
        },
      ];
    }
    if (r.method === 'POST' && r.path === '/v4/search') return this.search(b);
    const tag = /^\/v3\/container-tags\/([^/]+)$/.exec(r.path);
    if (r.method === 'DELETE' && tag) {
      const name = decodeURIComponent(tag[1]!);
      const before = this.docs.length;
      for (let i = this.docs.length - 1; i >= 0; i--) if (this.docs[i]!.tag === name) this.docs.splice(i, 1);
      return before === this.docs.length ? [404, { error: 'Container tag not found' }] : [200, { success: true }];
    }
    return [404, { error: 'Not found' }];
  }

  private search(b: Record<string, any>): [number, unknown] {
    if (typeof b.q !== 'string' || !b.q) return [400, { error: 'q is required' }];
    const q = words(b.q);
    const threshold = b.threshold ?? 0.5;
    const hits = this.blindSearch
      ? []
      : this.docs
          .filter((d) => d.tag === b.containerTag)
          .map((d) => this.settle(d))
          .flatMap((d) =>
            d.memories.map((m) => ({ d, m, similarity: [...q].filter((w) => words(m.memory).has(w)).length / Math.max(1, q.size) })),
          )
          .filter((h) => h.similarity >= threshold)
          .sort((a, c) => c.similarity - a.similarity)
          .slice(0, b.limit ?? 10);
    const results = hits.map((h) => ({
      id: h.m.id,
      memory: h.m.memory,
      similarity: h.similarity,
      metadata: { temporalContext: { documentDate: h.d.metadata.date ?? null } },
      updatedAt: new Date(h.d.at).toISOString(),
      version: 1,
      ...(b.include?.chunks ? { chunks: [{ content: h.m.memory, position: h.d.memories.indexOf(h.m) }] } : {}),
    }));
    return [200, { results, timing: 1, total: results.length }];
  }
}
