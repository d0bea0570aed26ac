/**
 * `rawrag data pull`: fetches a benchmark's official files (Benchmark.downloads) over HTTPS into
 * datasets/<benchmark>/. Downloads go to `<file>.part` and resume with a Range request after a
 * dropped connection (also across invocations); the finished file must match its pinned sha256
 * or it is deleted and refused. Files without a published checksum need `allowUnpinned`, and
 * their computed sha256 is reported so it can be pinned.
 */
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { writeAllSync } from '../util/checked-write.js';
import { basename, dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { DownloadFile } from '../core/benchmark.js';
import { InputError } from '../util/errors.js';
import { sha256File } from '../util/fsx.js';

/** A download that cannot complete (refused checksum, HTTP error, unpinned file): printed without a stack. */
export class DownloadError extends InputError {}

export interface PullOptions {
  /** Folder the DownloadFile paths (`datasets/...`) are resolved under (the project root by default). */
  root: string;
  /** Replaces each file's URL location: the URL's file name is fetched from here (mirrors, tests). */
  baseUrl?: string | null;
  /** Download files that have no pinned sha256 (their computed sha256 is reported). */
  allowUnpinned?: boolean;
  /** Download again even when the file is already there. */
  force?: boolean;
  /** Automatic resumes after a dropped connection, per file. */
  retries?: number;
  log?(line: string): void;
  progress?(done: number, total: number | null): void;
}

export interface PullResult {
  path: string;
  url: string;
  sha256: string;
  bytes: number;
  /** `present`: already there (and verified when pinned). */
  status: 'downloaded' | 'present';
  pinned: boolean;
}

/** The URL a file is fetched from: the pinned one, or its file name under `baseUrl`. */
export function sourceUrl(file: DownloadFile, baseUrl?: string | null): string {
  const url = baseUrl ? `${baseUrl.replace(/\/+$/, '')}/${basename(new URL(file.url).pathname)}` : file.url;
  checkScheme(url);
  return url;
}

/** HTTPS only; plain HTTP is accepted for loopback hosts (tests, a local mirror). */
function checkScheme(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new DownloadError(`not a URL: '${url}'`, { place: '--base-url' });
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback)) {
    throw new DownloadError(`refusing ${u.protocol}// (HTTPS required; plain HTTP only for loopback hosts): ${url}`, {
      place: 'download URL',
    });
  }
}

export async function pullFile(file: DownloadFile, opts: PullOptions): Promise<PullResult> {
  const log = opts.log ?? (() => {});
  const dest = resolve(opts.root, file.path);
  const url = sourceUrl(file, opts.baseUrl);
  const pinned = file.sha256 !== null;
  if (!pinned && !opts.allowUnpinned) {
    throw new DownloadError(
      `no published sha256 is pinned for ${url}: rerun with --allow-unpinned to download it unverified (its sha256 will be printed)`,
      { file: dest },
    );
  }
  if (existsSync(dest) && !opts.force) {
    const sha = await sha256File(dest);
    if (pinned && sha !== file.sha256) {
      throw new DownloadError(
        `already present but its sha256 ${sha} differs from the pinned ${file.sha256}; remove it or rerun with --force`,
        { file: dest },
      );
    }
    return { path: dest, url, sha256: sha, bytes: statSync(dest).size, status: 'present', pinned };
  }
  mkdirSync(dirname(dest), { recursive: true });
  const part = `${dest}.part`;
  const retries = opts.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    try {
      await fetchInto(url, part, file.bytes ?? null, log, opts.progress);
      break;
    } catch (e) {
      if (e instanceof DownloadError || attempt >= retries) {
        if (e instanceof DownloadError) throw e;
        throw new DownloadError(
          `download failed after ${attempt + 1} attempt(s): ${fetchFailure(e, url)}; rerun to resume from the ${partSize(part)} bytes kept in ${basename(part)}`,
          { file: dest },
        );
      }
      const kept = partSize(part);
      log(
        `${kept > 0 ? `connection lost at ${kept} bytes` : 'no connection'} (${fetchFailure(e, url)}); ${kept > 0 ? 'resuming' : 'trying again'} (${attempt + 1}/${retries})`,
      );
    }
  }
  const bytes = partSize(part);
  const sha = await sha256File(part);
  const sizeWrong = file.bytes !== undefined && bytes !== file.bytes;
  if ((pinned && sha !== file.sha256) || sizeWrong) {
    rmSync(part, { force: true });
    const what =
      pinned && sha !== file.sha256
        ? `sha256 ${sha} does not match the pinned ${file.sha256}`
        : `size ${bytes} bytes differs from the pinned ${file.bytes}`;
    throw new DownloadError(`checksum mismatch: ${what}; the downloaded file was removed`, { file: dest });
  }
  renameSync(part, dest);
  return { path: dest, url, sha256: sha, bytes, status: 'downloaded', pinned };
}

