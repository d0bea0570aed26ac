/**
 * Supermemory's hosted API (api.supermemory.ai) as a MemoryService, from its published reference
 * (supermemoryai/supermemory@34876664 apps/docs/api-reference/, recall/search.mdx,
 * ingestion/document-operations.mdx) and its SDK's calls in memorybench: `POST /v3/documents
 * {content, containerTag, metadata, customId}` -> {id, status: "queued"}; `GET /v3/documents/{id}`
 * until `status` is `done` (or `failed`); `POST /v3/documents/list {containerTags, limit, page}` ->
 * {memories: [documents], pagination}; `POST /v4/search {q, containerTag, limit, threshold,
 * include: {chunks}}` -> {results: [{id, memory | chunk, similarity, metadata, chunks?}]};
 * `DELETE /v3/container-tags/{containerTag}`. The key travels as `Authorization: Bearer <key>`.
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
  type ServiceSearch,
} from '../memory-service/service.js';
import { isoUtc } from '../memory-service/plan.js';

type Json = Record<string, any>;
const PAGE = 100;

export interface SupermemoryOptions {
  /** The search's similarity cutoff (memorybench: 0.3). */
  threshold: number;
  /** Ask for each result's document chunks and show them, de-duplicated, after the memories (memorybench: yes). */
  chunks: boolean;
}

/**
 * The session's date as memorybench's LoCoMo loader formats it (`parseLocomoDate`): `h:mm am|pm on
 * D Month, YYYY`, the date as written when it does not read.
 */
export function formattedDate(date: string | null): string | null {
  if (!date) return null;
  const m = /(\d+):(\d+)\s*(am|pm)\s*on\s*(\d+)\s*(\w+),?\s*(\d+)/i.exec(date);
  if (!m) return date;
  let hour = Number(m[1]);
  const pm = m[3]!.toLowerCase() === 'pm';
  if (pm && hour !== 12) hour += 12;
  if (!pm && hour === 12) hour = 0;
  return `${hour % 12 || 12}:${m[2]} ${hour >= 12 ? 'pm' : 'am'} on ${m[4]} ${m[5]}, ${m[6]}`;
}

/** One session as memorybench's Supermemory provider sends it: its date, then its messages as JSON with `<` and `>` escaped. */
export function supermemoryContent(call: AddCall): string {
  const speakerA = call.speakers?.[0] ?? call.messages[0]?.speaker;
  const messages = call.messages.map((m) => ({ role: m.speaker === speakerA ? 'user' : 'assistant', content: m.text, speaker: m.speaker }));
  const json = JSON.stringify(messages).replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const date = formattedDate(call.date);
  return date
    ? `Here is the date the following session took place: ${date}\n\nHere is the session as a stringified JSON:\n${json}`
    : `Here is the session as a stringified JSON:\n${json}`;
}

