import type { RetryPolicy } from '../../providers/retry.js';

/**
 * A memory service reached over HTTP (Mem0, MemMachine, a sidecar behind rawrag's protocol, ...):
 * the few things the harness asks of it, whatever its API looks like. An adapter (a plug-in folder's
 * client.ts) maps its own paths, auth, body shapes and reply shapes onto this; the ingest, resume,
 * readiness, search and clean-up machinery (source.ts, ingest-log.ts, store.ts) is shared.
 */

/**
 * One turn as a service receives it. `role` and `content` are the default rendering (the owner's
 * perspective: its own speaker is `user`; `Name: text` for named speakers, captions after the
 * text); the raw fields let an adapter format it as its vendor's own evaluation does.
 */
export interface ServiceMessage {
  role: 'user' | 'assistant';
  content: string;
  speaker: string;
  /** The turn's text alone: no speaker prefix, no captions. */
  text: string;
  captions: string[];
  turnId: string;
  /** The turn's position in its session (0-based): vendors space per-message timestamps by it. */
  indexInSession: number;
  /** The turn's session and date (a call of `batch: 'episode'` spans sessions); absent where a caller builds messages by hand. */
  session?: string;
  date?: string | null;
}

/** One add call: a few consecutive turns of one owner's history, in order. */
export interface AddCall {
  owner: string;
  /** The speaker whose store this owner is (per-speaker owners), else null. */
  ownerSpeaker: string | null;
  /** Stable id of this add (`<episode>#<index>`, `~<speaker>` for a speaker's owner): sent along so a retried add can be recognised. */
  key: string;
  messages: ServiceMessage[];
  /** The turns these messages carry, so search results map back to them (coverage). */
  turnIds: string[];
  session: string;
  /** The turns' date as the benchmark gives it (null: none). */
  date: string | null;
  /** Unix seconds of that date when it can be read (platform APIs backdate memories with it). */
  timestamp: number | null;
  /** Turns in this call's session, and the next session's Unix seconds (vendors fit spaced timestamps into the gap). */
  sessionTurns: number;
  nextSessionTimestamp: number | null;
  /**
   * The episode's named speakers as the benchmark lists them (LoCoMo: speaker_a, speaker_b), for
   * vendors whose own script keys on them (which speaker is `user`, whose name an owner takes); the
   * first turn's speaker is not always the first listed. Absent or empty: the benchmark names none.
   */
  speakers?: string[];
}

export const EVENTS = ['ADD', 'UPDATE', 'DELETE', 'NONE'] as const;
export type ServiceEventKind = (typeof EVENTS)[number];

/** What the service says it did with one memory while adding (Mem0's `event`). */
export interface AddEvent {
  id: string | null;
  event: ServiceEventKind;
  memory: string | null;
  previous: string | null;
  /**
   * The turns this memory came from, when the reply says it exactly (a service that keeps one
   * memory per message and answers with their ids in order); absent: every turn of the add.
   */
  turns?: string[];
  /** Fields of the event rawrag does not read (e.g. `actor_id`, `role`), kept as the service sent them. */
  extra?: Record<string, unknown>;
}

/**
 * An add's reply as the adapter read it: the events (null when the service reports none), and any
 * parts it could not read as events (kept in the ingest log, never dropped: an unknown shape is
 * information about the service, not noise).
 */
export interface AddOutcome {
  events: AddEvent[] | null;
  unread?: unknown[];
}

/**
 * What the shared layer gives an add while it runs: `accepted(ticket)` records, durably and before
 * the adapter waits, that the service accepted the add and will finish it in the background (a
 * platform event id, a task id). A later run that finds the ticket unanswered waits on it
 * (`awaitAccepted`) instead of sending the add again.
 */
export interface AddHooks {
  accepted(ticket: string): void;
}

/** Thrown by `awaitAccepted` (or `addOnce`) when the service says an accepted add failed: nothing was stored, so it is sent again. */
export class AcceptedAddFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcceptedAddFailed';
  }
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
  /** Who said it, when the service says (shown with the memory). */
  speaker?: string | null;
}

