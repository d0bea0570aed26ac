/** A question's other gold answer (LoCoMo's audited errata): what adapters and the judge stage share about it. */

/** Question.meta.gold: which gold the run uses, and the other version's answer (null: the same answer). */
export interface GoldVersionMeta {
  version: string;
  error_kind: string;
  other: { version: string; answer: string } | null;
  /** The answer the data file itself holds (absent in items written before it was recorded). */
  data_answer?: string;
}

export interface OtherGoldScore {
  version: string;
  gold: string;
  score: number | null;
  votes: number[];
  metrics: Record<string, number | null>;
}

export function goldVersionOf(q: { meta?: Record<string, unknown> | null }): GoldVersionMeta | null {
  const g = q.meta?.gold as GoldVersionMeta | undefined;
  return g && typeof g === 'object' && typeof g.version === 'string' ? g : null;
}
