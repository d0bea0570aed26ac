/**
 * LoCoMo conversations cut to the sessions that hold the evidence of their first questions, written
 * as a LoCoMo file (the official format, ids unchanged) from the bundled copy. A test that needs a
 * few questions of a conversation ingests a quarter of it instead of all of it: conv-26's first 12
 * questions need 4 of its 19 sessions (76 of 419 messages).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from './cli.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import type { Dataset, Turn } from '../../src/core/schema.js';

export const BUNDLED_LOCOMO = join(ROOT, 'datasets', 'locomo', 'locomo10.json');

export interface LocomoCut {
  /** The cut, a LoCoMo file for `--data`. */
  file: string;
  /** The cut loaded as the benchmark loads it. */
  dataset: Dataset;
  /** The questions asked (each conversation's first ones), in file order: exactly what `--limit asked.length` selects. */
  asked: string[];
  /** Per conversation, the sessions kept. */
  sessions: Map<string, Set<string>>;
  /** The turns kept, in file order. */
  turns: Turn[];
}

/** Each listed conversation with only the sessions holding its first `questions` questions' evidence, and those questions. */
export async function locomoEvidenceCut(parts: Array<{ episode: string; questions: number }>): Promise<LocomoCut> {
  const whole = await locomo.load({ path: BUNDLED_LOCOMO, options: {} });
  const raw = JSON.parse(readFileSync(BUNDLED_LOCOMO, 'utf8')) as any[];
  const sessions = new Map<string, Set<string>>();
  const asked: string[] = [];
  const kept = parts.map(({ episode, questions }) => {
    const mine = whole.questions.filter((q) => q.episode === episode).slice(0, questions);
    const turns = whole.episodes.find((e) => e.id === episode)!.turns;
    const sessionOf = new Map(turns.map((t) => [t.id, t.session]));
    const held = new Set(mine.flatMap((q) => q.evidence.map((id) => sessionOf.get(id)!)));
    sessions.set(episode, held);
    asked.push(...mine.map((q) => q.id));
    return cutConversation(
      raw.find((s) => s.sample_id === episode),
      held,
      mine.map((q) => q.id),
    );
  });
  const file = join(tempDir('rawrag-locomo-cut-'), 'locomo-cut.json');
  writeFileSync(file, JSON.stringify(kept));
  const dataset = await locomo.load({ path: file, options: {} });
  const turns = dataset.episodes.flatMap((e) => e.turns);
  return { file, dataset, asked, sessions, turns };
}

/** One conversation's record without the other sessions, its questions up to the last asked (their ids are their places). */
function cutConversation(record: any, sessions: Set<string>, asked: string[]): any {
  const copy = structuredClone(record);
  for (const key of Object.keys(copy.conversation)) {
    const m = /^(session_\d+)(_date_time)?$/.exec(key);
    if (m && !sessions.has(m[1]!)) delete copy.conversation[key];
  }
  copy.qa = copy.qa.slice(0, Math.max(...asked.map((id) => Number(id.split(':q')[1]))) + 1);
  return copy;
}
