/**
 * Batch jobs of one run: submit deferred requests as OpenAI-style batches (Files API upload,
 * purpose `batch`; `batches.create`, 24 h window), poll them, and collect their replies into the
 * response cache under the keys the interactive ChatModel uses, so the next pipeline pass is a
 * cache hit for every finished request. Works with any server speaking the OpenAI Batch API.
 *
 * Never twice: before creating a batch, the provider's batch list is searched for one carrying
 * this run's id and the part's hash in its metadata (a kill between create and recording, or a
 * create whose reply was lost, leaves exactly that), and such a batch is adopted instead. A server
 * without that list (`openai-nolist`: Gemini's OpenAI-compatible layer) is never guessed at: a part
 * whose create was sent and never confirmed stops the run (UnconfirmedCreateError) until the user
 * resends it. Other batch APIs (Anthropic, Together) are backends chosen by the part's `batch_api`.
 */
import type OpenAI from 'openai';
import { chatReplyCodec, openaiClient } from '../chat.js';
import { anthropicClient } from '../anthropic.js';
import { vectorCodec } from '../cache.js';
import { anthropicBatches, type BatchBackend, type BatchView } from './anthropic.js';
import { checkedOutputFile, parseOutputLine, replyOf } from './output.js';
import { DEFAULT_BATCH_LIMITS, batchApiOf, pricesFor } from '../models.js';
import { togetherBatches, togetherClient } from './together.js';
import type { ProviderSession } from '../session.js';
import type { DeferredRequest } from './defer.js';
import { planParts, type BatchLimits, type PartPlan } from './parts.js';
import { BatchStore, DEAD, TERMINAL, addBatchUsage, type BatchUsage, type BatchesState, type PartRecord } from './state.js';
import { costOf } from '../usage.js';
import { describePart, pollInterval, statusText } from './status.js';
import { sleep as abortableSleep } from '../../util/sleep.js';

import { endpointId } from '../provenance.js';
import { BadReplyError } from '../errors.js';
import type { Endpoint } from '../session.js';

export interface BatchJobsOptions {
  /** The run directory (batches.json and batches/ go there). */
  dir: string;
  runId: string;
  session: ProviderSession;
  log(line: string): void;
  /** First poll interval and its cap (doubling in between). */
  pollMs?: { initial: number; max: number };
  /** Wall-clock now (tests). */
  now?(): Date;
}

export interface CollectReport {
  stored: number;
  failed: number;
  /** Requests of expired batches sent out again. */
  resubmitted: number;
  /** Batches that failed or were cancelled (reported, their requests recorded as failures). */
  lost: string[];
  /** Tokens and cost (batch prices) of the replies stored, by role. */
  usage: Record<string, BatchUsage>;
}

export function emptyReport(): CollectReport {
  return { stored: 0, failed: 0, resubmitted: 0, lost: [], usage: {} };
}

export function addReport(into: CollectReport, r: CollectReport): void {
  into.stored += r.stored;
  into.failed += r.failed;
  into.resubmitted += r.resubmitted;
  into.lost.push(...r.lost);
  for (const [role, u] of Object.entries(r.usage)) addBatchUsage(into.usage, role, u);
}

type Batch = OpenAI.Batches.Batch;

/**
 * Batch backends other than the OpenAI Batch API (Files upload + /v1/batches, built in below), by
 * the part's batch API (the model's `batchApi` in the registry): the difference is this table, not the stages.
 */
const BACKENDS: Record<string, (endpoint: Endpoint, timeoutMs: number) => BatchBackend> = {
  anthropic: (endpoint, timeoutMs) => {
    let c: ReturnType<typeof anthropicClient> | null = null;
    return anthropicBatches(() => (c ??= anthropicClient(endpoint, timeoutMs)));
  },
  together: (endpoint, timeoutMs) => {
    let c: ReturnType<typeof togetherClient> | null = null;
    return togetherBatches(endpoint, () => (c ??= togetherClient(endpoint, timeoutMs)));
  },
};

/** A part's batch API; parts recorded before batch_api was: by their requests' endpoint path. */
function apiOf(part: Pick<PartRecord, 'batch_api' | 'url'>): string {
  return part.batch_api ?? (part.url === '/v1/messages' ? 'anthropic' : 'openai');
}

