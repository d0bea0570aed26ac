/**
 * What a run decided about its items, comparable across runs that got there differently (a batch
 * run and an interactive one): answers, scores, retrieval and the judge's runs, not timings, cache
 * flags or usage. Items by id.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A run directory's items.jsonl lines (none when it has no file yet). */
export const runItemLines = (dir: string): any[] =>
  existsSync(join(dir, 'items.jsonl'))
    ? readFileSync(join(dir, 'items.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

const decided = (i: any) => ({
  id: i.id,
  answer: i.answer,
  score: i.score,
  metrics: i.metrics,
  retrieved: i.retrieved,
  coverage: i.coverage,
  reader: i.details.reader.raw,
  judge: i.details.judge.runs,
  votes: i.details.judge.votes,
  error: i.error,
});

/** The items' decisions, sorted by id. */
export const decidedById = (xs: any[]) => [...xs].sort((a, b) => a.id.localeCompare(b.id)).map(decided);
