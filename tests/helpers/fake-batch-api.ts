/**
 * A loopback OpenAI Files + Batches peer (127.0.0.1, port 0) in front of a FakeApi: POST /v1/files
 * (multipart upload), GET /v1/files/{id}/content, POST /v1/batches, GET /v1/batches/{id},
 * GET /v1/batches (newest first, cursor pages), POST /v1/batches/{id}/cancel. Every other path is
 * forwarded to the FakeApi, so one base URL serves interactive and batch calls, and a batch line
 * is executed by POSTing its body to the same FakeApi: batch replies are the interactive ones.
 *
 * Batches move one step per retrieve, following a script: validating for a few polls (or failing
 * validation), in_progress a few lines per poll, expiring after N lines, finalizing, completed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeApi, type FakeApiOptions } from './fake-api.js';

/**
 * How the peer differs from OpenAI's API. Gemini's OpenAI-compatible layer: `prefix`
 * '/v1beta/openai', ids that are resource names (`files/…`, `batches/…`, percent-encoded in paths by
 * the SDK), no batch list (`noList`: 404) and no metadata kept (`dropMetadata`).
 */
export interface PeerFlavor {
  prefix?: string;
  resourceIds?: boolean;
  noList?: boolean;
  dropMetadata?: boolean;
}

export const GEMINI_FLAVOR: PeerFlavor = { prefix: '/v1beta/openai', resourceIds: true, noList: true, dropMetadata: true };

export interface BatchScript {
  /** Retrieves answered with `validating` before the batch starts (default 1). */
  validatingPolls?: number;
  /** The batch fails validation with this message. */
  fail?: string;
  /** Lines run per retrieve while in_progress (default: all). */
  linesPerPoll?: number;
  /** The batch expires after running this many lines. */
  expireAfter?: number;
  /** The create reply is lost: the batch is created, then the connection is dropped. */
  dropCreateReply?: boolean;
  /** The batch is created but the reply never comes (the client can be killed meanwhile). */
  hangCreateReply?: boolean;
  /** The batch completes with an output file that is empty (a provider's broken output, every download). */
  emptyOutput?: boolean;
}

interface FakeFile {
  id: string;
  filename: string;
  purpose: string;
  text: string;
  created_at: number;
}

interface FakeBatch {
  id: string;
  object: 'batch';
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: string;
  created_at: number;
  metadata: Record<string, string> | null;
  output_file_id: string | null;
  error_file_id: string | null;
  errors: { object: 'list'; data: Array<{ code: string; message: string; line: number | null }> } | null;
  request_counts: { total: number; completed: number; failed: number };
  script: BatchScript;
  lines: Array<{ custom_id: string; method: string; url: string; body: unknown }>;
  done: number;
  polls: number;
  outputs: string[];
  errorsOut: string[];
}

export class FakeBatchApi {
  readonly chat: FakeApi;
  readonly files = new Map<string, FakeFile>();
  readonly batches = new Map<string, FakeBatch>();
  /** Script of the n-th batch created (0-based). */
  scriptFor: (n: number) => BatchScript = () => ({});
  /** Calls per route, e.g. `POST /v1/batches`. */
  readonly calls: string[] = [];
  /** When set, POST /v1/batches answers 400 with this message (a provider refusing batches). */
  rejectCreate: string | null = null;
  /** The next N file downloads are cut off in the middle of a line (a transfer that ended early, still 200). */
  cutDownloads = 0;
  /** The next N file downloads answer 200 with an empty body. */
  emptyDownloads = 0;
  /** Authorization headers seen on the Files/Batches routes. */
  readonly authorizations = new Set<string>();
  private server: Server | null = null;
  private seq = 0;
  private lastTime = 0;
  url = '';

  constructor(
    opts: FakeApiOptions = {},
    readonly flavor: PeerFlavor = {},
  ) {
    this.chat = new FakeApi(opts);
  }

  /** The base URL a client is given (the server's root plus the flavor's prefix, or /v1). */
  get base(): string {
    return this.url + (this.flavor.prefix ?? '/v1');
  }

