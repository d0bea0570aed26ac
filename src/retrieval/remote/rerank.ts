/**
 * Second-stage rerankers: Cohere rerank-v3.5 through `cohere-ai` (CohereClientV2, its retries
 * off), and vLLM / Jina-style `POST {base}/rerank` (Qwen3-Reranker-4B) with plain fetch.
 * Both see the candidate windows' text and return the best `topN` (top_n = k = 15 in the paper).
 */
import type { CohereClientV2 } from 'cohere-ai';
import type { IngestedEpisode } from '../../core/ingested-episode.js';
import { compareHits } from '../rank.js';
import type { Reranker, Hit } from '../../core/retriever.js';
import { cacheKey, jsonCodec } from '../../providers/cache.js';
import { sha256Hex } from '../../util/fsx.js';
import { BadReplyError, HttpStatusError, namingHost, notJsonReply, parseJsonReply } from '../../providers/errors.js';
import type { ModelEntry, Prices } from '../../providers/models.js';
import { promptTokensAtMost, type RequestCost } from '../../providers/budget.js';
import { costOf } from '../../providers/usage.js';
import type { Endpoint, ProviderSession } from '../../providers/session.js';
import { endpointId, provenanceOf, type Origin } from '../../providers/provenance.js';

interface Ranked {
  results: Array<{ index: number; score: number }>;
  search_units: number;
  prompt_tokens: number;
  /** Absent in entries cached before provenance was recorded. */
  origin?: Origin;
}

abstract class RemoteReranker implements Reranker {
  readonly name: string;
  protected readonly wireModel: string;

  constructor(
    protected readonly session: ProviderSession,
    readonly entry: ModelEntry,
    protected readonly endpoint: Endpoint,
  ) {
    this.wireModel = entry.apiModel ?? entry.name;
    this.name = `${entry.provider}:${entry.name}`;
  }

  private readonly digests = new Map<string, string>();

  private digest(text: string): string {
    let d = this.digests.get(text);
    if (d === undefined) this.digests.set(text, (d = sha256Hex(text)));
    return d;
  }

  /** Rerank replies name no served model or fingerprint (Cohere's none, vLLM's not reliably): the endpoint only. */
  private get origin(): Origin {
    return { endpoint: endpointId(this.endpoint.baseUrl), served_model: null, system_fingerprint: null };
  }

  protected abstract call(query: string, documents: string[], topN: number, timeoutMs: number): Promise<Ranked>;

  async rerank(query: string, candidates: Hit[], ep: IngestedEpisode, topN: number): Promise<Hit[]> {
    if (candidates.length === 0) return [];
    const documents = candidates.map((h) => ep.chunks[h.chunk]!.text);
    const n = Math.min(topN, documents.length);
    // Documents enter the key by digest: the same 128 windows are hashed once, not once per question.
    const key = cacheKey({
      kind: 'rerank',
      provider: this.entry.provider,
      model: this.wireModel,
      query,
      documents: documents.map((d) => this.digest(d)),
      top_n: n,
      ...this.session.cacheScopeKey(this.endpoint),
    });
    const { value, cached } = await this.session.cache.through(
      'rerank',
      key,
      jsonCodec<Ranked>(),
      // Checked before it can be stored: an invalid reply is an item error that a retry asks again.
      // Checked inside the request's retries: an invalid 200 is asked again like a 5xx.
      async () => ({
        ...(await this.session
          .to({ endpoint: this.endpoint.baseUrl, cost: rerankCost(this.entry.prices, query, documents) })
          .send('rerank', this.entry.name, async (t) => checkRanked(await this.call(query, documents, n, t), documents.length, n))),
        origin: this.origin,
      }),
      (r) => rankedProblem(r, documents.length, n) === null,
    );
    this.session.usage.record(
      'rerank',
      this.entry.name,
      { prompt_tokens: value.prompt_tokens, completion_tokens: 0, search_units: value.search_units },
      cached,
      this.entry.prices,
    );
    this.session.provenance.record('rerank', provenanceOf(value.origin, endpointId(this.endpoint.baseUrl), cached));
    const hits = value.results.map((r) => ({ chunk: candidates[r.index]!.chunk, score: r.score }));
    return hits.sort(compareHits).slice(0, n);
  }
}

/**
 * What a rerank request may cost (for --max-cost): search units (Cohere: one per 100 documents) or
 * tokens (vLLM, Jina), whichever the model is priced in; then what the reply says it used.
 */
function rerankCost(prices: Prices | undefined, query: string, documents: string[]): RequestCost<Ranked> {
  const usage = (promptTokens: number, searchUnits: number) => ({
    prompt_tokens: prices?.input === undefined ? 0 : promptTokens,
    completion_tokens: 0,
    search_units: prices?.perThousandSearches === undefined ? 0 : searchUnits,
  });
  return {
    estimate: costOf(usage(promptTokensAtMost([query, ...documents]), Math.ceil(documents.length / 100)), prices),
    actual: (r) => costOf(usage(r.prompt_tokens, r.search_units), prices),
  };
}

