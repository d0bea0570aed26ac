/**
 * What every loopback peer of the tests does the same way (tests/helpers/fake-api.ts for the model
 * providers, tests/helpers/fake-mem0.ts for Mem0): listen on 127.0.0.1 (port 0 unless told), read
 * and record each request, count requests in flight, wait a set delay, and apply injected faults
 * (a status with headers, a slow reply, a dropped connection). What a peer answers, and the faults
 * only it knows, are its own.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** Which fault (if any) was applied to this request. */
  fault: string | null;
}

export interface Fault<Kind extends string> {
  /** Which requests it hits (default: all). */
  match?(req: RecordedRequest): boolean;
  /** How many matching requests it hits (default 1; Infinity = all). */
  times?: number;
  kind: Kind;
  status?: number;
  headers?: Record<string, string>;
  /** Reply body for `status` faults (default: the peer's own error object). */
  body?: string | ((req: RecordedRequest) => string);
  /** Delay for `slow` faults, before a normal reply. */
  delayMs?: number;
}

/** The faults every peer applies the same way. */
export type CommonFaultKind = 'status' | 'slow' | 'reset';

export abstract class LoopbackServer<Kind extends string> {
  readonly requests: RecordedRequest[] = [];
  /**
   * The pre-flight's `GET .../models` (src/preflight/reach.ts): free calls that reach the endpoint
   * once before a run, kept apart from `requests` (what the run asked) and never hit by faults.
   */
  readonly probes: RecordedRequest[] = [];
  faults: Array<Fault<Kind> & { left: number }> = [];
  /** Requests being answered right now, and the most there ever were at once. */
  inFlight = 0;
  maxInFlight = 0;
  private server: Server | null = null;
  url = '';

  /** `delayMs`: before every reply (a slow peer): concurrency shows as requests in flight at once. */
  constructor(private readonly delayMs = 0) {}

  async start(port = 0): Promise<this> {
    // A client killed mid-request (the kill -9 tests) aborts its body: that request is dropped, not an unhandled rejection.
    this.server = createServer((req, res) => void this.handle(req, res).catch(() => res.destroy()));
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }

  inject(f: Fault<Kind>): void {
    this.faults.push({ ...f, left: f.times ?? 1 });
  }

  /** The body of a `status` fault without one of its own. */
  protected abstract errorBody(status: number | undefined): unknown;

  /** Answers a request no fault has ended (`fault`: the one applied, if any, for faults only this peer knows). */
  protected abstract respond(
    rec: RecordedRequest,
    req: IncomingMessage,
    res: ServerResponse,
    fault: (Fault<Kind> & { left: number }) | null,
  ): void | Promise<void>;

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: any = null;
    const type = String(req.headers['content-type'] ?? '');
    if (type.startsWith('multipart/form-data')) body = multipartOf(Buffer.concat(chunks).toString('utf8'), type);
    else
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      } catch {
        body = null;
      }
    const u = new URL(req.url ?? '/', 'http://x');
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: u.pathname,
      query: Object.fromEntries(u.searchParams),
      headers: req.headers,
      body,
      fault: null,
    };
    if (rec.method === 'GET' && rec.path.endsWith('/models')) {
      this.probes.push(rec);
      return void (await this.respond(rec, req, res, null));
    }
    this.requests.push(rec);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => this.inFlight--);
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    const fault = this.faults.find((f) => f.left > 0 && (f.match?.(rec) ?? true)) ?? null;
    if (fault) {
      fault.left--;
      rec.fault = fault.kind + (fault.status ? ` ${fault.status}` : '');
      const kind: string = fault.kind;
      if (kind === 'reset') return void req.socket.destroy();
      if (kind === 'status') {
        const text = typeof fault.body === 'function' ? fault.body(rec) : (fault.body ?? JSON.stringify(this.errorBody(fault.status)));
        res.writeHead(fault.status ?? 500, { 'content-type': 'application/json', ...fault.headers });
        return void res.end(text);
      }
      if (kind === 'slow') {
        await new Promise((r) => setTimeout(r, fault.delayMs ?? 2000));
        if (res.destroyed || req.socket.destroyed) return;
      }
    }
    await this.respond(rec, req, res, fault);
  }
}

/** A multipart/form-data body (a file upload) as `{name: {filename?, content}}`, text parts only. */
export function multipartOf(text: string, contentType: string): Record<string, { filename: string | null; content: string }> {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
  const out: Record<string, { filename: string | null; content: string }> = {};
  if (!boundary) return out;
  for (const part of text.split(`--${boundary}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = part.slice(0, split);
    const name = /name="([^"]*)"/.exec(head)?.[1];
    if (name === undefined) continue;
    const filename = /filename="([^"]*)"/.exec(head)?.[1] ?? null;
    out[name] = { filename, content: part.slice(split + 4).replace(/\r\n$/, '') };
  }
  return out;
}