  async start(): Promise<this> {
    await this.chat.start();
    this.server = createServer(
      (req, res) => void this.handle(req, res).catch((e) => this.reply(res, 500, { error: { message: String(e) } })),
    );
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

  /** Chat requests sent interactively (not run inside a batch). */
  interactiveChats(): number {
    return this.chat.requests.filter((r) => r.path === '/v1/chat/completions' && !r.headers['x-fake-batch']).length;
  }

  /** Unix seconds, like the real API's created_at (strictly increasing, so list order is creation order). */
  private tick(): number {
    this.lastTime = Math.max(this.lastTime + 1, Math.floor(Date.now() / 1000));
    return this.lastTime;
  }

  private id(prefix: string): string {
    const n = String(++this.seq).padStart(4, '0');
    return this.flavor.resourceIds && (prefix === 'file' || prefix === 'batch')
      ? `${prefix === 'batch' ? 'batches' : 'files'}/${n}`
      : `${prefix}_${n}`;
  }

  private reply(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://x');
    // A flavor's prefix stands for /v1 (Gemini: /v1beta/openai/chat/completions is the chat route).
    const prefix = this.flavor.prefix;
    if (prefix && url.pathname.startsWith(prefix + '/')) url.pathname = '/v1' + url.pathname.slice(prefix.length);
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (/^\/v1\/(files|batches)/.test(path)) this.authorizations.add(String(req.headers.authorization));
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/files') {
      this.calls.push('POST /v1/files');
      const form = await new Request('http://x/', { method: 'POST', headers: req.headers as Record<string, string>, body: raw }).formData();
      const file = form.get('file') as File;
      const f: FakeFile = {
        id: this.id('file'),
        filename: file.name,
        purpose: String(form.get('purpose')),
        text: await file.text(),
        created_at: this.tick(),
      };
      this.files.set(f.id, f);
      return this.reply(res, 200, {
        id: f.id,
        object: 'file',
        bytes: Buffer.byteLength(f.text),
        created_at: f.created_at,
        filename: f.filename,
        purpose: f.purpose,
        status: 'processed',
      });
    }
    if (method === 'GET' && (m = /^\/v1\/files\/([^/]+)\/content$/.exec(path))) {
      this.calls.push('GET /v1/files/content');
      const f = this.files.get(decodeURIComponent(m[1]!));
      if (!f) return this.reply(res, 404, { error: { message: `no file ${m[1]}` } });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      if (this.emptyDownloads > 0) {
        this.emptyDownloads--;
        return void res.end('');
      }
      if (this.cutDownloads > 0) {
        this.cutDownloads--;
        return void res.end(f.text.slice(0, Math.floor(f.text.length * 0.6)));
      }
      res.end(f.text);
      return;
    }
    if (method === 'POST' && path === '/v1/batches') {
      this.calls.push('POST /v1/batches');
      if (this.rejectCreate) return this.reply(res, 400, { error: { message: this.rejectCreate, type: 'invalid_request_error' } });
      const body = JSON.parse(raw.toString('utf8'));
      const input = this.files.get(body.input_file_id);
      if (!input) return this.reply(res, 400, { error: { message: `no file ${body.input_file_id}` } });
      if (input.purpose !== 'batch') return this.reply(res, 400, { error: { message: 'file purpose is not batch' } });
      const lines = input.text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l));
      const script = this.scriptFor(this.batches.size);
      const b: FakeBatch = {
        id: this.id('batch'),
        object: 'batch',
        endpoint: body.endpoint,
        input_file_id: input.id,
        completion_window: body.completion_window,
        status: 'validating',
        created_at: this.tick(),
        metadata: this.flavor.dropMetadata ? null : (body.metadata ?? null),
        output_file_id: null,
        error_file_id: null,
        errors: null,
        request_counts: { total: 0, completed: 0, failed: 0 },
        script,
        lines,
        done: 0,
        polls: 0,
        outputs: [],
        errorsOut: [],
      };
      this.batches.set(b.id, b);
      if (script.dropCreateReply) {
        req.socket.destroy();
        return;
      }
      if (script.hangCreateReply) return;
      return this.reply(res, 200, view(b));
    }
    if (method === 'GET' && path === '/v1/batches') {
      this.calls.push('GET /v1/batches');
      if (this.flavor.noList) return this.reply(res, 404, { error: { message: 'Method not found.', status: 'NOT_FOUND' } });
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const after = url.searchParams.get('after');
      const all = [...this.batches.values()].reverse();
      const start = after ? all.findIndex((b) => b.id === after) + 1 : 0;
      const page = all.slice(start, start + limit);
      return this.reply(res, 200, {
        object: 'list',
        data: page.map(view),
        first_id: page[0]?.id ?? null,
        last_id: page.at(-1)?.id ?? null,
        has_more: start + limit < all.length,
      });
    }
    if (method === 'GET' && (m = /^\/v1\/batches\/([^/]+)$/.exec(path))) {
      this.calls.push('GET /v1/batches/id');
      const b = this.batches.get(decodeURIComponent(m[1]!));
      if (!b) return this.reply(res, 404, { error: { message: `no batch ${m[1]}` } });
      await this.step(b);
      return this.reply(res, 200, view(b));
    }
    if (method === 'POST' && (m = /^\/v1\/batches\/([^/]+)\/cancel$/.exec(path))) {
      this.calls.push('POST /v1/batches/cancel');
      const b = this.batches.get(decodeURIComponent(m[1]!));
      if (!b) return this.reply(res, 404, { error: { message: `no batch ${m[1]}` } });
      if (!['completed', 'failed', 'expired', 'cancelled'].includes(b.status)) b.status = 'cancelling';
      return this.reply(res, 200, view(b));
    }
    // Everything else is the interactive API.
    const fwd = await fetch(this.chat.url + url.pathname + url.search, {
      method,
      headers: { 'content-type': 'application/json', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) },
      body: method === 'GET' ? undefined : raw,
    });
    res.writeHead(fwd.status, { 'content-type': fwd.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await fwd.arrayBuffer()));
  }

  /** One scripted step of a batch's life. */
  private async step(b: FakeBatch): Promise<void> {
    b.polls++;
    const s = b.script;
    switch (b.status) {
      case 'validating':
        if (b.polls <= (s.validatingPolls ?? 1)) return;
        if (s.fail) {
          b.status = 'failed';
          b.errors = { object: 'list', data: [{ code: 'invalid_request', message: s.fail, line: null }] };
          return;
        }
        b.status = 'in_progress';
        b.request_counts.total = b.lines.length;
        return;
      case 'in_progress': {
        const n = Math.min(s.linesPerPoll ?? b.lines.length, b.lines.length - b.done, (s.expireAfter ?? Infinity) - b.done);
        for (let i = 0; i < n; i++) await this.run(b, b.lines[b.done++]!);
        if (s.expireAfter !== undefined && b.done >= s.expireAfter && b.done < b.lines.length) {
          for (const l of b.lines.slice(b.done)) {
            b.errorsOut.push(
              JSON.stringify({
                id: this.id('batch_req'),
                custom_id: l.custom_id,
                response: null,
                error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' },
              }),
            );
          }
          this.finish(b, 'expired');
        } else if (b.done >= b.lines.length) b.status = 'finalizing';
        return;
      }
      case 'finalizing':
        this.finish(b, 'completed');
        return;
      case 'cancelling':
        this.finish(b, 'cancelled');
        return;
      default:
    }
  }

  private finish(b: FakeBatch, status: string): void {
    const file = (lines: string[], empty = false) => {
      if (lines.length === 0) return null;
      const f: FakeFile = {
        id: this.id('file'),
        filename: `${b.id}.jsonl`,
        purpose: 'batch_output',
        text: empty ? '' : lines.join('\n') + '\n',
        created_at: this.tick(),
      };
      this.files.set(f.id, f);
      return f.id;
    };
    b.output_file_id = file(b.outputs, b.script.emptyOutput === true);
    b.error_file_id = file(b.errorsOut);
    b.status = status;
  }

  /** Runs one line against the interactive API (marked, so tests can tell batch from interactive calls). */
  private async run(b: FakeBatch, line: FakeBatch['lines'][number]): Promise<void> {
    const r = await fetch(this.chat.url + line.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-fake-batch': b.id },
      body: JSON.stringify(line.body),
    });
    const text = await r.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: { message: text.slice(0, 200) } };
    }
    const out = JSON.stringify({
      id: this.id('batch_req'),
      custom_id: line.custom_id,
      response: { status_code: r.status, request_id: `req_${this.seq}`, body },
      error: null,
    });
    if (r.status === 200) {
      b.outputs.push(out);
      b.request_counts.completed++;
    } else {
      b.errorsOut.push(out);
      b.request_counts.failed++;
    }
  }
}

function view(b: FakeBatch): Record<string, unknown> {
  const { script: _s, lines: _l, done: _d, polls: _p, outputs: _o, errorsOut: _e, ...pub } = b;
  return pub;
}
