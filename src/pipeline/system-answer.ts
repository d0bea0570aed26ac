/**
 * The answer stage of a system that answers each question itself (its capabilities say
 * `answersItself`: its vendor's protocol has its own agent answer, e.g. Letta's leaderboard agent
 * through its answer_question tool): the answer the evidence carries takes the reader's place. It
 * is judged as written (trimmed), as an answers file's is (judge-answers.ts `externalAnswer`): the
 * reader protocol's parseAnswer reads rawrag's own reader's reply, which this is not.
 */
import type { ItemStage } from '../reader-judge/stage.js';

export function systemAnswerStage(system: string): ItemStage {
  return {
    name: 'answer',
    phases: ['answer'],
    async run(item, ctx) {
      const raw = ctx.evidence.answer;
      if (typeof raw !== 'string') throw new Error(`${system} answers each question itself, but gave no answer to '${ctx.question.id}'`);
      item.answer = raw.trim();
      item.details.answer = { by: system, raw };
    },
  };
}