/** A create was sent and its reply never came, on a batch API that cannot list batches: never sent twice silently. */
export class UnconfirmedCreateError extends Error {
  constructor(rec: PartRecord) {
    super(
      `part ${rec.part} (${rec.requests} requests, ${rec.model}): a batch create was sent at ${rec.create_sent_at} and its reply never came; ` +
        `this provider's batch API cannot list batches, so rawrag cannot tell whether that batch exists. Look for it in the provider's ` +
        `console (cancel it if it is there), then run again with RAWRAG_BATCH_RESEND_UNCONFIRMED=1 to submit the part anew`,
    );
    this.name = 'UnconfirmedCreateError';
  }
}

const UPLOAD_TIMEOUT_MS = 10 * 60_000;

export class BatchJobs {
  readonly store: BatchStore;
  private state: BatchesState;
  private readonly clients = new Map<string, Promise<OpenAI>>();
  private readonly backends = new Map<string, BatchBackend>();
  private readonly lastLine = new Map<string, string>();

  constructor(private readonly opts: BatchJobsOptions) {
    this.store = new BatchStore(opts.dir);
    if (this.store.exists()) {
      this.state = this.store.load();
    } else {
      this.state = { format: 'rawrag.batches/1', run_id: opts.runId, cache_dir: opts.session.cache.dir, parts: [], failures: {} };
    }
  }

  /** Re-reads batches.json (after taking the directory's lock). */
  reload(): void {
    if (this.store.exists()) this.state = this.store.load();
  }

  get parts(): readonly PartRecord[] {
    return this.state.parts;
  }

  /** Requests that failed inside a batch (key -> message): item errors for the pipeline. */
  failures(): Map<string, string> {
    return new Map(Object.entries(this.state.failures).map(([k, v]) => [k, v.message]));
  }

  /** --retry-errors: forget recorded failures, so their requests are deferred and sent again. */
  clearFailures(): number {
    const n = Object.keys(this.state.failures).length;
    if (n > 0) {
      this.state.failures = {};
      this.save();
    }
    return n;
  }

  /** Tokens and cost (batch prices) of every reply collected for this run, by role, over all invocations. */
  usage(): Record<string, BatchUsage> {
    const out: Record<string, BatchUsage> = {};
    for (const p of this.state.parts) for (const [role, u] of Object.entries(p.collected?.usage ?? {})) addBatchUsage(out, role, u);
    return out;
  }

  /** Parts submitted and not yet finished on the provider's side. */
  live(): PartRecord[] {
    return this.state.parts.filter((p) => p.batch_id !== null && !TERMINAL.has(p.status));
  }

  /** Parts finished on the provider's side whose results are not in the cache yet. */
  uncollected(): PartRecord[] {
    return this.state.parts.filter((p) => TERMINAL.has(p.status) && p.collected === null);
  }

