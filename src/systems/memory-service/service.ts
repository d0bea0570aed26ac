import type { RetryPolicy } from '../../providers/retry.js';

/**
 * A memory service reached over HTTP (Mem0, or anything behind rawrag's small protocol): the
 * three things the harness asks of it, whatever its API looks like. An adapter maps its own
 * paths, auth and reply shapes onto this; the ingest, resume, search and clean-up machinery
 * (source.ts, ingest-log.ts, store.ts) is shared.
 */

export interface ServiceMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** One add call: a few consecutive turns of one owner's history, in order. */
export interface AddCall {
  owner: string;
  /** Stable id of this add (`<episode>#<index>`): sent along so a retried add can be recognised. */
  key: string;
  messages: ServiceMessage[];
  /** The turns these messages carry, so search results map back to them (coverage). */
  turnIds: string[];
  session: string;
  /** The turns' date as the benchmark gives it (null: none). */
  date: string | null;
  /** Unix seconds of that date when it can be read (platform APIs backdate memories with it). */
  timestamp: number | null;
}

export const EVENTS = ['ADD', 'UPDATE', 'DELETE', 'NONE'] as const;
export type ServiceEventKind = (typeof EVENTS)[number];

/** What the service says it did with one memory while adding (Mem0's `event`). */
export interface AddEvent {
  id: string | null;
  event: ServiceEventKind;
  memory: string | null;
  previous: string | null;
}

/** A memory as a search (or a listing) returns it. */
export interface ServiceMemory {
  id: string;
  memory: string;
  score: number | null;
  /** The date of the turns it came from (what rawrag sent as metadata), else the service's own date. */
  date: string | null;
  turnIds: string[];
  /** The add that produced (or last changed) it, when the service kept rawrag's metadata. */
  addKey: string | null;
}

export interface MemoryService {
  /** The manifest's system prefix, e.g. `mem0`. */
  readonly system: string;
  /** Which API (e.g. `mem0-oss`, `mem0-platform`, `http/1`), for the run's identity. */
  readonly api: string;
  /** The service's base URL (no key). */
  readonly url: string;
  /**
   * Sends one add, a single attempt (the caller retries, after checking that a failed attempt
   * left nothing behind). Returns the service's events, or null when it reports none.
   */
  addOnce(call: AddCall): Promise<AddEvent[] | null>;
  search(owner: string, query: string, limit: number): Promise<ServiceMemory[]>;
  /** The owner's memories (retried); null when the service cannot list. */
  list(owner: string): Promise<ServiceMemory[] | null>;
  /** Deletes every memory of the owner (retried). */
  deleteOwner(owner: string): Promise<void>;
  /** A failed add (after the caller's retries) as the error an item records: call, status, tries; no key. */
  addFailure(call: AddCall, e: unknown): Error;
  /** Transport settings the caller's add retries follow. */
  readonly retry: RetryPolicy;
  /** Requests sent and retries, for the run's summary. */
  report(): Record<string, unknown>;
}

/** The metadata rawrag attaches to every add, and reads back from search results. */
export interface RawragMetadata {
  rawrag_add: string;
  turn_ids: string[];
  session: string;
  date: string | null;
}

export function metadataOf(call: AddCall): RawragMetadata {
  return { rawrag_add: call.key, turn_ids: call.turnIds, session: call.session, date: call.date };
}

/** Reads rawrag's metadata back from a memory's metadata object (anything missing: empty). */
export function readMetadata(meta: unknown): { turnIds: string[]; addKey: string | null; date: string | null } {
  const m = meta && typeof meta === 'object' ? (meta as Record<string, unknown>) : {};
  const ids = Array.isArray(m.turn_ids) ? m.turn_ids.filter((t): t is string => typeof t === 'string') : [];
  return {
    turnIds: ids,
    addKey: typeof m.rawrag_add === 'string' ? m.rawrag_add : null,
    date: typeof m.date === 'string' ? m.date : null,
  };
}

export function eventKind(value: unknown): ServiceEventKind | null {
  const v = typeof value === 'string' ? value.toUpperCase() : '';
  return (EVENTS as readonly string[]).includes(v) ? (v as ServiceEventKind) : null;
}
