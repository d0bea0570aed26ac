/**
 * rawrag's memory-service protocol, version 1 (docs/memory-services.md): four JSON calls any
 * memory system can answer with a small shim. Each request and reply is a zod schema here; the
 * JSON Schemas in docs/memory-protocol/ are generated from them (a test keeps the two equal).
 *
 *   POST {url}/add     AddRequest    -> AddReply      add a few consecutive turns to an owner's memory
 *   POST {url}/search  SearchRequest -> SearchReply   the owner's memories most relevant to a query
 *   POST {url}/list    OwnerRequest  -> ListReply     every memory of an owner (optional: 404 = cannot list)
 *   POST {url}/delete  OwnerRequest  -> DeleteReply   delete every memory of an owner
 *   POST {url}/ready   OwnerRequest  -> ReadyReply    optional: the owner's last add was sent; searchable yet? (404 = always)
 *
 * A key, when set, travels as `Authorization: Bearer <key>`; every request carries
 * `x-rawrag-memory-protocol: 1`. A service should treat an `add_id` it has already done as done.
 */
import { z } from 'zod';

export const PROTOCOL_VERSION = 1;

const Message = z
  .object({
    role: z
      .enum(['user', 'assistant'])
      .describe("From the owner's point of view: the owner's own speaker (or the history's user) is `user`"),
    content: z.string().describe('The turn as rawrag renders it: `Speaker: text`, image captions after the text'),
    speaker: z.string().optional().describe("The turn's speaker as the benchmark names it"),
    text: z.string().optional().describe("The turn's text alone (no speaker, no captions): format it as your system's own evaluation does"),
    captions: z.array(z.string()).optional().describe("Captions of the turn's images"),
    turn_id: z.string().optional().describe("The benchmark's id of this turn"),
  })
  .strict()
  .describe('One turn');

export const AddRequest = z
  .object({
    owner: z.string().min(1).describe('Whose memory: one owner per episode (and visibility horizon) of one run'),
    add_id: z.string().min(1).describe('Stable id of this add; a repeated add_id must not be added twice'),
    messages: z.array(Message).min(1),
    turn_ids: z.array(z.string()).describe("The benchmark's ids of these turns: return them with the memories they produced"),
    session: z.string(),
    date: z.string().nullable().describe('The date of these turns as the benchmark writes it'),
    timestamp: z.number().int().nullable().describe('That date in Unix seconds, when it can be read'),
    owner_speaker: z
      .string()
      .nullable()
      .optional()
      .describe("Per-speaker owners: whose store this owner is (that speaker's turns are `user`); null: one store per episode"),
    speakers: z
      .array(z.string())
      .optional()
      .describe("The episode's named speakers as the benchmark lists them (LoCoMo: speaker_a, speaker_b); absent or empty: none named"),
  })
  .strict();

const Event = z
  .object({
    id: z.string().nullable().optional(),
    event: z.enum(['ADD', 'UPDATE', 'DELETE', 'NONE']),
    memory: z.string().nullable().optional().describe('The memory text written (ADD, UPDATE) or deleted (DELETE)'),
    previous_memory: z.string().nullable().optional().describe('UPDATE: the text before'),
  })
  // A service's own keys on an event (an actor, a category, a timestamp) are kept with it, not refused.
  .loose();

export const AddReply = z
  .object({
    events: z
      .array(Event)
      .optional()
      .describe('What the service did with each memory; omit when it does not say (the audit then has nothing)'),
  })
  .loose();

export const SearchRequest = z.object({ owner: z.string().min(1), query: z.string(), limit: z.number().int().positive() }).strict();

const Memory = z
  .object({
    id: z.string(),
    memory: z.string(),
    score: z.number().nullable().optional(),
    date: z.string().nullable().optional().describe('Shown to the reader beside the memory'),
    turn_ids: z.array(z.string()).optional().describe("The turns it came from (the add requests' turn_ids): coverage"),
    add_id: z.string().nullable().optional().describe('The add that produced it: lets a resumed run see an add whose reply was lost'),
  })
  .loose();

export const SearchReply = z.object({ results: z.array(Memory).describe('Best first; at most `limit`') }).loose();
export const OwnerRequest = z.object({ owner: z.string().min(1) }).strict();
export const ListReply = z.object({ memories: z.array(Memory) }).loose();
export const DeleteReply = z
  .object({
    deleted: z.number().int().nonnegative().optional(),
    removed: z.array(z.string()).optional().describe('What was removed (files, collections), in words: printed by rawrag memory purge'),
  })
  .loose();
export const ReadyReply = z
  .object({
    ready: z.boolean().describe('Whether everything added to the owner is searchable now (rawrag asks again until it is)'),
    state: z.string().optional().describe('What it is doing, shown if rawrag gives up waiting'),
  })
  .loose();

/** The protocol's calls, by file name in docs/memory-protocol/. */
export const PROTOCOL_SCHEMAS: Record<string, z.ZodType> = {
  'add.request': AddRequest,
  'add.reply': AddReply,
  'search.request': SearchRequest,
  'search.reply': SearchReply,
  'list.request': OwnerRequest,
  'list.reply': ListReply,
  'delete.request': OwnerRequest,
  'delete.reply': DeleteReply,
  'ready.request': OwnerRequest,
  'ready.reply': ReadyReply,
};

/** A call's JSON Schema (the file docs/memory-protocol/<name>.schema.json holds). */
export function jsonSchemaOf(name: string): unknown {
  return { title: `rawrag memory protocol v${PROTOCOL_VERSION}: ${name}`, ...(z.toJSONSchema(PROTOCOL_SCHEMAS[name]!) as object) };
}
