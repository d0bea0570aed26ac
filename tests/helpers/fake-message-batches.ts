/**
 * A loopback Anthropic Message Batches peer (127.0.0.1, port 0) in front of a FakeApi, answering
 * as Anthropic's API does: POST /v1/messages/batches ({requests: [{custom_id, params}]}; custom_id
 * 1-64 of [a-zA-Z0-9_-], unique), GET /v1/messages/batches/{id}, GET /v1/messages/batches (newest
 * first; `limit`, `after_id` pages with has_more / first_id / last_id), GET
 * /v1/messages/batches/{id}/results (JSONL {custom_id, result: {type: succeeded|errored|...}}, only
 * once the batch has ended: `results_url` is null before). Every other path (the interactive
 * POST /v1/messages) goes to the FakeApi, and a batch request runs by POSTing its params to that
 * same FakeApi, marked `x-fake-batch`: batch replies are the interactive ones.
 *
 * A batch runs `perPoll` requests per retrieve, then ends. `hangCreate`: the batch is created but
 * the create reply never comes (the client can be killed meanwhile).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeApi, type FakeApiOptions } from './fake-api.js';

interface FakeMessageBatch {
  id: string;
  requests: Array<{ custom_id: string; params: Record<string, unknown> }>;
  results: string[];
  created_at: string;
  ended: boolean;
  counts: { processing: number; succeeded: number; errored: number; canceled: number; expired: number };
}

export class FakeMessageBatches {
  readonly chat: FakeApi;
  readonly batches = new Map<string, FakeMessageBatch>();
  /** Calls per route, e.g. `POST /v1/messages/batches`. */
  readonly calls: string[] = [];
  /** Keys seen on the batch routes (x-api-key or Authorization: Bearer). */
  readonly keys = new Set<string>();
  perPoll = Infinity;
  /** The next create makes the batch and never answers. */
  hangCreate = false;
  private server: Server | null = null;
  private seq = 0;
  private lastMs = 0;
  url = '';

  constructor(opts: FakeApiOptions = {}) {
    this.chat = new FakeApi(opts);
  }

  async start(): Promise<this> {
    await this.chat.start();
    this.server = createServer((req, res) => void this.handle(req, res).catch((e) => this.error(res, 500, 'api_error', String(e))));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
    await this.chat.close();
  }

  count(call: string): number {
    return this.calls.filter((c) => c === call).length;
  }

  /** Messages requests sent interactively (not run inside a batch). */
  interactive(): number {
    return this.chat.requests.filter((r) => r.path === '/v1/messages' && !r.headers['x-fake-batch']).length;
  }

  private error(res: ServerResponse, status: number, type: string, message: string): void {
    this.reply(res, status, { type: 'error', error: { type, message } });
  }

  private reply(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private view(b: FakeMessageBatch): Record<string, unknown> {
    return {
      id: b.id,
      type: 'message_batch',
      processing_status: b.ended ? 'ended' : 'in_progress',
      request_counts: { ...b.counts },
      created_at: b.created_at,
      ended_at: b.ended ? new Date().toISOString() : null,
      expires_at: new Date(Date.parse(b.created_at) + 86_400_000).toISOString(),
      archived_at: null,
      cancel_initiated_at: null,
      results_url: b.ended ? `${this.url}/v1/messages/batches/${b.id}/results` : null,
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    let m: RegExpExecArray | null;
    if (path.startsWith('/v1/messages/batches')) {
      // The SDK sends the key as x-api-key or as a bearer token; either is the account's key here.
      this.keys.add(String(req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '')));
      if (req.headers['anthropic-version'] === undefined)
        return this.error(res, 400, 'invalid_request_error', 'anthropic-version header is required');
    }
    if (method === 'POST' && path === '/v1/messages/batches') {
      this.calls.push('POST /v1/messages/batches');
      const body = JSON.parse(raw.toString('utf8')) as { requests?: FakeMessageBatch['requests'] };
      const requests = body.requests ?? [];
      if (requests.length === 0) return this.error(res, 400, 'invalid_request_error', 'requests: at least one request is required');
      const ids = new Set<string>();
      for (const [i, r] of requests.entries()) {
        if (!/^[a-zA-Z0-9_-]{1,64}$/.test(r.custom_id ?? ''))
          return this.error(
            res,
            400,
            'invalid_request_error',
            `requests.${i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`,
          );
        if (ids.has(r.custom_id)) return this.error(res, 400, 'invalid_request_error', `requests.${i}.custom_id: duplicate custom_id`);
        if (typeof r.params?.model !== 'string' || typeof r.params?.max_tokens !== 'number')
          return this.error(res, 400, 'invalid_request_error', `requests.${i}.params: model and max_tokens are required`);
        ids.add(r.custom_id);
      }
      this.lastMs = Math.max(this.lastMs + 1000, Date.now());
      const b: FakeMessageBatch = {
        id: `msgbatch_${String(++this.seq).padStart(4, '0')}`,
        requests,
        results: [],
        created_at: new Date(this.lastMs).toISOString(),
        ended: false,
        counts: { processing: requests.length, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
      };
      this.batches.set(b.id, b);
      if (this.hangCreate) return; // created; the reply never comes
      return this.reply(res, 200, this.view(b));
    }
    if (method === 'GET' && path === '/v1/messages/batches') {
      this.calls.push('GET /v1/messages/batches');
      const all = [...this.batches.values()].reverse();
      const after = url.searchParams.get('after_id');
      const from = after ? all.findIndex((b) => b.id === after) + 1 : 0;
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const page = all.slice(from, from + limit);
      return this.reply(res, 200, {
        data: page.map((b) => this.view(b)),
        has_more: from + limit < all.length,
        first_id: page[0]?.id ?? null,
        last_id: page.at(-1)?.id ?? null,
      });
    }
    if (method === 'GET' && (m = /^\/v1\/messages\/batches\/([^/]+)\/results$/.exec(path))) {
      this.calls.push('GET /v1/messages/batches/results');
      const b = this.batches.get(m[1]!);
      if (!b) return this.error(res, 404, 'not_found_error', `no batch ${m[1]}`);
      if (!b.ended) return this.error(res, 400, 'invalid_request_error', `batch ${b.id} is still in progress`);
      res.writeHead(200, { 'content-type': 'application/binary' });
      return void res.end(b.results.map((l) => l + '\n').join(''));
    }
    if (method === 'GET' && (m = /^\/v1\/messages\/batches\/([^/]+)$/.exec(path))) {
      this.calls.push('GET /v1/messages/batches/{id}');
      const b = this.batches.get(m[1]!);
      if (!b) return this.error(res, 404, 'not_found_error', `no batch ${m[1]}`);
      await this.step(b);
      return this.reply(res, 200, this.view(b));
    }
    // Everything else is the interactive API.
    const fwd = await fetch(this.chat.url + (req.url ?? '/'), {
      method,
      headers: { 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : raw,
    });
    res.writeHead(fwd.status, { 'content-type': fwd.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await fwd.arrayBuffer()));
  }

  /** Runs up to `perPoll` of the batch's requests; the batch ends when none is left. */
  private async step(b: FakeMessageBatch): Promise<void> {
    for (let n = 0; n < this.perPoll && b.results.length < b.requests.length; n++) {
      const r = b.requests[b.results.length]!;
      const fwd = await fetch(this.chat.url + '/v1/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-fake-batch': b.id },
        body: JSON.stringify(r.params),
      });
      const body = (await fwd.json()) as Record<string, unknown>;
      b.counts.processing--;
      if (fwd.status === 200) {
        b.counts.succeeded++;
        b.results.push(JSON.stringify({ custom_id: r.custom_id, result: { type: 'succeeded', message: body } }));
      } else {
        b.counts.errored++;
        // Anthropic's ErrorResponse: {type: 'error', error: {type, message}} (a 4xx is the request's fault, else the API's).
        const message = String((body.error as { message?: string } | undefined)?.message ?? fwd.status);
        const type = fwd.status < 500 ? 'invalid_request_error' : 'api_error';
        b.results.push(
          JSON.stringify({ custom_id: r.custom_id, result: { type: 'errored', error: { type: 'error', error: { type, message } } } }),
        );
      }
    }
    b.ended = b.results.length === b.requests.length;
  }
}
