/**
 * The batch backend of Together's Batch API, through its official SDK (`together-ai`): the part's
 * requests are uploaded as a JSONL file of `{custom_id, body}` lines with purpose `batch-api`,
 * `POST /v1/batches {input_file_id, endpoint}` answers `{job, warning}`, `GET /v1/batches/{id}` the
 * job (status VALIDATING, IN_PROGRESS, COMPLETED, FAILED, EXPIRED, CANCELLED; `progress` 0-100; no
 * request counts), `GET /v1/batches` every job of the account, and the output and error files are
 * read at `/v1/files/{id}/content`. The job is seen in the OpenAI shape BatchJobs keeps, and each
 * result line is turned into an OpenAI output line, so collection and expiry are shared code.
 *
 * The upload: Together's Files API answers `POST /v1/files?file_name&file_type&purpose` with a 302
 * to a signed URL and the new file's id (`x-together-file-id`); the bytes go there by PUT, then the
 * file is read back with `files.retrieve`. The SDK's own helper for it (lib/upload) takes its base
 * URL from TOGETHER_API_BASE_URL when it is loaded, not from the client, and sends the local path as
 * the file name, so the two upload requests are made here with fetch, the rest through the SDK.
 *
 * custom_id: at most 64 characters; a cache key (64 hex digits) is used as it is, any other key is
 * sent as its hash, mapped back from the part's file when results come in.
 *
 * Never twice: Together's jobs carry no metadata, but each names its input file, which is uploaded
 * (and its id recorded in batches.json) before the create is sent. A part with an input file and
 * no batch id adopts the account's job, not recorded by this run, made from that very file: a
 * match by identity (a file is uploaded for one part only).
 */
import type Together from 'together-ai';
import type { Endpoint } from '../session.js';
import { BadReplyError } from '../errors.js';
import { anthropicCustomId as togetherCustomId, type BatchBackend, type BatchView } from './anthropic.js';
import type { BatchLine } from './parts.js';

type Job = Together.Batches.BatchJob;

export async function togetherClient(endpoint: Endpoint, timeoutMs: number): Promise<Together> {
  const { default: TogetherSdk } = await import('together-ai');
  return new TogetherSdk({ apiKey: endpoint.apiKey, baseURL: endpoint.baseUrl, maxRetries: 0, timeout: timeoutMs });
}

/** Jobs that did not run their requests: never adopted (as on OpenAI). */
const DEAD_JOB = new Set(['FAILED', 'EXPIRED', 'CANCELLED']);

const STATUS: Record<string, string> = {
  VALIDATING: 'validating',
  IN_PROGRESS: 'in_progress',
  COMPLETED: 'completed',
  FAILED: 'failed',
  EXPIRED: 'expired',
  CANCELLED: 'cancelled',
};

/** A Together job as BatchJobs records it (lower-case OpenAI statuses; counts from `progress` while it runs). */
export function togetherView(j: Job | undefined, requests: number): BatchView {
  if (!j?.id || !j.status)
    throw new BadReplyError(`Together batch reply without a job id or status: ${JSON.stringify(j ?? null).slice(0, 200)}`, false);
  const status = STATUS[j.status] ?? j.status.toLowerCase();
  const done = status === 'in_progress' && typeof j.progress === 'number' ? Math.floor((j.progress / 100) * requests) : null;
  return {
    id: j.id,
    status,
    input_file_id: j.input_file_id ?? null,
    request_counts: done !== null ? { total: requests, completed: done, failed: 0 } : null,
    output_file_id: j.output_file_id || null,
    error_file_id: j.error_file_id || null,
    errors: j.error ? { data: [{ code: 'batch_failed', message: j.error }] } : null,
  };
}

/**
 * One line of a Together output or error file as an OpenAI batch output line: `{custom_id,
 * response: {status_code, body}}` passes as it is; a response that is the completion itself is
 * wrapped; an error line keeps its message. `key` is the request's cache key.
 */
export function togetherOutputLine(raw: Record<string, unknown>, key: string): Record<string, unknown> {
  const res = raw.response as Record<string, unknown> | null | undefined;
  const err = raw.error as { code?: string; message?: string } | string | null | undefined;
  if (err) {
    const e = typeof err === 'string' ? { message: err } : err;
    return { custom_id: key, response: null, error: { code: e.code ?? 'error', message: e.message ?? '' } };
  }
  if (res && typeof res === 'object' && 'body' in res)
    return { custom_id: key, response: { status_code: res.status_code ?? 200, body: res.body }, error: null };
  if (res && typeof res === 'object' && 'choices' in res) return { custom_id: key, response: { status_code: 200, body: res }, error: null };
  return { custom_id: key, response: null, error: { code: 'no_response', message: JSON.stringify(raw).slice(0, 200) } };
}