/**
 * A search's reply: its memories, and text the vendor's own evaluation shows after them that is
 * no memory of its own (a running summary, a preference note); shown in the evidence block as is.
 */
export interface ServiceSearch {
  memories: ServiceMemory[];
  appendix?: string | null;
  /** The service's own agent's answer to the question (a plug-in whose settings say `answersItself`), else absent. */
  answer?: string;
}

/** What the service said about itself before the first add (`probe`). */
export interface ServiceProbe {
  /** Its version, where it can be read. */
  version?: string | null;
  /** Facts that change what its figures mean (e.g. an add-only version): printed first, kept in the manifest. */
  notes?: string[];
  /** It returns only ADD events (it cannot mutate a memory): the write audit says so. */
  addOnly?: boolean;
}

export interface MemoryService {
  /** The manifest's system name, e.g. `Mem0`. */
  readonly system: string;
  /** Which API (e.g. `mem0-oss`, `mem0-platform`, `http/1`), for the run's identity. */
  readonly api: string;
  /** The service's base URL (no key). */
  readonly url: string;
  /**
   * Sends one add, a single attempt (the caller retries, after checking that a failed attempt
   * left nothing behind).
   */
  addOnce(call: AddCall, hooks?: AddHooks): Promise<AddOutcome>;
  search(owner: string, query: string, limit: number): Promise<ServiceMemory[] | ServiceSearch>;
  /** The owner's memories (retried, every page); null when the service cannot list. */
  list(owner: string): Promise<ServiceMemory[] | null>;
  /**
   * Deletes every memory of the owner (retried). A queued delete returns before it is done: purge polls `list`.
   * A service that says what it removed (files, collections, in words) returns it: `rawrag memory purge` prints it.
   */
  deleteOwner(owner: string): Promise<void | string[]>;
  /** A failed add (after the caller's retries) as the error an item records: call, status, tries; no key. */
  addFailure(call: AddCall, e: unknown): Error;
  /** Transport settings the caller's add retries follow. */
  readonly retry: RetryPolicy;
  /** Requests sent and retries, for the run's summary. */
  report(): Record<string, unknown>;

  /** Optional: before the first add, reachable, version, what it can do. */
  probe?(): Promise<ServiceProbe>;
  /**
   * Optional: after an owner's last add, wait until what was added is searchable (a flush, a
   * scheduler wait, task polling), bounded by `timeoutMs`. Absent = searchable once acknowledged.
   */
  awaitReady?(owner: string, calls: readonly AddCall[], timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /**
   * Optional: wait for an add the service accepted earlier (its ticket, given to `hooks.accepted`)
   * to finish, as `addOnce` would have; throws AcceptedAddFailed when the service says it failed.
   */
  awaitAccepted?(call: AddCall, ticket: string, signal?: AbortSignal): Promise<AddOutcome>;
  /**
   * Optional: the ids of the memories the service holds from `call` (found by its `rawrag_add`
   * metadata), to tell whether an add whose reply was lost was done; [] when none. Default: a
   * listing of the owner. An adapter whose listing may be capped looks further (a filtered search).
   */
  findAdd?(call: AddCall): Promise<string[]>;
  /** Optional: stop what the adapter started (a sidecar process). */
  close?(): Promise<void>;
}

/** The metadata rawrag attaches to every add (where the service keeps metadata), and reads back from search results. */
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
  // Services whose metadata holds only strings (MemMachine: dict[str, str]) get the turn ids as JSON text.
  const raw = typeof m.turn_ids === 'string' ? safeJsonArray(m.turn_ids) : m.turn_ids;
  const ids = Array.isArray(raw) ? raw.filter((t): t is string => typeof t === 'string') : [];
  return {
    turnIds: ids,
    addKey: typeof m.rawrag_add === 'string' ? m.rawrag_add : null,
    date: typeof m.date === 'string' && m.date !== '' ? m.date : null,
  };
}

function safeJsonArray(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function eventKind(value: unknown): ServiceEventKind | null {
  const v = typeof value === 'string' ? value.toUpperCase() : '';
  return (EVENTS as readonly string[]).includes(v) ? (v as ServiceEventKind) : null;
}
