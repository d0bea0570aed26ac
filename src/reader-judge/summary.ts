/**
 * `summary.json`: aggregates over a run's items. Everything here is recomputed from items.jsonl,
 * so a resumed run summarises exactly what its file holds.
 */
import { judgeVotes, type ItemRecord } from '../core/item.js';
import { errorsByStage } from '../scoring/denominators.js';
import { ANSWER_RULE } from '../core/coverage.js';

export interface CoverageRate {
  /** Questions with gold evidence (the denominator). */
  n: number;
  all: number | null;
  any: number | null;
}

export interface TypeRow {
  type: string;
  type_id: number | string | null;
  /** Questions of this type (including errored ones). */
  n: number;
  errors: number;
  coverage: CoverageRate;
  /** Mean item score over scored items; null when nothing was scored. */
  accuracy: number | null;
  /**
   * Sum of item scores over ALL n questions (a failed or unscored item counts 0); null when nothing
   * was scored. Printed beside `accuracy`, so a run with failures never looks better than one without.
   */
  accuracy_all_n: number | null;
  scored: number;
  /** The judge's runs one by one (when it ran more than once): how much accuracy moves between runs. */
  judge_runs: JudgeRuns | null;
  /** `--epochs N`: accuracy of each epoch's answers (same shape as judge_runs): how much it moves between answers. */
  epochs?: JudgeRuns | null;
  metrics: Record<string, number | null>;
}

/**
 * Accuracy of judge run r = the mean over scored items of their r-th verdict; items scored by a
 * metric instead of the judge count with their score in every run. `accuracy` above is the mean
 * of these (item score = mean of its votes), and `sd` (sample SD over runs) is what to report
 * beside it ("66.9 ± 0.3").
 */
export interface JudgeRuns {
  runs: number;
  accuracy: number[];
  mean: number;
  sd: number;
}

export interface Summary {
  n: number;
  errors: number;
  /** Failed items by the stage that failed (`retrieve`, `read`, `judge`, ...). */
  errors_by_stage: Record<string, number>;
  overall: TypeRow;
  by_type: TypeRow[];
  coverage_at_k: Record<string, CoverageRate>;
  evidence_tokens_mean: number | null;
  /** Types shown in by_type but left out of `overall` (the benchmark's headline rule: LoCoMo's adversarial category). */
  outside_headline?: string[];
  /** Items whose coverage is answer sufficiency (no gold turns: the answer found in the text shown), when any. */
  coverage_by_answer?: number;
}

export function summarise(items: ItemRecord[], typeOrder: string[] = [], inHeadline: (type: string) => boolean = () => true): Summary {
  const types = [...new Set(items.map((i) => i.type))].sort((a, b) => rankOf(a, typeOrder) - rankOf(b, typeOrder) || a.localeCompare(b));
  const by_type = types.map((t) =>
    row(
      items.filter((i) => i.type === t),
      t,
    ),
  );
  const ks = [...new Set(items.flatMap((i) => Object.keys(i.coverage_at_k)))].sort((a, b) => Number(a) - Number(b));
  const coverage_at_k: Record<string, CoverageRate> = {};
  for (const k of ks) coverage_at_k[k] = rate(items.map((i) => i.coverage_at_k[k] ?? null));
  const ok = items.filter((i) => !i.error);
  const outside = types.filter((t) => !inHeadline(t));
  const byAnswer = ok.filter((i) => i.coverage !== null && i.details.coverage_rule === ANSWER_RULE).length;
  return {
    n: items.length,
    errors: items.length - ok.length,
    errors_by_stage: errorsByStage(items),
    overall: row(outside.length ? items.filter((i) => inHeadline(i.type)) : items, 'overall'),
    by_type,
    coverage_at_k,
    evidence_tokens_mean: ok.length ? ok.reduce((s, i) => s + i.evidence_tokens, 0) / ok.length : null,
    ...(outside.length ? { outside_headline: outside } : {}),
    ...(byAnswer ? { coverage_by_answer: byAnswer } : {}),
  };
}

/** Failed items counted by the stage that failed, stages sorted by name. */

function rankOf(type: string, order: string[]): number {
  const i = order.indexOf(type);
  return i === -1 ? order.length : i;
}

function row(items: ItemRecord[], type: string): TypeRow {
  const ok = items.filter((i) => !i.error);
  const scored = ok.filter((i) => i.score !== null);
  const metricNames = [...new Set(ok.flatMap((i) => Object.keys(i.metrics)))].sort();
  const metrics: Record<string, number | null> = {};
  for (const m of metricNames) metrics[m] = mean(ok.map((i) => i.metrics[m]).filter((v): v is number => typeof v === 'number'));
  const ids = [...new Set(items.map((i) => i.type_id))];
  return {
    type,
    type_id: type === 'overall' || ids.length !== 1 ? null : ids[0]!,
    n: items.length,
    errors: items.length - ok.length,
    // Retrieval's figure: an item whose reading or judging failed was still retrieved (its coverage counts).
    coverage: rate(items.map((i) => i.coverage)),
    accuracy: mean(scored.map((i) => i.score!)),
    accuracy_all_n: scored.length ? scored.reduce((s, i) => s + i.score!, 0) / items.length : null,
    scored: scored.length,
    judge_runs: judgeRuns(scored),
    ...epochFigures(scored),
    metrics,
  };
}

/** Null unless at least 2 runs and every judged item has the same number of votes. */
function judgeRuns(scored: ItemRecord[]): JudgeRuns | null {
  const counts = new Set(scored.map((i) => judgeVotes(i).length).filter((n) => n > 0));
  if (counts.size !== 1) return null;
  const runs = [...counts][0]!;
  if (runs < 2) return null;
  const accuracy = Array.from({ length: runs }, (_, r) => mean(scored.map((i) => judgeVotes(i)[r] ?? i.score!))!);
  const m = mean(accuracy)!;
  const sd = Math.sqrt(accuracy.reduce((s, a) => s + (a - m) ** 2, 0) / (runs - 1));
  return { runs, accuracy, mean: m, sd };
}

/** Accuracy of epoch e = the mean over scored items of their e-th answer's score (details.epochs); absent without epochs. */
function epochFigures(scored: ItemRecord[]): { epochs?: JudgeRuns | null } {
  const per = scored.map(epochScores);
  if (!per.some((p) => p !== null)) return {};
  const counts = new Set(per.map((p) => p?.length ?? 0));
  const n = [...counts][0]!;
  if (counts.size !== 1 || n < 2) return { epochs: null };
  const accuracy = Array.from({ length: n }, (_, e) => mean(per.map((p) => p![e]!))!);
  const m = mean(accuracy)!;
  return { epochs: { runs: n, accuracy, mean: m, sd: Math.sqrt(accuracy.reduce((s, a) => s + (a - m) ** 2, 0) / (n - 1)) } };
}

/** An item's score per epoch, when every epoch was scored; null otherwise. */
export function epochScores(item: ItemRecord): number[] | null {
  const epochs = item.details?.epochs as Array<{ score?: unknown }> | undefined;
  if (!Array.isArray(epochs) || epochs.length === 0) return null;
  const scores = epochs.map((e) => e?.score);
  return scores.every((x): x is number => typeof x === 'number') ? scores : null;
}

function rate(values: Array<{ all: boolean; any: boolean } | null>): CoverageRate {
  const present = values.filter((v): v is { all: boolean; any: boolean } => v !== null);
  return {
    n: present.length,
    all: present.length ? present.filter((v) => v.all).length / present.length : null,
    any: present.length ? present.filter((v) => v.any).length / present.length : null,
  };
}

export function mean(xs: number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}
