/**
 * The run directory's record of LLM work at ingest (`<run>/ingest.sqlite`): one row per
 * (episode, step, batch) with the parsed reply and what it cost, written as each reply arrives.
 * A resumed run reads its rows instead of asking again (a kill -9 loses at most the replies in
 * flight), and the totals are what building the index cost, resumed runs included. Systems may
 * keep their own tables here too (the entity graph of raw-rag-graph).
 */
import { openDatabase, type Database, type Statement } from '../util/lazy-packages.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallFigures } from './llm-step.js';

export const INGEST_DB_FILE = 'ingest.sqlite';

export interface StepRow extends CallFigures {
  owner_id: string;
  step: string;
  batch_key: string;
  first_turn: string;
  last_turn: string;
  model: string;
  value: unknown;
}

/** Calls of one kind (sent to the provider, or answered by the response cache) and what they amount to. */
export interface CallGroup {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Sent: dollars paid. Cached: what the replies would have cost (nothing was paid). null when a price was unknown. */
  cost_usd: number | null;
}

export interface StepTotals {
  /** Every stored reply (sent and from the cache), with the tokens and dollars of all of them ... */
  calls: number;
  cache_hits: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** null when a price was unknown. */
  cost_usd: number | null;
  /** ... and the same figures apart: the calls really sent and those the response cache answered. */
  sent: CallGroup;
  cached: CallGroup;
  /** Summed latency of the calls (they overlap and cache hits count too: not the time ingest took). */
  ms: number;
  /** Stored replies that hold nothing (every list empty, every text blank): no memory unit came of them. */
  empty_replies: number;
}

/** A reply that holds nothing: null, a blank text, an empty list, or an object of such values only. */
export function isEmptyReply(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v as Record<string, unknown>).every(isEmptyReply);
  return false;
}

export class StepStore {
  readonly db: Database;
  private readonly insert: Statement;
  private readonly get: Statement;

  constructor(path: string, opts: { readonly?: boolean } = {}) {
    if (!opts.readonly) mkdirSync(dirname(path), { recursive: true });
    this.db = openDatabase(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
    if (!opts.readonly) {
      this.db.pragma('journal_mode = WAL');
      this.db.exec(`CREATE TABLE IF NOT EXISTS steps (
        owner_id TEXT NOT NULL, step TEXT NOT NULL, batch_key TEXT NOT NULL,
        first_turn TEXT NOT NULL, last_turn TEXT NOT NULL, model TEXT NOT NULL, request_key TEXT NOT NULL,
        cached INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
        cost_usd REAL, ms INTEGER NOT NULL, value TEXT NOT NULL,
        PRIMARY KEY (owner_id, step, batch_key))`);
    }
    this.insert = opts.readonly
      ? (null as unknown as Statement)
      : this.db.prepare(
          `INSERT OR REPLACE INTO steps VALUES (@owner_id, @step, @batch_key, @first_turn, @last_turn, @model, @request_key,
           @cached, @prompt_tokens, @completion_tokens, @cost_usd, @ms, @value)`,
        );
    this.get = this.db.prepare('SELECT value FROM steps WHERE owner_id = ? AND step = ? AND batch_key = ?');
  }

  /** The stored reply of a batch, or undefined when it was never stored. */
  value(owner: string, step: string, batchKey: string): unknown {
    const row = this.get.get(owner, step, batchKey) as { value: string } | undefined;
    return row ? JSON.parse(row.value) : undefined;
  }

  record(row: StepRow): void {
    this.insert.run({ ...row, cached: row.cached ? 1 : 0, value: JSON.stringify(row.value) });
  }

  totals(): StepTotals {
    const rows = this.db
      .prepare(
        `SELECT cached, COUNT(*) AS calls, COALESCE(SUM(prompt_tokens), 0) AS prompt_tokens,
         COALESCE(SUM(completion_tokens), 0) AS completion_tokens, COALESCE(SUM(cost_usd), 0) AS cost, SUM(cost_usd IS NULL) AS unpriced,
         COALESCE(SUM(ms), 0) AS ms FROM steps GROUP BY cached`,
      )
      .all() as Array<{
      cached: number;
      calls: number;
      prompt_tokens: number;
      completion_tokens: number;
      cost: number;
      unpriced: number | null;
      ms: number;
    }>;
    const group = (cached: number): CallGroup => {
      const r = rows.find((x) => x.cached === cached);
      return r
        ? {
            calls: r.calls,
            prompt_tokens: r.prompt_tokens,
            completion_tokens: r.completion_tokens,
            cost_usd: (r.unpriced ?? 0) > 0 ? null : r.cost,
          }
        : { calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };
    };
    const sent = group(0);
    const cached = group(1);
    let empty = 0;
    for (const row of this.db.prepare('SELECT value FROM steps').iterate() as Iterable<{ value: string }>)
      if (isEmptyReply(JSON.parse(row.value))) empty++;
    return {
      calls: sent.calls + cached.calls,
      cache_hits: cached.calls,
      prompt_tokens: sent.prompt_tokens + cached.prompt_tokens,
      completion_tokens: sent.completion_tokens + cached.completion_tokens,
      cost_usd: sent.cost_usd === null || cached.cost_usd === null ? null : sent.cost_usd + cached.cost_usd,
      sent,
      cached,
      ms: rows.reduce((a, r) => a + r.ms, 0),
      empty_replies: empty,
    };
  }

  close(): void {
    this.db.close();
  }
}