/**
 * What is wrong with a rerank reply for `documents` candidates and `topN` asked, or null: at least
 * one result, at most `documents`, each index an integer in range and used once, each score finite.
 */
export function rankedProblem(r: Ranked, documents: number, topN: number): string | null {
  if (!Array.isArray(r?.results)) return 'no results array';
  if (r.results.length === 0 && topN > 0) return `no results for ${documents} documents`;
  if (r.results.length > documents) return `${r.results.length} results for ${documents} documents`;
  const seen = new Set<number>();
  for (const x of r.results) {
    if (!Number.isInteger(x?.index) || x.index < 0 || x.index >= documents)
      return `index ${JSON.stringify(x?.index)} out of range for ${documents} documents`;
    if (seen.has(x.index)) return `index ${x.index} returned twice`;
    seen.add(x.index);
    if (typeof x.score !== 'number' || !Number.isFinite(x.score))
      return `score ${String(x.score)} for index ${x.index} is not a finite number`;
  }
  return null;
}

function checkRanked(r: Ranked, documents: number, topN: number): Ranked {
  const problem = rankedProblem(r, documents, topN);
  // Retried like a 5xx (issue 42): a 200 that breaks the protocol is a fault of that reply, and one
  // such reply must not fail the item; a server that always answers so still fails after the retries.
  if (problem) throw new BadReplyError(`invalid rerank reply: ${problem}`, true);
  return r;
}

export class CohereReranker extends RemoteReranker {
  private client: Promise<CohereClientV2> | null = null;

  constructor(session: ProviderSession, entry: ModelEntry, endpoint: Endpoint) {
    super(session, entry, endpoint);
  }

  /** Loaded on first use: the SDK is slow to import and local runs never need it. */
  private async sdk(): Promise<CohereClientV2> {
    const { CohereClientV2: Client } = await import('cohere-ai');
    // The SDK appends v2/rerank itself: the base URL must not end in /v1 or /v2.
    const baseUrl = this.endpoint.baseUrl.replace(/\/v[12]$/, '');
    return new Client({ token: this.endpoint.apiKey, baseUrl, maxRetries: 0, timeoutInSeconds: this.session.transport.timeoutMs / 1000 });
  }

  protected async call(query: string, documents: string[], topN: number, timeoutMs: number): Promise<Ranked> {
    const client = await (this.client ??= this.sdk());
    const res = await namingHost(this.endpoint.baseUrl, () =>
      client
        .rerank({ model: this.wireModel, query, documents, topN }, { maxRetries: 0, timeoutInSeconds: timeoutMs / 1000 })
        .catch((e: unknown) => {
          // The SDK's own check of the reply's shape (an empty or `null` body: "response: Expected object.
          // Received null") is a reply that breaks the protocol, retried like a 5xx.
          if (e instanceof Error && /^response(\.|:)/.test(e.message)) throw new BadReplyError(`invalid rerank reply: ${e.message}`, true);
          throw e;
        }),
    );
    // A non-JSON 200 body (a login or proxy page) comes back as `{ ok: false, error: { reason: 'non-json', rawBody } }`.
    const nonJson = (res as unknown as { error?: { reason?: string; rawBody?: unknown } })?.error;
    if (nonJson?.reason === 'non-json') throw notJsonReply(String(nonJson.rawBody ?? ''));
    if (typeof (res as unknown) === 'string') throw notJsonReply(res as unknown as string);
    if (!Array.isArray(res?.results)) throw new BadReplyError('rerank reply has no results array', true);
    return {
      results: res.results.map((r) => ({ index: r.index, score: r.relevanceScore })),
      // Cohere bills 1 search unit per query over up to 100 documents.
      search_units: res.meta?.billedUnits?.searchUnits ?? Math.ceil(documents.length / 100),
      prompt_tokens: 0,
    };
  }
}

export class VllmReranker extends RemoteReranker {
  constructor(session: ProviderSession, entry: ModelEntry, endpoint: Endpoint) {
    super(session, entry, endpoint);
  }

  protected async call(query: string, documents: string[], topN: number, timeoutMs: number): Promise<Ranked> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.endpoint.apiKey !== 'EMPTY') headers.authorization = `Bearer ${this.endpoint.apiKey}`;
    const res = await namingHost(this.endpoint.baseUrl, () =>
      fetch(`${this.endpoint.baseUrl}/rerank`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.wireModel, query, documents, top_n: topN }),
        signal: AbortSignal.timeout(timeoutMs),
      }),
    );
    const text = await res.text();
    if (!res.ok) throw new HttpStatusError(res.status, res.headers, text);
    const body = parseJsonReply<{
      results?: Array<{ index: number; relevance_score?: number; score?: number }>;
      usage?: { prompt_tokens?: number; total_tokens?: number };
    }>(text, res.headers.get('content-type'));
    if (!Array.isArray(body.results)) throw new BadReplyError('rerank reply has no results array', true);
    return {
      results: body.results.map((r) => ({ index: r.index, score: r.relevance_score ?? r.score ?? Number.NaN })),
      search_units: 0,
      prompt_tokens: body.usage?.prompt_tokens ?? body.usage?.total_tokens ?? 0,
    };
  }
}
