/**
 * `rawrag view`'s HTTP server (node:http, 127.0.0.1 only): the report pages of a results folder,
 * refreshed while runs write (src/view/site.ts), and the two JSON routes their script polls.
 *
 *   GET /                     the index (several benchmarks) or the only page
 *   GET /report.<bench>.html  a benchmark's page (as `rawrag report` names it beside its index)
 *   GET /api/progress         each run's progress, and the newest build of the pages
 *   GET /api/page?path=/...   a page's parts (header, sections, the page script's data)
 *
 * Only requests naming this server as their host are answered (a page elsewhere cannot read the
 * results through the browser by pointing a name at 127.0.0.1).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { indexHtml } from '../report/pages.js';
import { pageHtml } from '../report/html.js';
import { InputError } from '../util/errors.js';
import { liveScript, livePanel } from './live-client.js';
import { LiveSite, type BuiltSite, type ServedPage } from './site.js';

/** The port `rawrag view` listens on unless told (`--port 0`: any free one). */
export const DEFAULT_VIEW_PORT = 7475;

export interface ViewServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startViewServer(site: LiveSite, opts: { port: number; intervalMs: number }): Promise<ViewServer> {
  let port = opts.port;
  const server: Server = createServer((req, res) => {
    handle(site, req, res, port, opts.intervalMs).catch((e: Error) => send(res, 500, 'text/plain', `internal error: ${e.message}\n`));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new InputError(
              `port ${opts.port} on 127.0.0.1 is in use (another rawrag view?): --port N names another, --port 0 takes a free one`,
              {},
            )
          : e,
      ),
    );
    server.listen(opts.port, '127.0.0.1', () => resolveListen());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () =>
      new Promise<void>((done) => {
        // Open keep-alive connections (a browser tab) would hold the process: closed with the server.
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

async function handle(site: LiveSite, req: IncomingMessage, res: ServerResponse, port: number, intervalMs: number): Promise<void> {
  const allowed = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!allowed.includes(String(req.headers.host ?? ''))) {
    send(res, 403, 'text/plain', `rawrag view answers requests for ${allowed.join(' or ')} only\n`);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    send(res, 405, 'text/plain', 'only GET\n');
    return;
  }
  const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
  if (url.pathname === '/api/progress') {
    send(res, 200, 'application/json', JSON.stringify(site.progress()));
    return;
  }
  const built = await site.pages();
  if (url.pathname === '/api/page') {
    const page = find(built, url.searchParams.get('path') ?? '/');
    if (!page) send(res, 404, 'application/json', JSON.stringify({ error: 'no such page' }));
    else send(res, 200, 'application/json', JSON.stringify({ version: built.version, ...page }));
    return;
  }
  const page = find(built, url.pathname);
  if (!page) {
    send(res, 404, 'text/html', `<!doctype html><title>not found</title><p>No such page. <a href="/">The results</a></p>\n`);
    return;
  }
  send(res, 200, 'text/html', render(page, built.version, intervalMs));
}

/** A page path; a benchmark's page that is gone (its runs moved away) falls back to the first page. */
function find(built: BuiltSite, path: string): ServedPage | null {
  return built.pages.find((p) => p.path === path) ?? (path === '/index.html' ? built.pages[0]! : null);
}

function render(page: ServedPage, version: string, intervalMs: number): string {
  const extras = { connect: "'self'", top: livePanel(version, page.kind, intervalMs), script: liveScript() };
  if (page.kind === 'page' && page.blob !== null)
    return pageHtml({ title: page.title, header: page.header, main: page.main, blob: page.blob }, extras);
  return indexHtml(page, extras);
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': `${type}; charset=utf-8`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-length': Buffer.byteLength(body),
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
