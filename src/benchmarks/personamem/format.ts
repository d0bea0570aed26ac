/**
 * PersonaMem-v2 release shapes (HF bowen-upenn/PersonaMem-v2; columns in the order
 * prepare_benchmark.py writes them, spec meme-personamem-beam.md §2.2).
 */
import { z } from 'zod';

export const PREF_TYPES = [
  'stereotypical_pref',
  'anti_stereotypical_pref',
  'neutral_preferences',
  'therapy_background',
  'health_and_medical_conditions',
  'ask_to_forget',
  'sensitive_info',
] as const;

export const CSV_COLUMNS = [
  'persona_id',
  'chat_history_32k_link',
  'chat_history_128k_link',
  'raw_persona_file',
  'short_persona',
  'expanded_persona',
  'user_query',
  'correct_answer',
  'incorrect_answers',
  'topic_query',
  'preference',
  'topic_preference',
  'conversation_scenario',
  'pref_type',
  'related_conversation_snippet',
  'who',
  'updated',
  'prev_pref',
  'sensitive_info',
  'total_tokens_in_chat_history_32k',
  'total_tokens_in_chat_history_128k',
  'distance_from_related_snippet_to_query_32k',
  'distance_from_related_snippet_to_query_128k',
  'num_persona_relevant_tokens_32k',
  'num_persona_relevant_tokens_128k',
  'num_persona_irrelevant_tokens_32k',
  'num_persona_irrelevant_tokens_128k',
] as const;

const PyBool = z.enum(['True', 'False']);
/** Token counts: written by pandas, so an int, sometimes as a float ("123.0"), or empty when missing. */
const Count = z.string().regex(/^(-?\d+(\.\d+)?)?$/, 'not a number');

export const CsvRow = z
  .object({
    persona_id: z.string().regex(/^\d+$/, 'not a whole number'),
    chat_history_32k_link: z.string(),
    chat_history_128k_link: z.string(),
    raw_persona_file: z.string(),
    short_persona: z.string(),
    expanded_persona: z.string(),
    user_query: z.string().min(1),
    correct_answer: z.string().min(1),
    incorrect_answers: z.string().min(1),
    topic_query: z.string(),
    preference: z.string(),
    topic_preference: z.string(),
    conversation_scenario: z.string(),
    pref_type: z.enum(PREF_TYPES),
    related_conversation_snippet: z.string(),
    who: z.enum(['self', 'others']),
    updated: PyBool,
    prev_pref: z.string(),
    sensitive_info: PyBool,
    total_tokens_in_chat_history_32k: Count,
    total_tokens_in_chat_history_128k: Count,
    distance_from_related_snippet_to_query_32k: Count,
    distance_from_related_snippet_to_query_128k: Count,
    num_persona_relevant_tokens_32k: Count,
    num_persona_relevant_tokens_128k: Count,
    num_persona_irrelevant_tokens_32k: Count,
    num_persona_irrelevant_tokens_128k: Count,
  })
  .passthrough();
export type CsvRowT = z.infer<typeof CsvRow>;

/** Multimodal histories give content as parts; only text parts carry text. */
const Part = z.object({ type: z.string() }).passthrough();
export const HistoryMessage = z
  .object({
    role: z.enum(['system', 'user', 'assistant']),
    content: z.union([z.string(), z.array(Part)]),
  })
  .passthrough();
export type HistoryMessageT = z.infer<typeof HistoryMessage>;

/** `{metadata, chat_history: [...]}` as released; the official loaders also accept a bare list. */
export const HistoryFile = z.union([
  z.object({ metadata: z.record(z.string(), z.unknown()).optional(), chat_history: z.array(HistoryMessage) }).passthrough(),
  z.array(HistoryMessage),
]);

export const UserQuery = z.object({ role: z.string(), content: z.string() }).passthrough();