function listOf(reply: unknown, key: string): Json[] {
  const v = (reply as Json | null)?.[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new BadReplyError(`the reply's ${key} is not a list`, true);
  return v as Json[];
}

export class SupermemoryService implements MemoryService {
  readonly system = 'Supermemory';
  readonly api = 'supermemory-v3-v4';
  private readonly http: JsonService;

  constructor(
    readonly url: string,
    private readonly opts: SupermemoryOptions,
    key: string | undefined,
    private readonly transport: ServiceTransport,
  ) {
    this.http = new JsonService(url, key ? { authorization: `Bearer ${key}` } : {}, transport, 'supermemory');
  }

  get retry(): RetryPolicy {
    return this.transport.retry;
  }

  async addOnce(call: AddCall): Promise<AddOutcome> {
    const meta = metadataOf(call);
    const body = {
      content: supermemoryContent(call),
      containerTag: call.owner,
      // memorybench's {sessionId, date}; rawrag's own keys beside them (turn ids as JSON text: metadata values are scalars).
      metadata: {
        sessionId: call.session,
        ...(call.timestamp !== null ? { date: isoUtc(call.timestamp).replace('+00:00', '.000Z') } : {}),
        rawrag_add: meta.rawrag_add,
        turn_ids: JSON.stringify(meta.turn_ids),
        session: meta.session,
      },
    };
    // The reply names the queued document: an empty, null or id-less 200 is retried like a 5xx (issue 42).
    await this.http.once({ method: 'POST', path: '/v3/documents', body, read: needs('Supermemory', ['id'], 'string') });
    return { events: null };
  }

  /** The container's documents, every page. */
  private async documents(owner: string): Promise<Json[]> {
    const out: Json[] = [];
    for (let page = 1; page <= 10_000; page++) {
      const reply = await this.http.request<Json>({
        method: 'POST',
        path: '/v3/documents/list',
        body: { containerTags: [owner], limit: PAGE, page },
        read: needs('Supermemory', ['memories'], 'list'),
      });
      const got = listOf(reply, 'memories');
      out.push(...got);
      const pages = Number(reply?.pagination?.totalPages ?? 1);
      if (got.length === 0 || page >= pages) break;
    }
    return out;
  }

  /** Every document of the owner's adds `done` (memorybench's awaitIndexing; a failed one is reported, not waited on). */
  async awaitReady(owner: string, calls: readonly AddCall[], timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const keys = new Set(calls.map((c) => c.key));
    await pollUntil(
      async (report) => {
        const docs = (await this.documents(owner)).filter((d) => keys.has(readMetadata(d.metadata).addKey ?? ''));
        const waiting = docs.filter((d) => d.status !== 'done' && d.status !== 'failed');
        if (docs.length >= keys.size && waiting.length === 0) return true;
        report(`${waiting.length} of ${docs.length} documents still ${waiting[0]?.status ?? 'unlisted'}`);
        return undefined;
      },
      {
        what: `Supermemory's indexing of '${owner}'`,
        timeoutMs,
        firstMs: Math.min(2000, Math.max(1, this.transport.retry.baseDelayMs)),
        maxMs: 5000,
        signal,
      },
    );
  }

  async search(owner: string, query: string, limit: number): Promise<ServiceSearch> {
    const reply = await this.http.request<Json>({
      method: 'POST',
      path: '/v4/search',
      body: {
        q: query,
        containerTag: owner,
        limit,
        threshold: this.opts.threshold,
        ...(this.opts.chunks ? { include: { chunks: true } } : {}),
      },
      read: needs('Supermemory', ['results'], 'list'),
    });
    const results = listOf(reply, 'results');
    const memories: ServiceMemory[] = results.slice(0, limit).map((r) => {
      const t = r.metadata?.temporalContext;
      const date = t?.documentDate ?? (Array.isArray(t?.eventDate) ? t.eventDate.join(', ') : t?.eventDate) ?? null;
      const own = readMetadata(r.metadata);
      return {
        id: String(r.id),
        memory: String(r.memory ?? r.chunk ?? ''),
        score: typeof r.similarity === 'number' ? r.similarity : null,
        date: date === null ? null : String(date),
        turnIds: own.turnIds,
        addKey: own.addKey,
      };
    });
    return { memories, appendix: this.opts.chunks ? chunksOf(results) : null };
  }

  async list(owner: string): Promise<ServiceMemory[]> {
    return (await this.documents(owner)).map((d) => {
      const own = readMetadata(d.metadata);
      return {
        id: String(d.id),
        memory: String(d.title ?? d.summary ?? d.content ?? d.id),
        score: null,
        date: null,
        turnIds: own.turnIds,
        addKey: own.addKey,
      };
    });
  }

  async findAdd(call: AddCall): Promise<string[]> {
    return (await this.documents(call.owner)).filter((d) => readMetadata(d.metadata).addKey === call.key).map((d) => String(d.id));
  }

  async deleteOwner(owner: string): Promise<void> {
    try {
      await this.http.request({ method: 'DELETE', path: `/v3/container-tags/${encodeURIComponent(owner)}` });
    } catch (e) {
      if (statusOf(e) !== 404) throw e;
    }
  }

  addFailure(_call: AddCall, e: unknown): Error {
    return this.http.failure({ method: 'POST', path: '/v3/documents' }, e);
  }

  report(): Record<string, unknown> {
    return { sent: Object.fromEntries([...this.http.sent].sort()), retries: this.http.retries };
  }
}

/** The results' chunks, de-duplicated and in document order, as memorybench's buildSupermemoryContext shows them after the memories. */
export function chunksOf(results: Json[]): string | null {
  const all: Array<{ content: string; position: number }> = [];
  results.forEach((r, i) => {
    for (const c of Array.isArray(r.chunks) ? r.chunks : []) all.push({ content: String(c.content), position: Number(c.position ?? 0) });
    if (typeof r.chunk === 'string' && r.chunk.trim()) all.push({ content: r.chunk, position: i });
  });
  const seen = new Set<string>();
  const unique = all.filter((c) => (seen.has(c.content) ? false : (seen.add(c.content), true))).sort((a, b) => a.position - b.position);
  return unique.length ? `=== DEDUPLICATED CHUNKS ===\n${unique.map((c) => c.content).join('\n\n---\n\n')}` : null;
}