/** Uploads a batch input file by Together's Files protocol (302 to a signed URL, then PUT); its id. */
async function upload(endpoint: Endpoint, name: string, text: string, timeoutMs: number): Promise<string> {
  const params = new URLSearchParams({ file_name: name, file_type: 'jsonl', purpose: 'batch-api' });
  const signal = AbortSignal.timeout(timeoutMs);
  const r = await fetch(`${endpoint.baseUrl.replace(/\/+$/, '')}/files?${params}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${endpoint.apiKey}` },
    body: params.toString(),
    redirect: 'manual',
    signal,
  });
  const to = r.headers.get('location');
  const id = r.headers.get('x-together-file-id');
  if (r.status !== 302 || !to || !id) {
    const body = (await r.text()).slice(0, 300);
    throw Object.assign(new Error(`Together file upload: HTTP ${r.status} (expected a 302 with a location and a file id): ${body}`), {
      status: r.status,
    });
  }
  const bytes = Buffer.from(text, 'utf8');
  const put = await fetch(to, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: bytes, signal });
  if (put.status !== 200)
    throw Object.assign(new Error(`Together file upload: the PUT of the file answered HTTP ${put.status}`), { status: put.status });
  return id;
}

export function togetherBatches(endpoint: Endpoint, client: () => Promise<Together>): BatchBackend {
  const opts = (timeout: number) => ({ timeout, maxRetries: 0 });
  return {
    async find(rec, known, timeoutMs) {
      // No input file: the create was never sent. Else the job made from that file, if any.
      if (rec.input_file_id === null) return null;
      const c = await client();
      const jobs = await c.batches.list(opts(timeoutMs));
      const j = (Array.isArray(jobs) ? jobs : []).find(
        (b) => b.input_file_id === rec.input_file_id && b.id && !known.has(b.id) && !DEAD_JOB.has(b.status ?? ''),
      );
      return j ? togetherView(j, rec.requests) : null;
    },
    async create(rec, lines, timeoutMs, hooks) {
      const c = await client();
      if (rec.input_file_id === null) {
        const text = lines.map((l) => JSON.stringify({ custom_id: togetherCustomId(l.custom_id), body: l.body }) + '\n').join('');
        const id = await upload(endpoint, `rawrag-${rec.hash}.jsonl`, text, timeoutMs);
        // The file is Together's own record of the upload (and the check that it arrived whole).
        const f = await c.files.retrieve(id, opts(timeoutMs));
        if (f.bytes !== Buffer.byteLength(text, 'utf8'))
          throw new BadReplyError(`Together file ${id} holds ${f.bytes} bytes, ${Buffer.byteLength(text, 'utf8')} were uploaded`, true);
        rec.input_file_id = id;
        hooks.save();
      }
      const endpointPath = rec.url as Together.Batches.BatchCreateParams['endpoint'];
      const res = await hooks.send(() => c.batches.create({ input_file_id: rec.input_file_id!, endpoint: endpointPath }, opts(timeoutMs)));
      return togetherView(res.job, rec.requests);
    },
    async retrieve(rec, timeoutMs) {
      const c = await client();
      return togetherView(await c.batches.retrieve(rec.batch_id!, opts(timeoutMs)), rec.requests);
    },
    async results(rec, lines, timeoutMs, fileId) {
      const keyOf = new Map(lines.map((l: BatchLine) => [togetherCustomId(l.custom_id), l.custom_id]));
      const c = await client();
      const text = await (await c.files.content(fileId, opts(timeoutMs))).text();
      const out: string[] = [];
      for (const raw of text.split('\n')) {
        if (raw.trim() === '') continue;
        let v: Record<string, unknown>;
        try {
          v = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          // A cut-off line: kept as it is, so the shared check downloads the file again.
          out.push(raw);
          continue;
        }
        const key = typeof v.custom_id === 'string' ? keyOf.get(v.custom_id) : undefined;
        if (key !== undefined) out.push(JSON.stringify(togetherOutputLine(v, key)));
      }
      return out.join('\n') + (out.length ? '\n' : '');
    },
  };
}
