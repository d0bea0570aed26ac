/**
 * The shape of one LongMemEval instance (xiaowu0162/LongMemEval; every release file — s, m,
 * oracle, original and cleaned — has the same 9 keys), checked element by element on load.
 */
import { z } from 'zod';

export const QUESTION_TYPES = [
  'single-session-user',
  'single-session-assistant',
  'single-session-preference',
  'temporal-reasoning',
  'knowledge-update',
  'multi-session',
] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

/** Counts of the full 500-question release (identical in every variant; spec §1.2). */
export const FULL_RELEASE = {
  total: 500,
  abstention: 30,
  byType: {
    'single-session-user': 70,
    'single-session-assistant': 56,
    'single-session-preference': 30,
    'temporal-reasoning': 133,
    'knowledge-update': 78,
    'multi-session': 133,
  } satisfies Record<QuestionType, number>,
};

/** `2023/05/30 (Tue) 23:40`: the generator's `%Y/%m/%d (%a) %H:%M`; string order is time order. */
export const DATE_PATTERN = /^\d{4}\/\d{2}\/\d{2} \((Mon|Tue|Wed|Thu|Fri|Sat|Sun)\) \d{2}:\d{2}$/;

export const RawTurn = z
  .object({
    role: z.enum(['user', 'assistant']),
    content: z.string(),
    // Present (true or false) on every turn of an evidence session, absent on filler sessions.
    has_answer: z.boolean().optional(),
  })
  .passthrough();
export type RawTurnT = z.infer<typeof RawTurn>;

export const RawInstance = z
  .object({
    question_id: z.string().min(1),
    question_type: z.enum(QUESTION_TYPES),
    question: z.string(),
    // 32 of 500 answers are JSON integers (e.g. 1300); they are kept as their string form.
    answer: z.union([z.string(), z.number()]),
    question_date: z.string(),
    haystack_session_ids: z.array(z.string().min(1)),
    haystack_dates: z.array(z.string()),
    haystack_sessions: z.array(z.array(RawTurn)),
    answer_session_ids: z.array(z.string()),
  })
  .passthrough();
export type RawInstanceT = z.infer<typeof RawInstance>;

/** The official abstention rule: `'_abs' in question_id` (evaluate_qa.py, print_qa_metrics.py). */
export function isAbstention(questionId: string): boolean {
  return questionId.includes('_abs');
}
