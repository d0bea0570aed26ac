/**
 * What `--force-resume` may not carry over. A forced resume keeps the items already written and
 * rewrites the manifest with the new config; when the judge or the gold changed, the kept items
 * were scored by a judge (or against a gold) the manifest no longer names, and `rawrag stats`
 * would credit their scores to the new one (and take the directory for a duplicate of a run that
 * really was judged so). Such a resume is refused: a manifest never claims a judge that did not
 * judge its items.
 */
import type { ItemRecord } from '../core/item.js';
import type { Question } from '../core/schema.js';
import { configDifferences } from '../run-files/identity.js';

/** Human reasons the kept items' scores would be mislabelled; empty when the forced resume is safe. */
export function mislabelledScores(prevConfig: unknown, config: unknown, previous: ItemRecord[], questions: Question[]): string[] {
  // Scored by a judge model (not by a fallback metric, which no judge or gold change touches).
  const judged = previous.filter(
    (i) => i.score !== null && typeof (i.details?.judge as { model?: unknown } | undefined)?.model === 'string',
  );
  if (judged.length === 0) return [];
  const judgeOf = (c: unknown) => (c && typeof c === 'object' ? (c as { judge?: unknown }).judge : undefined);
  // Without the new config at hand (a caller that does not pass it), only the gold can be compared.
  const out = config === undefined ? [] : configDifferences(judgeOf(prevConfig) ?? {}, judgeOf(config) ?? {}).map((d) => `judge.${d}`);
  const gold = new Map(questions.map((q) => [q.id, q.gold]));
  const otherGold = judged.filter((i) => gold.has(i.id) && gold.get(i.id) !== i.gold);
  if (otherGold.length > 0) {
    const first = otherGold[0]!;
    out.push(
      `${otherGold.length} judged item(s) were judged against another gold answer (first: ${first.id}, '${first.gold}', now '${gold.get(first.id)}')`,
    );
  }
  return out;
}
