/**
 * A loopback peer answering as Together's Files and Batch API does (127.0.0.1, port 0), in front of
 * a FakeApi that serves the interactive /v1/chat/completions and runs each batch line:
 *
 * - POST /v1/files?file_name&file_type&purpose: 302 to a signed upload URL with `x-together-file-id`
 *   (the protocol of the together-ai SDK's upload helper); PUT /upload/{id} takes the bytes;
 *   GET /v1/files/{id} the file object; GET /v1/files/{id}/content the file.
 * - POST /v1/batches {input_file_id, endpoint}: 201 `{job, warning}`; input lines are
 *   `{custom_id, body}` (custom_id at most 64 characters) in a `batch-api` file.
 * - GET /v1/batches/{id}: the job (status VALIDATING, IN_PROGRESS, COMPLETED, ...; `progress`
 *   0-100; no request counts); GET /v1/batches: every job, a bare array.
 *
 * A job moves one step per retrieve: VALIDATING for `validatingPolls`, then `perPoll` lines per
 * retrieve, then COMPLETED with an output file (one line per successful request) and an error file.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeApi, type FakeApiOptions } from './fake-api.js';

interface TFile {
  id: string;
  filename: string;
  purpose: string;
  text: string | null;
  created_at: number;
}

export interface TJob {
  id: string;
  user_id: string;
  input_file_id: string;
  file_size_bytes: number;
  status: string;
  job_deadline: string;
  created_at: string;
  endpoint: string;
  progress: number;
  model_id: string;
  output_file_id?: string;
  error_file_id?: string;
  error?: string;
  completed_at?: string;
  lines: Array<{ custom_id: string; body: Record<string, unknown> }>;
  done: number;
  polls: number;
  outputs: string[];
  errorsOut: string[];
}

export class FakeTogetherBatches {
  readonly chat: FakeApi;
  readonly files = new Map<string, TFile>();
  readonly jobs = new Map<string, TJob>();
  readonly calls: string[] = [];
  readonly keys = new Set<string>();
  validatingPolls = 1;
  perPoll = Infinity;
  /** The create makes the job, then never answers (the client can be killed meanwhile). */
  hangCreate = false;
  private server: Server | null = null;
  private seq = 0;
  url = '';

  constructor(opts: FakeApiOptions = {}) {
    this.chat = new FakeApi(opts);
  }

  get base(): string {
    return `${this.url}/v1`;
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

  /** Chat requests sent one by one (not run inside a batch). */
  interactive(): number {
    return this.chat.requests.filter((r) => r.path === '/v1/chat/completions' && !r.headers['x-fake-batch']).length;
  }

  private reply(res: ServerResponse, status: number, body: unknown): void {
    if (res.headersSent) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private fileView(f: TFile): Record<string, unknown> {
    const bytes = Buffer.byteLength(f.text ?? '');
    return {
      id: f.id,
      object: 'file',
      bytes,
      created_at: f.created_at,
      filename: f.filename,
      FileType: 'jsonl',
      Processed: true,
      purpose: f.purpose,
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (path.startsWith('/v1/')) this.keys.add(String(req.headers.authorization));
    let m: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/files') {
      this.calls.push('POST /v1/files');
      const q = url.searchParams;
      if (q.get('file_type') !== 'jsonl' || !q.get('purpose') || !q.get('file_name'))
        return this.reply(res, 400, { error: { message: 'file_name, file_type and purpose are required' } });
      const f: TFile = {
        id: `file-${++this.seq}`,
        filename: q.get('file_name')!,
        purpose: q.get('purpose')!,
        text: null,
        created_at: Date.now(),
      };
      this.files.set(f.id, f);
      res.writeHead(302, { location: `${this.url}/upload/${f.id}?signature=x`, 'x-together-file-id': f.id });
      return void res.end();
    }
    if (method === 'PUT' && (m = /^\/upload\/([^/]+)$/.exec(path))) {
      this.calls.push('PUT upload');
      const f = this.files.get(m[1]!);
      if (!f) return this.reply(res, 404, { error: { message: 'no such upload' } });
      f.text = raw.toString('utf8');
      res.writeHead(200);
      return void res.end();
    }
    if (method === 'GET' && (m = /^\/v1\/files\/([^/]+)\/content$/.exec(path))) {
      this.calls.push('GET /v1/files/content');
      const f = this.files.get(m[1]!);
      if (!f || f.text === null) return this.reply(res, 404, { error: { message: `no file ${m[1]}` } });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return void res.end(f.text);
    }
    if (method === 'GET' && (m = /^\/v1\/files\/([^/]+)$/.exec(path))) {
      this.calls.push('GET /v1/files/id');
      const f = this.files.get(m[1]!);
      if (!f) return this.reply(res, 404, { error: { message: `no file ${m[1]}` } });
      return this.reply(res, 200, this.fileView(f));
    }
    if (method === 'POST' && path === '/v1/batches') return this.create(req, res, JSON.parse(raw.toString('utf8')));
    if (method === 'GET' && path === '/v1/batches') {
      this.calls.push('GET /v1/batches');
      return this.reply(res, 200, [...this.jobs.values()].map(view));
    }
    if (method === 'GET' && (m = /^\/v1\/batches\/([^/]+)$/.exec(path))) {
      this.calls.push('GET /v1/batches/id');
      const j = this.jobs.get(m[1]!);
      if (!j) return this.reply(res, 404, { error: { message: `no batch ${m[1]}` } });
      await this.step(j);
      return this.reply(res, 200, view(j));
    }
    const fwd = await fetch(this.chat.url + (req.url ?? '/'), {
      method,
      headers: { 'content-type': 'application/json', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) },
      body: method === 'GET' ? undefined : raw,
    });
    res.writeHead(fwd.status, { 'content-type': fwd.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await fwd.arrayBuffer()));
  }

  private create(req: IncomingMessage, res: ServerResponse, body: { input_file_id?: string; endpoint?: string }): void {
    this.calls.push('POST /v1/batches');
    const f = body.input_file_id ? this.files.get(body.input_file_id) : undefined;
    if (!f || f.text === null) return this.reply(res, 400, { error: { message: `no file ${body.input_file_id}` } });
    if (f.purpose !== 'batch-api') return this.reply(res, 400, { error: { message: 'file purpose must be batch-api' } });
    if (body.endpoint !== '/v1/chat/completions')
      return this.reply(res, 400, { error: { message: `unsupported endpoint ${body.endpoint}` } });
    const lines = f.text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
    for (const l of lines)
      if (typeof l.custom_id !== 'string' || l.custom_id.length > 64 || !l.body)
        return this.reply(res, 400, { error: { message: `invalid line: custom_id must be at most 64 characters, body an object` } });
    const now = new Date();
    const j: TJob = {
      id: `${String(++this.seq).padStart(8, '0')}-b000-4000-8000-000000000000`,
      user_id: 'user_fake',
      input_file_id: f.id,
      file_size_bytes: Buffer.byteLength(f.text),
      status: 'VALIDATING',
      job_deadline: new Date(now.getTime() + 86_400_000).toISOString(),
      created_at: now.toISOString(),
      endpoint: body.endpoint,
      progress: 0,
      model_id: String(lines[0]?.body?.model ?? ''),
      lines,
      done: 0,
      polls: 0,
      outputs: [],
      errorsOut: [],
    };
    this.jobs.set(j.id, j);
    if (this.hangCreate) return;
    this.reply(res, 201, { job: view(j), warning: '' });
  }

  private async step(j: TJob): Promise<void> {
    j.polls++;
    if (j.status === 'VALIDATING') {
      if (j.polls > this.validatingPolls) j.status = 'IN_PROGRESS';
      return;
    }
    if (j.status !== 'IN_PROGRESS') return;
    const n = Math.min(this.perPoll, j.lines.length - j.done);
    for (let i = 0; i < n; i++) await this.run(j, j.lines[j.done++]!);
    j.progress = Math.round((100 * j.done) / j.lines.length);
    if (j.done < j.lines.length) return;
    const file = (lines: string[]) => {
      if (lines.length === 0) return undefined;
      const f: TFile = {
        id: `file-${++this.seq}`,
        filename: `${j.id}.jsonl`,
        purpose: 'batch-api',
        text: lines.join('\n') + '\n',
        created_at: Date.now(),
      };
      this.files.set(f.id, f);
      return f.id;
    };
    j.output_file_id = file(j.outputs);
    j.error_file_id = file(j.errorsOut);
    j.status = 'COMPLETED';
    j.completed_at = new Date().toISOString();
  }

  private async run(j: TJob, line: TJob['lines'][number]): Promise<void> {
    const r = await fetch(`${this.chat.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-fake-batch': j.id },
      body: JSON.stringify(line.body),
    });
    const body = JSON.parse(await r.text());
    if (r.status === 200)
      j.outputs.push(JSON.stringify({ id: `req-${++this.seq}`, custom_id: line.custom_id, response: { status_code: 200, body } }));
    else j.errorsOut.push(JSON.stringify({ custom_id: line.custom_id, error: { message: body?.error?.message ?? `HTTP ${r.status}` } }));
  }
}

function view(j: TJob): Record<string, unknown> {
  const { lines: _l, done: _d, polls: _p, outputs: _o, errorsOut: _e, ...pub } = j;
  return pub;
}
