/**
 * The batch tests' reader: LoCoMo's first `limit` questions, every other one answered with its gold
 * answer and the rest with "I don't know", so that the judge has both right and wrong answers to
 * score; any other chat request (the judge's) gets the loopback's default reply.
 */
import { join } from 'node:path';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import type { Question } from '../../src/core/schema.js';
import { ROOT } from './cli.js';
import { defaultChat, readerQuestion } from './fake-api.js';

export interface HalfKnownReader {
  /** The questions a `--limit limit` run asks, in order. */
  selected: Question[];
  /** The chat reply for a request body. */
  oracle: (body: any) => string;
}

export async function halfKnownReader(limit: number): Promise<HalfKnownReader> {
  const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
  const selected = ds.questions.slice(0, limit);
  const gold = new Map(selected.map((q) => [q.text, q.gold]));
  const knows = new Set(selected.filter((_, i) => i % 2 === 0).map((q) => q.text));
  const oracle = (body: any): string => {
    const q = readerQuestion(body);
    if (q !== null) return knows.has(q) ? gold.get(q)! : "I don't know";
    return defaultChat(body);
  };
  return { selected, oracle };
}
