/**
 * The shape of the MEME release files (HF meme-benchmark/MEME: meme_filler32k.json,
 * meme_filler128k.json, meme_nofiller.json), as written by MEME-public
 * code/dataset_tools/build_dataset.py and code/data/assemble_episodes.py
 * (luoluow/agent_memory@ab17b22, a verbatim fork of SeokwonJung-Jay/MEME-public).
 * Every field the harness relies on is required; extra fields pass through.
 */
import { z } from 'zod';

export const AFTER_TASKS = ['ER', 'Agg', 'Tr', 'Del', 'Cas', 'Abs'] as const;
export const BEFORE_TASKS = ['Cas', 'Abs', 'Del', 'ER'] as const;
export type MemeTask = (typeof AFTER_TASKS)[number];

/** `entity_values` map to a string, or to a list of strings (Tr history). */
const Value = z.union([z.string(), z.array(z.string())]);

export const RawMessage = z
  .object({
    role: z.string(),
    content: z.string(),
  })
  .passthrough();

export const RawGoldFact = z
  .object({
    entity: z.string().min(1),
    value: Value,
    fact_text: z.string(),
    /** 0-based index of the message inside its session that states the fact; null when not annotated. */
    conveyed_in_turn: z.number().int().nonnegative().nullable(),
  })
  .passthrough();

export const RawSession = z
  .object({
    session_id: z.string().min(1),
    type: z.enum(['filler', 'evidence']),
    conversation: z.array(RawMessage),
    timestamp: z.string().min(1),
    evidence_type: z.string().optional(),
    gold_facts: z.array(RawGoldFact).optional(),
  })
  .passthrough()
  .superRefine((s, ctx) => {
    if (s.type !== 'evidence') return;
    if (s.evidence_type === undefined) ctx.addIssue({ code: 'custom', path: ['evidence_type'], message: 'evidence session without evidence_type' });
    if (s.gold_facts === undefined) ctx.addIssue({ code: 'custom', path: ['gold_facts'], message: 'evidence session without gold_facts' });
  });

const QuestionBase = z
  .object({
    entity: z.array(z.string().min(1)).min(1),
    entity_values: z.record(z.string(), Value).refine((ev) => Object.keys(ev).length > 0, 'entity_values is empty'),
    question: z.string().min(1),
    hop: z.number().int().positive().optional(),
  })
  .passthrough();

/** Cas and Abs questions carry their hop count (build_dataset.py normalize_question). */
function hopRule(q: { task_type: string; hop?: number }, ctx: z.RefinementCtx): void {
  if ((q.task_type === 'Cas' || q.task_type === 'Abs') && q.hop === undefined) {
    ctx.addIssue({ code: 'custom', path: ['hop'], message: `${q.task_type} question without hop` });
  }
}

export const RawBeforeQuestion = QuestionBase.extend({
  task_type: z.enum(BEFORE_TASKS),
  expected_answer: z.string(),
}).superRefine(hopRule);

export const RawAfterQuestion = QuestionBase.extend({
  task_type: z.enum(AFTER_TASKS),
  gold_answer: z.string(),
}).superRefine(hopRule);

const Block = <T extends z.ZodTypeAny>(q: T) =>
  z
    .object({
      timestamp: z.string().min(1),
      /** 0-based index of the last session fed before the questions are asked (inclusive). */
      position_after_session: z.number().int().nonnegative(),
      questions: z.array(q),
    })
    .passthrough();

export const RawEpisode = z
  .object({
    episode_id: z.string().min(1),
    domain: z.enum(['personal_life', 'software_project']),
    root: z.string(),
    root_change: z.object({ before: z.unknown(), after: z.unknown() }).passthrough().nullable(),
    chain_entities: z.array(z.unknown()),
    filler_entities: z.array(z.unknown()),
    entities: z.record(z.string(), z.unknown()),
    has_2hop: z.boolean(),
    dependency_edges_used: z.array(z.unknown()),
    tasks: z.array(z.object({ type: z.enum(AFTER_TASKS) }).passthrough()),
    total_sessions: z.number().int().nonnegative(),
    evidence_sessions: z.number().int().nonnegative(),
    filler_sessions: z.number().int().nonnegative(),
    total_tokens: z.number().int().nonnegative(),
    evidence_tokens: z.number().int().nonnegative(),
    filler_tokens: z.number().int().nonnegative(),
    evidence_session_indices: z.array(z.number().int().nonnegative()),
    sessions: z.array(RawSession).min(1),
    before_questions: Block(RawBeforeQuestion),
    after_questions: Block(RawAfterQuestion),
  })
  .passthrough();

export const RawFile = z.array(RawEpisode).min(1);
export type RawEpisodeT = z.infer<typeof RawEpisode>;
export type RawSessionT = z.infer<typeof RawSession>;
export type RawBeforeQuestionT = z.infer<typeof RawBeforeQuestion>;
export type RawAfterQuestionT = z.infer<typeof RawAfterQuestion>;
export type MemeValue = z.infer<typeof Value>;
