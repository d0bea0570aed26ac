/**
 * The shapes of BEAM's released files (mohammadtavakoli78/BEAM @ b2a3ee8, `chats/<size>/<n>/`),
 * checked on load. Spec: meme-personamem-beam.md §3.2.
 */
import { z } from 'zod';

export const SIZES = ['100K', '500K', '1M', '10M'] as const;
export type BeamSize = (typeof SIZES)[number];

export const RawMessage = z
  .object({
    role: z.enum(['user', 'assistant']),
    /** 0-based and sequential within a conversation; 10M ids are offset to be unique across plans. */
    id: z.number().int().nonnegative(),
    content: z.string(),
    /** Only on the first user message of each batch, e.g. `March-01-2024`. */
    time_anchor: z.string().nullable().optional(),
    question_type: z.enum(['main_question', 'followup_question', 'answer_ai_question']).optional(),
    /** `"batch,bullet"` on main questions. */
    index: z.string().optional(),
  })
  .passthrough();
export type RawMessageT = z.infer<typeof RawMessage>;

export const RawBatch = z
  .object({
    batch_number: z.number().int(),
    /** Turn groups: a user message, the reply, and any follow-ups. */
    turns: z.array(z.array(RawMessage)),
    /** In practice always null (the conversion code never sets it); the messages carry the anchor. */
    time_anchor: z.string().nullable().optional(),
  })
  .passthrough();
export type RawBatchT = z.infer<typeof RawBatch>;

export const RawChat = z.array(RawBatch);

/**
 * The 10M conversation-level chat: a list of one-key objects `{"plan-k": [batch, ...]}` (as the
 * HF `chat` field), or one object keyed by plan.
 */
export const PLAN_KEY = /^plan-(\d+)$/;
export const RawPlanChat = z.union([
  z.array(z.record(z.string().regex(PLAN_KEY, 'expected a key plan-<k>'), RawChat)),
  z.record(z.string().regex(PLAN_KEY, 'expected a key plan-<k>'), RawChat),
]);

/** `source_chat_ids`: message ids as a list, nested lists, or an object of lists (per ability). */
export type ChatIds = number | string | ChatIds[] | { [k: string]: ChatIds };
export const RawChatIds: z.ZodType<ChatIds> = z.lazy(() =>
  z.union([z.number().int(), z.string(), z.array(RawChatIds), z.record(z.string(), RawChatIds)]),
);

export const RawQuestion = z
  .object({
    question: z.string().min(1),
    difficulty: z.string().optional(),
    /** What is scored: each item is judged 0 / 0.5 / 1. */
    rubric: z.array(z.string()).min(1, 'rubric is empty'),
    source_chat_ids: RawChatIds.optional(),
    plan_reference: z.string().optional(),
  })
  .passthrough();
export type RawQuestionT = z.infer<typeof RawQuestion>;

export const ABILITIES = [
  'abstention',
  'contradiction_resolution',
  'event_ordering',
  'information_extraction',
  'instruction_following',
  'knowledge_update',
  'multi_session_reasoning',
  'preference_following',
  'summarization',
  'temporal_reasoning',
] as const;
export type Ability = (typeof ABILITIES)[number];

/** Per ability: the field holding the reference answer and the one naming the question's sub-type. */
export const ABILITY_FIELDS: Record<Ability, { gold: string; subtype: string }> = {
  abstention: { gold: 'ideal_response', subtype: 'abstention_type' },
  contradiction_resolution: { gold: 'ideal_answer', subtype: 'contradiction_type' },
  event_ordering: { gold: 'answer', subtype: 'ordering_type' },
  information_extraction: { gold: 'answer', subtype: 'question_type' },
  // No reference answer: the expected behaviour stands in as the gold text (never scored directly).
  instruction_following: { gold: 'expected_compliance', subtype: 'instruction_type' },
  knowledge_update: { gold: 'answer', subtype: 'update_type' },
  multi_session_reasoning: { gold: 'answer', subtype: 'reasoning_type' },
  preference_following: { gold: 'expected_compliance', subtype: 'preference_type' },
  summarization: { gold: 'ideal_summary', subtype: 'summarization_type' },
  temporal_reasoning: { gold: 'answer', subtype: 'temporal_type' },
};

export const RawProbing = z.record(z.string(), z.array(z.unknown()));
