/**
 * LoCoMo category 5 (adversarial, 446 questions): questions the conversation cannot answer (often
 * a fact of one speaker asked about the other). The official runner (snap-research/LoCoMo @ 3eb6f2c,
 * task_eval/gpt_utils.py) asks them as a two-option choice, "Not mentioned in the conversation"
 * or the trap answer (`adversarial_answer`), in an order drawn by an unseeded `random.random()`;
 * rawrag draws it from the question id, so it is the same every run. A one-letter reply is mapped
 * to its option (get_cat_5_answer); the official rule then scores 1 when the answer says
 * "no information available" or "not mentioned" (evaluation.py; the `f1` metric of category 5).
 */
import { createHash } from 'node:crypto';

export const NOT_MENTIONED = 'Not mentioned in the conversation';

export interface AdversarialOptions {
  a: string;
  b: string;
}

export function adversarialOptions(id: string, trap: string): AdversarialOptions {
  const first = createHash('sha256').update(`locomo-cat5:${id}`).digest()[0]! < 128;
  return first ? { a: NOT_MENTIONED, b: trap } : { a: trap, b: NOT_MENTIONED };
}

/** get_cat_5_answer: a reply of one letter or "(x)" is that option's text; anything else is kept (lower-cased, as upstream). */
export function adversarialAnswer(reply: string, options: AdversarialOptions): string {
  const p = reply.trim().toLowerCase();
  if (p.length === 1) return p.includes('a') ? options.a : options.b;
  if (p.length === 3) return p.includes('(a)') ? options.a : options.b;
  return p;
}

export function adversarialOptionsOf(meta: Record<string, unknown> | undefined): AdversarialOptions | null {
  const o = meta?.adversarial as AdversarialOptions | undefined;
  return o && typeof o.a === 'string' && typeof o.b === 'string' ? o : null;
}