  private save(): void {
    this.store.save(this.state);
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  private limitsFor = (model: string, role: DeferredRequest['role']): BatchLimits => {
    const entry = this.opts.session.model(model, role);
    return { ...DEFAULT_BATCH_LIMITS, ...entry.batchLimits };
  };

  /** The SDK client for the server a part lives on (a batch id exists only there). */
  private client(part: Pick<PartRecord, 'base_url' | 'model' | 'role'>): Promise<OpenAI> {
    let c = this.clients.get(part.base_url);
    if (!c) this.clients.set(part.base_url, (c = openaiClient(this.endpointOf(part), this.opts.session.transport.timeoutMs)));
    return c;
  }

  /** The part's server and the key of its model. */
  private endpointOf(part: Pick<PartRecord, 'base_url' | 'model' | 'role'>): Endpoint {
    const { session } = this.opts;
    const entry = session.model(part.model, part.role);
    const a = session.availability(entry, part.role);
    const apiKey = a.ok
      ? a.endpoint.apiKey
      : (session.secrets.add(entry.keyEnv ? session.transport.env[entry.keyEnv] : undefined) ?? 'EMPTY');
    return { baseUrl: part.base_url, apiKey };
  }

  /** The part's batch backend when its protocol is not the OpenAI Batch API (null: OpenAI's). */
  private backend(part: PartRecord): BatchBackend | null {
    const make = BACKENDS[apiOf(part)];
    if (!make) return null;
    let b = this.backends.get(part.base_url);
    if (!b) this.backends.set(part.base_url, (b = make(this.endpointOf(part), this.opts.session.transport.timeoutMs)));
    return b;
  }

  private knownIds(): Set<string> {
    return new Set(this.state.parts.map((p) => p.batch_id).filter((id): id is string => id !== null));
  }

  /** One provider call through the session's retry layer (errors scrubbed and named). */
  private call<T>(part: PartRecord, what: (client: OpenAI, timeoutMs: number) => Promise<T>): Promise<T> {
    const session = this.opts.session.to<T>({ endpoint: part.base_url });
    return session.send(part.role, `${part.model} (batch API)`, async (timeoutMs) => what(await this.client(part), timeoutMs));
  }

  /**
   * Submits `requests` as batch parts (grouped by endpoint and model, split at the model's
   * limits). Parts already live or adoptable are not submitted again. Returns the parts.
   */
  async submit(requests: readonly DeferredRequest[]): Promise<PartRecord[]> {
    // A part recorded but never confirmed (killed around its create) may exist on the provider.
    const unconfirmed: PartRecord[] = [];
    for (const p of this.state.parts.filter((x) => x.batch_id === null && x.status === 'prepared')) {
      const found = await this.call(p, async (client, timeoutMs) => this.findOnProvider(client, p, timeoutMs));
      if (found) {
        this.update(p, found);
        this.opts.log(`batch ${found.id} found on the provider (already submitted), adopted: ${describePart(p)}`);
      } else unconfirmed.push(p);
    }
    // A request already in a batch that has not been collected is never sent in another one.
    const pending = new Set<string>();
    for (const p of this.state.parts) {
      if (p.collected !== null || p.batch_id === null) continue;
      for (const m of this.store.readPart(p.hash).meta) pending.add(m.key);
    }
    const fresh = requests.filter((r) => !pending.has(r.key));
    const roles = new Map(fresh.map((r) => [r.model, r.role]));
    const plans = planParts(fresh, (model) => this.limitsFor(model, roles.get(model)!));
    // A part never submitted whose requests now make other parts is dropped (its file stays, for the record).
    const planned = new Set(plans.map((p) => p.hash));
    for (const p of unconfirmed.filter((x) => !planned.has(x.hash))) {
      p.status = 'superseded';
      p.updated_at = this.now().toISOString();
      this.save();
    }
    const out: PartRecord[] = [];
    for (const plan of plans) {
      let rec = this.state.parts.find((p) => p.hash === plan.hash && p.collected === null && !DEAD.has(p.status));
      if (!rec) rec = this.prepare(plan);
      if (rec.batch_id === null) await this.create(rec);
      out.push(rec);
    }
    return out;
  }

  /** Writes the part's files and records it as `prepared`, before anything leaves the machine. */
  private prepare(plan: PartPlan): PartRecord {
    this.store.writePart(
      plan.hash,
      plan.jsonl,
      plan.requests.map((r) => ({ key: r.key, role: r.role, model: r.model, replicate: r.replicate })),
    );
    const roles: Record<string, number> = {};
    for (const r of plan.requests) roles[r.role] = (roles[r.role] ?? 0) + 1;
    const at = this.now().toISOString();
    const rec: PartRecord = {
      hash: plan.hash,
      part: this.state.parts.length + 1,
      model: plan.model,
      role: plan.role,
      base_url: plan.baseUrl,
      url: plan.url,
      batch_api: batchApiOf(this.opts.session.model(plan.model, plan.role)),
      requests: plan.requests.length,
      bytes: plan.bytes,
      roles,
      input_file_id: null,
      batch_id: null,
      status: 'prepared',
      counts: null,
      output_file_id: null,
      error_file_id: null,
      errors: null,
      collected: null,
      resubmitted_as: [],
      create_sent_at: null,
      created_at: at,
      updated_at: at,
    };
    this.state.parts.push(rec);
    this.save();
    return rec;
  }

  /** Adopts the provider's batch for this part if there is one, else uploads and creates it. */
  private async create(rec: PartRecord): Promise<void> {
    // Known before any call (a create left unconfirmed by an earlier run): stop with that, unwrapped.
    if (this.unconfirmed(rec) === 'refuse') throw new UnconfirmedCreateError(rec);
    const batch = await this.call(rec, async (client, timeoutMs) => {
      // Searched on every attempt: a create whose reply was lost must not be repeated.
      const existing = await this.findOnProvider(client, rec, timeoutMs);
      if (existing) return { batch: existing, adopted: true };
      const unconfirmed = this.unconfirmed(rec);
      if (unconfirmed === 'refuse') throw new UnconfirmedCreateError(rec);
      if (unconfirmed === 'resend') {
        this.opts.log(
          `part ${rec.part}: its create sent at ${rec.create_sent_at} was never confirmed; submitting it anew (RAWRAG_BATCH_RESEND_UNCONFIRMED=1)`,
        );
      }
      const other = this.backend(rec);
      if (other) {
        const lines = this.store.readPart(rec.hash).lines;
        return {
          batch: await other.create(rec, lines, Math.max(timeoutMs, UPLOAD_TIMEOUT_MS), {
            save: () => this.save(),
            send: (f) => this.createSent(rec, f),
          }),
          adopted: false,
        };
      }
      if (rec.input_file_id === null) {
        const { toFile } = await import('openai');
        const file = await client.files.create(
          { file: await toFile(Buffer.from(this.store.readPartText(rec.hash), 'utf8'), `rawrag-${rec.hash}.jsonl`), purpose: 'batch' },
          { timeout: Math.max(timeoutMs, UPLOAD_TIMEOUT_MS), maxRetries: 0 },
        );
        rec.input_file_id = file.id;
        this.save();
      }
      const created = await this.createSent(rec, () =>
        client.batches.create(
          {
            input_file_id: rec.input_file_id!,
            endpoint: rec.url as OpenAI.Batches.BatchCreateParams['endpoint'],
            completion_window: '24h',
            metadata: { rawrag_run: this.state.run_id, rawrag_part: String(rec.part), rawrag_hash: rec.hash },
          },
          { timeout: timeoutMs, maxRetries: 0 },
        ),
      );
      return { batch: created, adopted: false };
    });
    this.update(rec, batch.batch);
    this.opts.log(
      `batch ${batch.batch.id} ${batch.adopted ? 'found on the provider (already submitted), adopted' : 'submitted'}: ${describePart(rec)}`,
    );
  }

  /**
   * A create sent and never confirmed, on a batch API that cannot list batches to find it: refused
   * unless the user said to resend (RAWRAG_BATCH_RESEND_UNCONFIRMED=1); null when there is none.
   */
  private unconfirmed(rec: PartRecord): 'refuse' | 'resend' | null {
    if (apiOf(rec) !== 'openai-nolist' || rec.create_sent_at === null) return null;
    return this.opts.session.transport.env.RAWRAG_BATCH_RESEND_UNCONFIRMED === '1' ? 'resend' : 'refuse';
  }

  /**
   * Sends a create, recording its time first (only a part with a create sent may have a batch it
   * does not know of); a 4xx answer means no batch was made, so the record is cleared again.
   */
  private async createSent<T>(rec: PartRecord, send: () => Promise<T>): Promise<T> {
    rec.create_sent_at = this.now().toISOString();
    this.save();
    try {
      return await send();
    } catch (e) {
      const status = (e as { status?: unknown }).status;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        rec.create_sent_at = null;
        this.save();
      }
      throw e;
    }
  }