/** What the system said, not only fetch's "fetch failed": the error code and the host (offline, DNS, refused). */
const CAUSES: Record<string, string> = {
  ENOTFOUND: 'DNS lookup failed — offline, or no such host?',
  EAI_AGAIN: 'DNS lookup timed out — offline?',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  ENETUNREACH: 'network unreachable — offline?',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the server',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
};

export function fetchFailure(e: unknown, url: string): string {
  const err = e as Error & { cause?: { code?: string; hostname?: string; errors?: Array<{ code?: string }> } };
  const cause = err?.cause;
  const code = cause?.code ?? cause?.errors?.find((x) => x.code)?.code;
  if (!code) return err?.message ?? String(e);
  let host = cause?.hostname;
  if (!host) {
    try {
      host = new URL(url).host;
    } catch {
      host = url;
    }
  }
  return `${err.message}: ${code} ${host}${CAUSES[code] ? ` (${CAUSES[code]})` : ''}`;
}

function partSize(part: string): number {
  return existsSync(part) ? statSync(part).size : 0;
}

/** One HTTP exchange: appends to `part` from where it ends (Range), or restarts it. */
async function fetchInto(
  url: string,
  part: string,
  expected: number | null,
  log: (line: string) => void,
  progress?: (done: number, total: number | null) => void,
): Promise<void> {
  let have = partSize(part);
  if (expected !== null && have > expected) {
    rmSync(part, { force: true });
    have = 0;
  }
  const headers: Record<string, string> = {};
  if (have > 0) headers.Range = `bytes=${have}-`;
  const res = await fetch(url, { headers, redirect: 'follow' });
  if (res.status === 416 && have > 0) {
    // Nothing left to send: the part file already holds the whole resource (checked by size/hash).
    const total = /\/(\d+)$/.exec(res.headers.get('content-range') ?? '')?.[1];
    await res.body?.cancel();
    if (total !== undefined && Number(total) === have) return;
    log(`server refused the resume range; starting over`);
    rmSync(part, { force: true });
    return fetchInto(url, part, expected, log, progress);
  }
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel();
    const msg = `HTTP ${res.status} ${res.statusText} from ${url}`;
    // Server-side trouble may pass; anything else (404, 403) will not.
    if (res.status >= 500) throw new Error(msg);
    throw new DownloadError(msg, { file: part });
  }
  let append = false;
  if (res.status === 206) {
    const start = Number(/bytes (\d+)-/.exec(res.headers.get('content-range') ?? '')?.[1] ?? NaN);
    append = start === have;
    if (!append) {
      await res.body?.cancel();
      log(`server resumed at the wrong offset; starting over`);
      rmSync(part, { force: true });
      return fetchInto(url, part, expected, log, progress);
    }
  } else if (have > 0) {
    log('server does not support resuming (no Range support); starting over');
  }
  if (!res.body) throw new Error('empty response body');
  const length = Number(res.headers.get('content-length') ?? NaN);
  const total = Number.isFinite(length) ? (append ? have : 0) + length : expected;
  let done = append ? have : 0;
  // Synchronous writes: every byte received is on disk when the connection drops, so the next
  // Range request starts exactly where this one ended.
  const fd = openSync(part, append ? 'a' : 'w');
  try {
    for await (const chunk of Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>)) {
      writeAllSync(fd, chunk as Buffer, part);
      done += (chunk as Buffer).length;
      progress?.(done, total);
    }
  } finally {
    closeSync(fd);
  }
  // A body cut short without a transport error still leaves a short file: resume it.
  if (Number.isFinite(length) && done < (append ? have : 0) + length) throw new Error(`response ended early (${done} of ${total} bytes)`);
}
