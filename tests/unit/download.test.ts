/** `pullFile` against a real loopback HTTP server: success, resume, refused checksums. */
import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DownloadError, pullFile, sourceUrl } from '../../src/benchmarks/download.js';
import type { DownloadFile } from '../../src/core/benchmark.js';
import { tempDir } from '../helpers/cli.js';

const BODY = Buffer.from(Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join(''));
const SHA = createHash('sha256').update(BODY).digest('hex');

interface Loopback {
  base: string;
  requests: Array<{ url: string; range: string | undefined }>;
  server: Server;
}

/**
 * Serves BODY at any path, honouring Range (unless `noRange`); the first `cuts` responses are cut
 * after `cutAt` bytes of the body by closing the connection.
 */
async function serve(opts: { cuts?: number; cutAt?: number; noRange?: boolean; status?: number; body?: Buffer } = {}): Promise<Loopback> {
  const body = opts.body ?? BODY;
  const requests: Loopback['requests'] = [];
  let cuts = opts.cuts ?? 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push({ url: req.url ?? '', range: req.headers.range });
    if (opts.status) {
      res.writeHead(opts.status).end('nope');
      return;
    }
    let start = 0;
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (m && !opts.noRange) {
      start = Number(m[1]);
      if (start >= body.length) {
        res.writeHead(416, { 'Content-Range': `bytes */${body.length}` }).end();
        return;
      }
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${body.length - 1}/${body.length}`, 'Content-Length': body.length - start });
    } else {
      res.writeHead(200, { 'Content-Length': body.length });
    }
    const rest = body.subarray(start);
    if (cuts > 0) {
      cuts--;
      res.write(rest.subarray(0, opts.cutAt ?? 1000), () => res.socket?.destroy());
      return;
    }
    res.end(rest);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  servers.push(server);
  return { base: `http://127.0.0.1:${port}/mirror`, requests, server };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

const file = (sha256: string | null, bytes?: number): DownloadFile => ({
  url: 'https://huggingface.co/datasets/x/y/resolve/main/data.json',
  path: 'datasets/x/data.json',
  sha256,
  ...(bytes !== undefined ? { bytes } : {}),
});

describe('pullFile', () => {
  it('downloads, verifies the pinned sha256 and stores the file under its datasets/ path', async () => {
    const srv = await serve();
    const root = tempDir();
    const r = await pullFile(file(SHA, BODY.length), { root, baseUrl: srv.base });
    expect(r).toMatchObject({ status: 'downloaded', sha256: SHA, bytes: BODY.length, pinned: true, url: `${srv.base}/data.json` });
    expect(readFileSync(join(root, 'datasets/x/data.json')).equals(BODY)).toBe(true);
    expect(existsSync(join(root, 'datasets/x/data.json.part'))).toBe(false);
    expect(srv.requests).toEqual([{ url: '/mirror/data.json', range: undefined }]);
    // A second pull finds it, verifies it and sends no request.
    const again = await pullFile(file(SHA), { root, baseUrl: srv.base });
    expect(again.status).toBe('present');
    expect(srv.requests).toHaveLength(1);
  });

  it('resumes an interrupted download with a Range request', async () => {
    const srv = await serve({ cuts: 1, cutAt: 70_000 });
    const root = tempDir();
    const logs: string[] = [];
    const r = await pullFile(file(SHA), { root, baseUrl: srv.base, log: (l) => logs.push(l) });
    expect(r.status).toBe('downloaded');
    expect(readFileSync(join(root, 'datasets/x/data.json')).equals(BODY)).toBe(true);
    expect(srv.requests.map((q) => q.range)).toEqual([undefined, 'bytes=70000-']);
    expect(logs.join('\n')).toMatch(/connection lost at 70000 bytes.*resuming \(1\/3\)/);
  });

  it('keeps the partial file when it gives up, and the next pull resumes from it', async () => {
    const srv = await serve({ cuts: 1, cutAt: 50_000 });
    const root = tempDir();
    const err = await pullFile(file(SHA), { root, baseUrl: srv.base, retries: 0 }).catch((e) => e);
    expect(err).toBeInstanceOf(DownloadError);
    expect(err.message).toMatch(/download failed after 1 attempt\(s\).*rerun to resume from the 50000 bytes kept in data\.json\.part/);
    expect(readFileSync(join(root, 'datasets/x/data.json.part'))).toHaveLength(50_000);
    const r = await pullFile(file(SHA), { root, baseUrl: srv.base, retries: 0 });
    expect(r.status).toBe('downloaded');
    expect(srv.requests.map((q) => q.range)).toEqual([undefined, 'bytes=50000-']);
    expect(readFileSync(join(root, 'datasets/x/data.json')).equals(BODY)).toBe(true);
  });

  it('starts over when the server ignores Range', async () => {
    const srv = await serve({ noRange: true });
    const root = tempDir();
    mkdirSync(join(root, 'datasets/x'), { recursive: true });
    writeFileSync(join(root, 'datasets/x/data.json.part'), 'garbage that must not stay');
    const r = await pullFile(file(SHA), { root, baseUrl: srv.base });
    expect(r.sha256).toBe(SHA);
    expect(srv.requests[0]!.range).toBe('bytes=26-');
  });

  it('refuses a file whose sha256 does not match and removes it', async () => {
    const srv = await serve();
    const root = tempDir();
    const wrong = '0'.repeat(64);
    await expect(pullFile(file(wrong), { root, baseUrl: srv.base })).rejects.toThrow(
      /checksum mismatch: sha256 [0-9a-f]{64} does not match the pinned 0{64}; the downloaded file was removed/,
    );
    expect(existsSync(join(root, 'datasets/x/data.json'))).toBe(false);
    expect(existsSync(join(root, 'datasets/x/data.json.part'))).toBe(false);
  });

  it('refuses a present file that does not match its pin', async () => {
    const srv = await serve();
    const root = tempDir();
    mkdirSync(join(root, 'datasets/x'), { recursive: true });
    writeFileSync(join(root, 'datasets/x/data.json'), 'tampered');
    await expect(pullFile(file(SHA), { root, baseUrl: srv.base })).rejects.toThrow(
      /already present but its sha256 .* differs from the pinned/,
    );
    expect(srv.requests).toHaveLength(0);
    expect((await pullFile(file(SHA), { root, baseUrl: srv.base, force: true })).status).toBe('downloaded');
  });

  it('needs allowUnpinned for a file without a checksum, then reports its sha256', async () => {
    const srv = await serve();
    const root = tempDir();
    await expect(pullFile(file(null), { root, baseUrl: srv.base })).rejects.toThrow(/no published sha256 is pinned .* --allow-unpinned/);
    expect(srv.requests).toHaveLength(0);
    const r = await pullFile(file(null), { root, baseUrl: srv.base, allowUnpinned: true });
    expect(r).toMatchObject({ status: 'downloaded', pinned: false, sha256: SHA });
  });

  it('reports HTTP errors without retrying client errors', async () => {
    const srv = await serve({ status: 404 });
    await expect(pullFile(file(SHA), { root: tempDir(), baseUrl: srv.base })).rejects.toThrow(
      /HTTP 404 Not Found from http:\/\/127\.0\.0\.1:\d+\/mirror\/data\.json/,
    );
    expect(srv.requests).toHaveLength(1);
  });

  it('requires HTTPS except on loopback hosts', () => {
    expect(sourceUrl(file(SHA))).toBe('https://huggingface.co/datasets/x/y/resolve/main/data.json');
    expect(sourceUrl(file(SHA), 'http://localhost:8080/m/')).toBe('http://localhost:8080/m/data.json');
    expect(() => sourceUrl(file(SHA), 'http://mirror.example.org/m')).toThrow(/refusing http:\/\/ \(HTTPS required/);
    expect(() => sourceUrl(file(SHA), 'not a url')).toThrow(/not a URL/);
  });
});
