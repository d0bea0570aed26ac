/**
 * A loopback OpenAI-compatible server whose chat replies name a served model and a
 * `system_fingerprint` of its own, as real endpoints do. It is a FakeApi (same protocol peer)
 * with a thin relay in front that decorates the replies; requests really cross HTTP twice.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeApi, type FakeApiOptions } from './fake-api.js';

export class FingerprintedApi {
  readonly api: FakeApi;
  private server: Server | null = null;
  url = '';

  constructor(
    readonly servedModel: (requested: string) => string,
    readonly fingerprint: string,
    opts: FakeApiOptions = {},
  ) {
    this.api = new FakeApi(opts);
  }

  async start(): Promise<this> {
    await this.api.start();
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const upstream = await fetch(`${this.api.url}${req.url}`, {
        method: req.method,
        headers: { 'content-type': 'application/json' },
        body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
      });
      let text = await upstream.text();
      if (upstream.ok && (req.url ?? '').startsWith('/v1/chat/completions')) {
        const body = JSON.parse(text);
        text = JSON.stringify({ ...body, model: this.servedModel(body.model), system_fingerprint: this.fingerprint });
      }
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(text);
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
    return this;
  }

  /** Requests that reached the server behind the relay. */
  count(path?: string): number {
    return this.api.count(path);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
    await this.api.close();
  }
}