  /** A live or finished, not yet recorded batch of this run for this part (newest first). */
  private async findOnProvider(client: OpenAI, rec: PartRecord, timeoutMs: number): Promise<BatchView | null> {
    const known = this.knownIds();
    const other = this.backend(rec);
    if (other) return other.find(rec, known, timeoutMs);
    // Gemini's OpenAI-compatible layer: no list of batches by metadata to look in (see create).
    if (apiOf(rec) === 'openai-nolist') return null;
    // Batches are listed newest first; none older than the part record can be its batch.
    const oldest = Math.floor(Date.parse(rec.created_at) / 1000) - 3600;
    for await (const b of client.batches.list({ limit: 100 }, { maxRetries: 0 })) {
      if (b.created_at < oldest) break;
      const m = b.metadata ?? {};
      if (m.rawrag_run === this.state.run_id && m.rawrag_hash === rec.hash && !DEAD.has(b.status) && !known.has(b.id)) return b;
    }
    return null;
  }

  private update(rec: PartRecord, b: BatchView | Batch): void {
    rec.batch_id = b.id;
    rec.input_file_id = b.input_file_id ?? rec.input_file_id;
    rec.status = b.status;
    rec.counts = b.request_counts
      ? { total: b.request_counts.total, completed: b.request_counts.completed, failed: b.request_counts.failed }
      : rec.counts;
    rec.output_file_id = b.output_file_id ?? null;
    rec.error_file_id = b.error_file_id ?? null;
    rec.errors = b.errors?.data?.length
      ? b.errors.data.map((e) => [e.code, e.line != null ? `line ${e.line}` : null, e.message].filter(Boolean).join(': ')).join('; ')
      : null;
    rec.updated_at = this.now().toISOString();
    this.save();
  }

