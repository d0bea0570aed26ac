/**
 * `rawrag export`: a run's items as one row per question for pandas / R — the same figures
 * items.jsonl holds (rawrag runs, or an external system's minimal lines), flattened.
 */

/**
 * The columns, in order. votes: the judge's verdicts, one per judge run (a list; CSV writes it as JSON
 * text, `[1,1,0]`, Parquet as a list of doubles); coverage: all / any gold evidence shown.
 */
export const EXPORT_COLUMNS = [
  'id',
  'type',
  'episode',
  'question',
  'answer',
  'gold',
  'score',
  'votes',
  'judge_runs',
  'coverage_all',
  'coverage_any',
  'evidence_tokens',
  'error',
] as const;

export type ExportColumn = (typeof EXPORT_COLUMNS)[number];
export type ExportRow = Record<Exclude<ExportColumn, 'votes'>, string | number | boolean | null> & { votes: number[] | null };

export function exportRows(items: Array<Record<string, unknown>>): ExportRow[] {
  return items.map((item) => {
    const details = (item.details ?? {}) as { judge?: { votes?: unknown } };
    const votes = Array.isArray(details.judge?.votes)
      ? (details.judge!.votes as number[])
      : Array.isArray(item.judge)
        ? (item.judge as number[])
        : null;
    const cov = item.coverage as { all?: boolean; any?: boolean } | boolean | null | undefined;
    const err = item.error as { stage?: string; message?: string } | string | null | undefined;
    const text = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? null : String(v));
    return {
      id: String(item.id),
      type: text(item.type),
      episode: text(item.episode),
      question: text(item.question),
      answer: text(item.answer),
      gold: text(item.gold),
      score: typeof item.score === 'number' ? item.score : null,
      votes: votes && votes.length ? [...votes] : null,
      judge_runs: votes ? votes.length : 0,
      coverage_all: cov === null || cov === undefined ? null : typeof cov === 'boolean' ? cov : Boolean(cov.all),
      coverage_any: cov === null || cov === undefined ? null : typeof cov === 'boolean' ? cov : Boolean(cov.any),
      evidence_tokens: typeof item.evidence_tokens === 'number' ? item.evidence_tokens : null,
      error: err === null || err === undefined ? null : typeof err === 'string' ? err : `${err.stage ?? 'error'}: ${err.message ?? ''}`,
    };
  });
}
