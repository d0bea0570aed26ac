/**
 * The batch backend of the Anthropic protocol: Message Batches (`POST /v1/messages/batches`,
 * `GET /v1/messages/batches/{id}`, `GET /v1/messages/batches` newest first, the results JSONL at
 * the batch's `results_url`), through the official `@anthropic-ai/sdk`. A part's JSONL lines
 * ({custom_id, url: '/v1/messages', body}) become `{custom_id, params: body}` requests; the batch
 * is seen in the OpenAI shape BatchJobs keeps in batches.json (status, counts, an output "file"
 * that is the results), and each result line is turned into an OpenAI output line, so collection,
 * expiry and failure handling are the same code for both protocols.
 *
 * custom_id: 1-64 characters of [a-zA-Z0-9_-]. A cache key (64 hex digits) is used as it is; any
 * other key is sent as a hash of itself, recomputed from the part's file when results come back.
 *
 * Never twice: Anthropic batches carry no metadata. The time a create is sent is recorded in
 * batches.json (`create_sent_at`) before it goes out; a part with no batch id but a create sent (a
 * kill, or a reply lost, around the create) adopts the newest batch of this account, not recorded
 * by this run, created since then (less a clock-skew margin) with exactly the part's request
 * count; a part whose create was never sent is never matched. This is a match by time and count,
 * not by identity (another client creating a batch of the same size in that window could be
 * taken instead). A batch adopted by mistake cannot corrupt the cache: a custom_id is the hash of
 * the exact request, so any result under one of the part's ids answers that request; requests
 * without a result in it are sent again, as for an incomplete OpenAI output file.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { sha256Hex } from '../../util/fsx.js';
import type { AnthropicBody } from '../anthropic.js';
import type { BatchLine } from './parts.js';
import type { PartRecord } from './state.js';

/** What BatchJobs records of a provider's batch (the OpenAI Batch object has these fields). */
export interface BatchView {
  id: string;
  status: string;
  input_file_id?: string | null;
  request_counts?: { total: number; completed: number; failed: number } | null;
  output_file_id?: string | null;
  error_file_id?: string | null;
  errors?: { data?: Array<{ code?: string; line?: number | null; message?: string }> } | null;
}

/** One protocol's batch API, seen by BatchJobs. */
export interface BatchBackend {
  /** An unrecorded batch of the provider that is this part's (a create whose reply was lost), or null. */
  find(rec: PartRecord, known: ReadonlySet<string>, timeoutMs: number): Promise<BatchView | null>;
  /** Creates the part's batch; `hooks.send` wraps the create call itself (its time is recorded first), `hooks.save` keeps `rec`'s changes. */
  create(rec: PartRecord, lines: readonly BatchLine[], timeoutMs: number, hooks: CreateHooks): Promise<BatchView>;
  retrieve(rec: PartRecord, timeoutMs: number): Promise<BatchView>;
  /** A finished batch's results (its output or error file `fileId`) as OpenAI batch output lines (JSONL text). */
  results(rec: PartRecord, lines: readonly BatchLine[], timeoutMs: number, fileId: string): Promise<string>;
}

export interface CreateHooks {
  save(): void;
  send<T>(create: () => Promise<T>): Promise<T>;
}

/** The output "file" id of an ended Message Batch (its results are fetched from the batch, not a file). */
export const RESULTS_FILE = 'message-batch-results';
/** Clocks of this machine and the provider may differ: a batch created this long before the part's record may still be its. */
const SKEW_MS = 2 * 60_000;
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** The custom_id a request key travels under. */
export function anthropicCustomId(key: string): string {
  return CUSTOM_ID.test(key) ? key : sha256Hex(key).slice(0, 64);
}

/** The batch as BatchJobs records it: an ended batch is `completed`, or `expired` / `cancelled` when requests did not run. */
export function viewOf(b: Anthropic.Messages.MessageBatch): BatchView {
  const c = b.request_counts;
  const status =
    b.processing_status === 'ended'
      ? c.expired > 0
        ? 'expired'
        : c.canceled > 0
          ? 'cancelled'
          : 'completed'
      : b.processing_status === 'canceling'
        ? 'cancelling'
        : 'in_progress';
  return {
    id: b.id,
    status,
    request_counts: { total: c.processing + c.succeeded + c.errored + c.canceled + c.expired, completed: c.succeeded, failed: c.errored },
    output_file_id: b.processing_status === 'ended' ? RESULTS_FILE : null,
    error_file_id: null,
    errors: null,
  };
}

/** One Message Batches result line as an OpenAI batch output line (not-run requests carry OpenAI's codes). */
export function outputLineOf(r: Anthropic.Messages.MessageBatchIndividualResponse, key: string): Record<string, unknown> {
  const res = r.result;
  switch (res?.type) {
    case 'succeeded':
      return { custom_id: key, response: { status_code: 200, body: res.message }, error: null };
    case 'errored': {
      const e = (res.error as { error?: { type?: string; message?: string } } | undefined)?.error;
      return { custom_id: key, response: null, error: { code: e?.type ?? 'errored', message: e?.message ?? '' } };
    }
    case 'expired':
      return { custom_id: key, response: null, error: { code: 'batch_expired', message: 'the batch expired before this request ran' } };
    case 'canceled':
      return {
        custom_id: key,
        response: null,
        error: { code: 'batch_cancelled', message: 'the batch was cancelled before this request ran' },
      };
    default:
      return { custom_id: key, response: null, error: { code: 'unknown_result', message: JSON.stringify(res ?? null).slice(0, 200) } };
  }
}

export function anthropicBatches(client: () => Promise<Anthropic>): BatchBackend {
  const opts = (timeout: number) => ({ timeout, maxRetries: 0 });
  return {
    async find(rec, known, timeoutMs) {
      if (rec.create_sent_at === null) return null;
      const since = Date.parse(rec.create_sent_at) - SKEW_MS;
      const c = await client();
      // Listed newest first: none created before the part's record (less the margin) can be its batch.
      for await (const b of c.messages.batches.list({ limit: 100 }, opts(timeoutMs))) {
        if (Date.parse(b.created_at) < since) break;
        const v = viewOf(b);
        if (known.has(b.id) || v.status === 'cancelled' || v.status === 'cancelling') continue;
        if (v.request_counts!.total === rec.requests) return v;
      }
      return null;
    },
    async create(rec, lines, timeoutMs, hooks) {
      const requests = lines.map((l) => ({ custom_id: anthropicCustomId(l.custom_id), params: l.body as AnthropicBody }));
      const c = await client();
      return viewOf(await hooks.send(() => c.messages.batches.create({ requests }, opts(timeoutMs))));
    },
    async retrieve(rec, timeoutMs) {
      const c = await client();
      return viewOf(await c.messages.batches.retrieve(rec.batch_id!, undefined, opts(timeoutMs)));
    },
    async results(rec, lines, timeoutMs) {
      const keyOf = new Map(lines.map((l) => [anthropicCustomId(l.custom_id), l.custom_id]));
      const c = await client();
      const out: string[] = [];
      for await (const r of await c.messages.batches.results(rec.batch_id!, undefined, opts(timeoutMs))) {
        const key = keyOf.get(r.custom_id);
        if (key !== undefined) out.push(JSON.stringify(outputLineOf(r, key)));
      }
      return out.join('\n') + (out.length ? '\n' : '');
    },
  };
}
