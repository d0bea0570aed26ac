/**
 * Mem0's replies read leniently: strict only on what rawrag needs (an add reply's list of results or
 * its event id; a memory's id and text), everything else kept. An event whose shape rawrag cannot
 * read is kept in the ingest log as `unread`, never dropped; fields beyond the ones rawrag reads
 * (`actor_id` and `role` of an `infer=False` add, `attributed_to`, ...) stay on the event as `extra`.
 * Shapes read from mem0ai/mem0: mem0/memory/main.py (`{id, memory, event, previous_memory}`; the
 * `infer=False` branch adds `actor_id`, `role`), docs/openapi.json (`POST /v3/memories/add/`
 * results `{id, data: {memory}, event}`; `GET /v1/event/{event_id}/` `{status, results, error}`).
 */
import { BadReplyError } from '../../providers/errors.js';
import { eventKind, readMetadata, type AddEvent, type AddOutcome, type ServiceMemory } from '../memory-service/service.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The list a search or a listing returns: `{results: [...]}`, `{memories: [...]}`, or a bare list (older APIs). */
export function listOf(reply: unknown): unknown[] {
  if (Array.isArray(reply)) return reply;
  if (isObject(reply) && Array.isArray(reply.results)) return reply.results;
  if (isObject(reply) && Array.isArray(reply.memories)) return reply.memories;
  // A reply without its list is a broken reply (issue 42): retried like a 5xx. An empty list is valid.
  throw new BadReplyError(`expected {"results": [...]}, got ${JSON.stringify(reply)?.slice(0, 200)}`, true);
}

const READ_KEYS = new Set(['id', 'event', 'memory', 'data', 'previous_memory', 'old_memory']);

/** One result of an add as an event, or null when it is not one rawrag can read (no known `event`, an id that is not a string). */
export function toEvent(r: unknown): AddEvent | null {
  if (!isObject(r)) return null;
  const event = eventKind(r.event);
  if (!event || (r.id !== undefined && r.id !== null && typeof r.id !== 'string')) return null;
  const data = isObject(r.data) ? r.data : {};
  const memory = typeof r.memory === 'string' ? r.memory : typeof data.memory === 'string' ? data.memory : null;
  const previous = typeof r.previous_memory === 'string' ? r.previous_memory : typeof r.old_memory === 'string' ? r.old_memory : null;
  const extra = Object.fromEntries(Object.entries(r).filter(([k]) => !READ_KEYS.has(k)));
  return {
    id: typeof r.id === 'string' ? r.id : null,
    event,
    memory,
    previous,
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

/** An add's results as events; what is not an event is kept as unread. */
export function outcomeOf(results: unknown[], alsoUnread: unknown[] = []): AddOutcome {
  const events: AddEvent[] = [];
  const unread: unknown[] = [...alsoUnread];
  for (const r of results) {
    const e = toEvent(r);
    if (e) events.push(e);
    else unread.push(r);
  }
  return { events, ...(unread.length ? { unread } : {}) };
}

/**
 * The open-source server's add reply: `{results: [...]}` (a bare list before output format v1.1).
 * Keys beside `results` (graph `relations`, a `message`) are kept as one unread entry.
 */
export function ossAddOutcome(reply: unknown): AddOutcome {
  if (Array.isArray(reply)) return outcomeOf(reply);
  if (isObject(reply) && Array.isArray(reply.results)) {
    const rest = Object.fromEntries(Object.entries(reply).filter(([k]) => k !== 'results'));
    return outcomeOf(reply.results, Object.keys(rest).length ? [rest] : []);
  }
  // Empty, `null` or without its list: retried (the add is looked for on the service first). An empty list is valid.
  throw new BadReplyError(`the add reply holds no results list: ${JSON.stringify(reply)?.slice(0, 200)}`, true);
}

/** A memory as a search or a listing returns it (`memory`, or the platform's `data.memory`); null without an id or a text. */
export function toMemory(m: unknown): ServiceMemory | null {
  if (!isObject(m)) return null;
  const data = isObject(m.data) ? m.data : {};
  const text = typeof m.memory === 'string' ? m.memory : typeof data.memory === 'string' ? data.memory : null;
  if (typeof m.id !== 'string' || text === null) return null;
  const meta = readMetadata(m.metadata);
  // Mem0's own evaluation dates a memory by the session date it sent as metadata `timestamp`.
  const stamp = isObject(m.metadata) && typeof m.metadata.timestamp === 'string' ? m.metadata.timestamp : null;
  return {
    id: m.id,
    memory: text,
    score: typeof m.score === 'number' ? m.score : null,
    date: meta.date ?? stamp ?? (typeof m.created_at === 'string' ? m.created_at : null),
    turnIds: meta.turnIds,
    addKey: meta.addKey,
  };
}

export const memoriesOf = (reply: unknown): ServiceMemory[] => listOf(reply).flatMap((m) => toMemory(m) ?? []);

/** The platform's add reply: its results (`infer: false`) or the queued event's id; else a broken reply, retried. */
export function platformAddReply(reply: unknown): Record<string, unknown> {
  if (isObject(reply) && (Array.isArray(reply.results) || typeof reply.event_id === 'string')) return reply;
  throw new BadReplyError(`add returned no event_id: ${JSON.stringify(reply)?.slice(0, 200)}`, true);
}