  /** Asks the provider for the state of every live batch; prints a line per batch whose state changed. */
  async refresh(): Promise<void> {
    for (const rec of this.live()) {
      const other = this.backend(rec);
      const b = await this.call(rec, (client, timeoutMs) =>
        other ? other.retrieve(rec, timeoutMs) : client.batches.retrieve(rec.batch_id!, { timeout: timeoutMs, maxRetries: 0 }),
      );
      this.update(rec, b);
      this.statusLine(rec);
    }
  }

  private statusLine(rec: PartRecord): void {
    const line = statusText(rec);
    if (this.lastLine.get(rec.hash) === line) return;
    this.lastLine.set(rec.hash, line);
    this.opts.log(line);
  }

  /**
   * Brings the results of every finished batch into the cache. Per-request errors and the
   * requests of failed or cancelled batches are recorded as failures; the unfinished requests of
   * an expired batch are submitted again (only those).
   */
  async collect(): Promise<CollectReport> {
    const report = emptyReport();
    for (const rec of this.uncollected()) {
      const { lines, meta } = this.store.readPart(rec.hash);
      const byKey = new Map(meta.map((m) => [m.key, m]));
      const done = new Set<string>();
      const fail = (key: string, message: string) => {
        if (!byKey.has(key) || done.has(key)) return;
        done.add(key);
        this.state.failures[key] = { message, batch_id: rec.batch_id };
        report.failed++;
      };
      let stored = 0;
      const usage: Record<string, BatchUsage> = {};
      const entryOf = new Map<string, ReturnType<ProviderSession['model']>>();
      for (const [fileId, expected] of [
        [rec.output_file_id, rec.counts?.completed ?? 0],
        [rec.error_file_id, rec.counts?.failed ?? 0],
      ] as const) {
        if (!fileId) continue;
        const text = await this.download(rec, fileId, expected);
        for (const raw of text.split('\n')) {
          if (raw.trim() === '') continue;
          const line = parseOutputLine(raw);
          const m = line ? byKey.get(line.custom_id) : undefined;
          if (!line || !m || done.has(line.custom_id)) continue;
          const result = replyOf(line, rec.url, endpointId(rec.base_url));
          if ('message' in result) {
            if (result.notRun) continue;
            fail(line.custom_id, result.message);
            continue;
          }
          // The same write path and key as an interactive reply; `batch` marks a chat reply's price.
          if ('vector' in result) this.opts.session.cache.store(m.role, m.key, result.vector, vectorCodec);
          else this.opts.session.cache.store(m.role, m.key, result.reply, chatReplyCodec);
          delete this.state.failures[m.key];
          let entry = entryOf.get(m.model);
          if (!entry) entryOf.set(m.model, (entry = this.opts.session.model(m.model, m.role)));
          const tokens = result.tokens;
          addBatchUsage(usage, m.role, { replies: 1, ...tokens, cost_usd: costOf({ ...tokens, search_units: 0 }, pricesFor(entry, true)) });
          done.add(m.key);
          stored++;
        }
      }
      report.stored += stored;
      for (const [role, u] of Object.entries(usage)) addBatchUsage(report.usage, role, u);
      const unfinished = meta.filter((m) => !done.has(m.key));
      const failedHere = done.size - stored;
      // A completed batch whose files hold no result for some requests (an empty or cut output file)
      // gave an invalid reply: those requests are sent again, like a 5xx, up to the retry limit.
      const resend =
        rec.status === 'expired'
          ? `expired with ${stored} replies`
          : rec.status === 'completed' && this.generation(rec) < this.opts.session.transport.retry.maxRetries
            ? `completed, but its output holds no result for ${unfinished.length} of ${rec.requests} requests (an invalid batch output)`
            : null;
      if (resend !== null && unfinished.length > 0) {
        rec.collected = { stored, failed: failedHere, unfinished: unfinished.length, at: this.now().toISOString(), usage };
        this.save();
        this.opts.log(`batch ${rec.batch_id} ${resend}; resubmitting its ${unfinished.length} unfinished requests`);
        const parts = await this.submit(this.again(rec, lines, byKey, unfinished));
        rec.resubmitted_as = parts.map((p) => p.hash);
        report.resubmitted += unfinished.length;
      } else {
        if (rec.status === 'failed' || rec.status === 'cancelled') {
          const why =
            rec.status === 'failed'
              ? `batch ${rec.batch_id} failed${rec.errors ? ` (${rec.errors})` : ''}`
              : `batch ${rec.batch_id} was cancelled`;
          for (const m of unfinished) fail(m.key, why);
          report.lost.push(`${why}: ${unfinished.length} of ${rec.requests} requests not run`);
          this.opts.log(
            `${why}: ${unfinished.length} of ${rec.requests} requests not run (recorded as failures; --retry-errors sends them again)`,
          );
        } else if (unfinished.length > 0) {
          for (const m of unfinished) fail(m.key, `no result in batch ${rec.batch_id}`);
        }
        rec.collected = { stored, failed: done.size - stored, unfinished: 0, at: this.now().toISOString(), usage };
      }
      this.save();
      this.opts.log(`batch ${rec.batch_id} collected: ${stored} replies into the cache, ${rec.collected.failed} failed`);
    }
    return report;
  }

