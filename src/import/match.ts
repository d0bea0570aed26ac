/**
 * Imported records to rawrag's question ids: the conversation first (its position in the
 * benchmark file, or its episode id), then the question's text within it — never a position in
 * the results file alone. Identical texts in one conversation are taken in order. A record that
 * matches no question (or one already taken) refuses the whole file, naming the first.
 */
import type { Dataset, Question } from '../core/schema.js';
import { InputError } from '../util/errors.js';
import type { ImportedFile, ImportedRecord } from './formats.js';

export const normaliseQuestion = (s: string): string => s.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();

export interface MatchedRecord {
  question: Question;
  record: ImportedRecord;
}

function words(s: string): Set<string> {
  return new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
}

function nearest(text: string, candidates: Question[]): Question | null {
  const w = words(text);
  let best: { q: Question; score: number } | null = null;
  for (const q of candidates) {
    const c = words(q.text);
    const inter = [...w].filter((x) => c.has(x)).length;
    const score = inter / Math.max(1, w.size + c.size - inter);
    if (!best || score > best.score) best = { q, score };
  }
  return best?.q ?? null;
}

export function matchRecords(file: ImportedFile, dataset: Dataset, benchmark: string): MatchedRecord[] {
  const byEpisode = new Map<string, Question[]>();
  for (const q of dataset.questions) {
    const list = byEpisode.get(q.episode) ?? [];
    list.push(q);
    byEpisode.set(q.episode, list);
  }
  const taken = new Map<string, string>();
  const out: MatchedRecord[] = [];
  for (const r of file.records) {
    const episode =
      'index' in r.conversation
        ? dataset.episodes[r.conversation.index]
        : dataset.episodes.find((e) => e.id === (r.conversation as { episode: string }).episode);
    const named = 'index' in r.conversation ? `conversation ${r.conversation.index}` : `episode '${r.conversation.episode}'`;
    if (!episode)
      throw new InputError(
        `${named} is not in ${benchmark} (it has ${dataset.episodes.length} conversations): this file is not of this benchmark's data`,
        {
          file: file.file,
          place: r.place,
        },
      );
    const candidates = byEpisode.get(episode.id) ?? [];
    const text = normaliseQuestion(r.question);
    const same = candidates.filter((q) => normaliseQuestion(q.text) === text);
    const free = same.find((q) => !taken.has(q.id));
    if (!free) {
      if (same.length > 0)
        throw new InputError(
          `the question "${r.question}" of ${named} (${episode.id}) appears more often than in ${benchmark} (first taken at ${taken.get(same[0]!.id)})`,
          {
            file: file.file,
            place: r.place,
          },
        );
      const near = nearest(r.question, candidates);
      throw new InputError(
        `the question "${r.question}" is not a selected ${benchmark} question of ${named} (${episode.id})${near ? `; nearest there: ${near.id} "${near.text}"` : ''}`,
        { file: file.file, place: r.place },
      );
    }
    taken.set(free.id, r.place);
    out.push({ question: free, record: r });
  }
  return out;
}
