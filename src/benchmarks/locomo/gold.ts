/**
 * LoCoMo's gold versions (`-B gold=original|audited`). `original` is the release as published (the
 * official protocol); `audited` applies a bundled errata file (datasets/locomo/gold-errata.json,
 * derived from a public audit of the ground truth; its source and licence are in the file and in
 * datasets/locomo/SOURCE.md) to the gold answers and evidence, so scoring and coverage use it.
 *
 * Either way every question the errata correct carries the other version's answer in
 * `meta.gold` ({version, other, error_kind}), so a judged run also scores its answers under the
 * other gold (re-judging only those questions) and the summary prints both scores and the ceiling.
 */
import { z } from 'zod';
import type { LoadWarning, Question } from '../../core/schema.js';
import { InputError, formatPath } from '../../util/errors.js';
import { readJsonFile } from '../../util/fsx.js';
import { fromRoot } from '../../util/paths.js';

export const GOLD_VERSIONS = ['original', 'audited'] as const;
export type GoldVersion = (typeof GOLD_VERSIONS)[number];
export const DEFAULT_ERRATA = 'datasets/locomo/gold-errata.json';

export function parseGold(value: string | undefined): GoldVersion {
  const v = value ?? 'original';
  if (!(GOLD_VERSIONS as readonly string[]).includes(v)) {
    throw new InputError(`unknown gold version '${v}' (known: ${GOLD_VERSIONS.join(', ')})`, { place: '-B gold' });
  }
  return v as GoldVersion;
}

const ErratumSchema = z.object({
  id: z.string().min(1),
  category: z.number().int(),
  question: z.string(),
  original_answer: z.string(),
  corrected_answer: z.string(),
  original_evidence: z.array(z.string()),
  corrected_evidence: z.array(z.string()),
  /** The audit's kind: HALLUCINATION, TEMPORAL_ERROR, ATTRIBUTION_ERROR, AMBIGUOUS, INCOMPLETE, WRONG_CITATION. */
  error_kind: z.string().min(1),
  /** false = the answer is right and only the evidence is corrected (does not move a score). */
  affects_answer: z.boolean(),
  /** The audit record it comes from. */
  source: z.string().min(1),
});
export type Erratum = z.infer<typeof ErratumSchema>;

const ErrataFileSchema = z.object({
  format: z.literal('rawrag-locomo-gold-errata-v1'),
  source: z.looseObject({ repository: z.string(), commit: z.string(), file: z.string(), licence: z.string() }),
  data_sha256: z.string(),
  errata: z.array(ErratumSchema),
});
export type ErrataFile = z.infer<typeof ErrataFileSchema> & { path: string };

/** What a question carries about its gold (Question.meta.gold). */
export interface GoldMeta {
  version: GoldVersion;
  error_kind: string;
  /** The gold answer of the other version; null when the errata change only the evidence. */
  other: { version: GoldVersion; answer: string } | null;
  /** The answer the data file itself holds: what other harnesses' judges saw (an import's votes were judged against it). */
  data_answer: string;
}

export function loadErrata(path = fromRoot(DEFAULT_ERRATA)): ErrataFile {
  const parsed = ErrataFileSchema.safeParse(readJsonFile(path));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(`not a LoCoMo gold errata file: ${issue.message}`, { file: path, place: formatPath(issue.path) });
  }
  const seen = new Map<string, number>();
  parsed.data.errata.forEach((e, i) => {
    if (seen.has(e.id)) throw new InputError(`'${e.id}' is corrected twice (first at errata[${seen.get(e.id)}])`, { file: path, place: `errata[${i}]` });
    seen.set(e.id, i);
  });
  return { ...parsed.data, path };
}

/**
 * Marks (and, for `audited`, corrects) the questions the errata name. An erratum whose question
 * text or original answer differs from the data was made for another file: with `audited` that
 * is an input error (nothing would say which gold was used), with `original` a warning.
 */
export function applyGold(
  questions: Question[],
  errata: ErrataFile,
  version: GoldVersion,
  knownTurns: (episode: string) => ReadonlySet<string>,
  warnings: LoadWarning[],
): void {
  const byId = new Map(errata.errata.map((e, i) => [e.id, { e, i }]));
  for (const q of questions) {
    const hit = byId.get(q.id);
    if (!hit) continue;
    const { e, i } = hit;
    if (q.text !== e.question || q.gold !== e.original_answer) {
      const msg = `errata[${i}] (${e.id}) was made for another data file: its question or original answer differs from this one`;
      if (version === 'audited') throw new InputError(msg, { file: errata.path, place: `errata[${i}]` });
      warnings.push({ place: q.id, message: msg });
      continue;
    }
    const meta: GoldMeta = {
      version,
      error_kind: e.error_kind,
      other: e.affects_answer ? { version: version === 'audited' ? 'original' : 'audited', answer: version === 'audited' ? e.original_answer : e.corrected_answer } : null,
      data_answer: e.original_answer,
    };
    q.meta = { ...(q.meta ?? {}), gold: meta };
    if (version !== 'audited') continue;
    if (e.affects_answer) {
      q.gold = e.corrected_answer;
      q.acceptable = [e.corrected_answer];
    }
    const known = knownTurns(q.episode);
    const unknown = e.corrected_evidence.filter((t) => !known.has(t));
    for (const t of unknown) warnings.push({ place: `${q.id} (${errata.path} errata[${i}])`, message: `corrected evidence '${t}' is not a turn of ${q.episode}` });
    q.evidence = e.corrected_evidence.filter((t) => known.has(t));
  }
}

/** Gold facts of an item (its question's meta.gold), or null. */
export function goldMetaOf(meta: Record<string, unknown> | null | undefined): GoldMeta | null {
  const g = meta?.gold as GoldMeta | undefined;
  return g && typeof g === 'object' && typeof g.version === 'string' ? g : null;
}