  /**
   * A batch output or error file's text. A file cut off in transfer (a line that does not parse) is
   * downloaded again, like any malformed reply; so is an empty file where the batch says `expected`
   * requests ended there. Still empty after the retries: '' (its requests are then sent again).
   */
  private async download(rec: PartRecord, fileId: string, expected: number): Promise<string> {
    let empty = false;
    try {
      return await this.call(rec, async (client, timeoutMs) => {
        const other = this.backend(rec);
        const timeout = Math.max(timeoutMs, UPLOAD_TIMEOUT_MS);
        const text = other
          ? await other.results(rec, this.store.readPart(rec.hash).lines, timeout, fileId)
          : await (await client.files.content(fileId, { timeout, maxRetries: 0 })).text();
        empty = expected > 0 && text.trim() === '';
        if (empty)
          throw new BadReplyError(`batch file ${fileId} is empty, though batch ${rec.batch_id} says ${expected} requests ended`, true);
        return checkedOutputFile(fileId, text);
      });
    } catch (e) {
      if (!empty) throw e;
      this.opts.log(`batch ${rec.batch_id}: its file ${fileId} stayed empty after retries (${(e as Error).message})`);
      return '';
    }
  }

  /** How many times the requests of `rec` have been sent again before (0: a first submission). */
  private generation(rec: PartRecord): number {
    const parts = this.state.parts;
    let n = 0;
    // A part's parent is the latest earlier part resubmitted as its hash (a resubmission of every request keeps the hash).
    for (let i = parts.indexOf(rec); i > 0; n++) {
      let j = i - 1;
      while (j >= 0 && !parts[j]!.resubmitted_as.includes(parts[i]!.hash)) j--;
      if (j < 0) return n;
      i = j;
    }
    return n;
  }

  /** The unfinished requests of a part, as deferred requests to send again. */
  private again(
    rec: PartRecord,
    lines: ReturnType<BatchStore['readPart']>['lines'],
    byKey: Map<string, ReturnType<BatchStore['readPart']>['meta'][number]>,
    unfinished: ReturnType<BatchStore['readPart']>['meta'],
  ): DeferredRequest[] {
    const keep = new Set(unfinished.map((m) => m.key));
    return lines
      .filter((l) => keep.has(l.custom_id))
      .map((l) => ({
        ...byKey.get(l.custom_id)!,
        baseUrl: rec.base_url,
        url: l.url as DeferredRequest['url'],
        body: l.body as DeferredRequest['body'],
      }));
  }

  /** Polls (with backoff) and collects until no batch is live. */
  async wait(sleep?: (ms: number) => Promise<void>, signal?: AbortSignal): Promise<CollectReport> {
    const total = emptyReport();
    const { initial, max } = this.opts.pollMs ?? pollInterval(this.opts.session.transport.env);
    const pause = sleep ?? ((ms: number) => abortableSleep(ms, signal));
    let delay = initial;
    for (;;) {
      addReport(total, await this.collect());
      // Stopped (SIGINT/SIGTERM): the batches go on at the provider; the same command resumes.
      if (this.live().length === 0 || signal?.aborted) return total;
      await pause(delay);
      if (signal?.aborted) return total;
      delay = Math.min(max, Math.max(1, delay * 2));
      await this.refresh();
    }
  }
}
