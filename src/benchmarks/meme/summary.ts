/**
 * MEME's headline, as the project page and the paper compute it from judge.py's outputs
 * (spec meme-personamem-beam.md §1.4):
 * - ER, Agg, Tr: the after-question pass rate;
 * - Del, Cas, Abs: the rate of `real` passes — the after-question passed AND the before-question on
 *   the same entity (judge.py `before_map`, keyed by the first entity_values key) passed;
 * - every task over ALL its after-questions (pooled over episodes); before-questions only feed the rule;
 * - overall = unweighted mean of the six task rates.
 * The rule pairs items, so it lives here, over all items of the run, not in the per-item judge.
 * With several judge runs the rule is applied run by run (after vote i with before vote i), then averaged.
 */
import { bootstrapMean } from '../../stats/bootstrap.js';
import { judgeVotes, type ItemRecord } from '../../core/item.js';
import { denominatorTable, denominators, type Denominators } from '../../scoring/denominators.js';

export const TASKS = ['ER', 'Agg', 'Tr', 'Del', 'Cas', 'Abs'] as const;
/** After-questions of these tasks count only when the matching before-question passed. */
export const FILTERED_TASKS: ReadonlySet<string> = new Set(['Del', 'Cas', 'Abs']);
const FILTERED = FILTERED_TASKS;

export interface MemeMeta {
  phase: 'before' | 'after';
  task: string;
  entity: string;
}

/** The adapter's question facts, as items carry them (null for anything else). */
export function memeMeta(meta: unknown): MemeMeta | null {
  const m = meta as Partial<MemeMeta> | null | undefined;
  return m && (m.phase === 'before' || m.phase === 'after') && typeof m.task === 'string' && typeof m.entity === 'string' ? (m as MemeMeta) : null;
}

const metaOf = (item: ItemRecord) => memeMeta(item.meta);

/** What the before/after rule needs of an item, whatever record it comes from (runs, or a stats item). */
export interface RuleEntry {
  id: string;
  episode: string | null;
  meta: MemeMeta;
  /** Per-judge-run pass values; null when not scored. */
  runs: number[] | null;
}

export function entityKey(episode: string | null, entity: string): string {
  return `${episode ?? ''}\u0000${entity}`;
}

/**
 * judge.py `before_map`: entity -> the before-question's runs, in question order (a later
 * before-question on the same entity overwrites an earlier one); ER before-questions count as failed.
 */
export function beforeRunsByEntity(entries: RuleEntry[]): Map<string, number[] | null> {
  const map = new Map<string, number[] | null>();
  const before = entries.filter((e) => e.meta.phase === 'before').sort((a, b) => questionIndex(a.id) - questionIndex(b.id));
  for (const e of before) map.set(entityKey(e.episode, e.meta.entity), e.meta.task === 'ER' ? [0] : e.runs);
  return map;
}

/** Per-run pass values of an item: the judge's votes, else its score; null when not scored. */
export function runsOf(item: ItemRecord): number[] | null {
  if (item.error || item.score === null) return null;
  const votes = judgeVotes(item);
  return votes.length > 0 ? votes : [item.score];
}

/** The real-pass value of an after-item given its before-item's runs (both in [0, 1]). */
export function realPass(after: number[], before: number[] | null): number {
  if (before === null) return 0;
  if (after.length === before.length) return mean(after.map((a, i) => a * before[i]!));
  // Run counts differ (e.g. different --judge-runs across a resumed run): the independent product.
  return mean(after) * mean(before);
}

export type PassType = 'real' | 'trivial' | 'knew_but_failed' | 'never_knew';

export interface TaskRow {
  task: string;
  /** After-questions of the task in the run (the denominator). */
  n: number;
  /** Items scored (the rest count as failures, as judge.py records a missing answer as u_pass False). */
  scored: number;
  /** The headline rate: raw pass rate (ER/Agg/Tr) or real-pass rate (Del/Cas/Abs); null when nothing was scored. */
  accuracy: number | null;
  /** The after pass rate before the rule (equals accuracy for ER/Agg/Tr). */
  raw_accuracy: number | null;
  /** Before-question pass rate on this task (Cas/Abs/Del; ER before-questions are not judged). */
  before_accuracy: number | null;
  before_n: number;
  /** judge.py pass types, from majority-vote verdicts (Del/Cas/Abs only). */
  pass_types: Record<PassType, number> | null;
  /** After-items whose before-question is not among the run's items (counted as not passed before). */
  before_missing: number;
  /** Share of after-questions whose selected evidence states every judged value (null: undecidable for all). */
  result_coverage: number | null;
}

export type MemeSummary = {
  headline: 'mean of the six after-question task rates (ER, Agg, Tr raw; Del, Cas, Abs real passes only)';
  overall: number | null;
  /** Tasks that had no scored after-question (overall is then null). */
  tasks_missing: string[];
  tasks: TaskRow[];
  before_after_rule: string;
  /** Overall over all N (failed count 0: judge.py records a missing answer as a failed pass; official) and over the not-failed. */
  denominators?: Denominators;
  /**
   * Result vs path over the Tr and Cas after-questions, from the turns each system showed:
   * result = the answer value shown; path = also what leads to it (src/benchmarks/meme/path.ts).
   * P(path | result) with a percentile bootstrap 95% CI (2,000 resamples, seed 0).
   */
  result_path?: {
    decidable: number;
    result: number;
    path_given_result: number | null;
    ci_low: number | null;
    ci_high: number | null;
  };
  /** Printed by `rawrag run` under the generic tables. */
  tables: Array<{ title: string; header: string[]; rows: Array<Array<string | number>> }>;
};

export function summariseMeme(items: ItemRecord[]): MemeSummary {
  const out = summariseOnly(items);
  out.denominators = denominators(items, (its) => summariseOnly(its).overall, 'all_n');
  out.tables.push(denominatorTable(out.denominators, 'MEME six-task macro %'));
  return out;
}

function summariseOnly(items: ItemRecord[]): MemeSummary {
  const entries = items.map((i) => ({ item: i, meta: metaOf(i) })).filter((e): e is { item: ItemRecord; meta: MemeMeta } => e.meta !== null);
  const beforeMap = beforeRunsByEntity(entries.map((e) => ({ id: e.item.id, episode: e.item.episode, meta: e.meta, runs: runsOf(e.item) })));
  const before = entries.filter((e) => e.meta.phase === 'before');
  const tasks: TaskRow[] = TASKS.map((task) => {
    const after = entries.filter((e) => e.meta.phase === 'after' && e.meta.task === task);
    const befores = before.filter((e) => e.meta.task === task);
    const scored = after.filter((e) => runsOf(e.item) !== null);
    let sum = 0;
    let rawSum = 0;
    let beforeMissing = 0;
    const passTypes: Record<PassType, number> = { real: 0, trivial: 0, knew_but_failed: 0, never_knew: 0 };
    for (const { item, meta } of scored) {
      const runs = runsOf(item)!;
      rawSum += mean(runs);
      if (!FILTERED.has(task)) {
        sum += mean(runs);
        continue;
      }
      const key = entityKey(item.episode, meta.entity);
      if (!beforeMap.has(key)) beforeMissing++;
      const b = beforeMap.get(key) ?? null;
      sum += realPass(runs, b);
      const a = mean(runs) >= 0.5;
      const k = b !== null && mean(b) >= 0.5;
      passTypes[a && k ? 'real' : a ? 'trivial' : k ? 'knew_but_failed' : 'never_knew']++;
    }
    const rc = after.map((e) => e.item.metrics.result_coverage).filter((v): v is number => typeof v === 'number');
    const beforeScored = befores.map((e) => runsOf(e.item)).filter((r): r is number[] => r !== null);
    return {
      task,
      n: after.length,
      scored: scored.length,
      accuracy: scored.length ? sum / after.length : null,
      raw_accuracy: scored.length ? rawSum / after.length : null,
      before_accuracy: beforeScored.length ? mean(beforeScored.map(mean)) : null,
      before_n: befores.length,
      pass_types: FILTERED.has(task) ? passTypes : null,
      before_missing: beforeMissing,
      result_coverage: rc.length ? mean(rc) : null,
    };
  });
  const missing = tasks.filter((t) => t.accuracy === null).map((t) => t.task);
  const overall = missing.length ? null : mean(tasks.map((t) => t.accuracy!));
  const rp = resultPathOf(entries.filter((e) => e.meta.phase === 'after').map((e) => e.item));
  return {
    ...(rp ? { result_path: rp.figures } : {}),
    headline: 'mean of the six after-question task rates (ER, Agg, Tr raw; Del, Cas, Abs real passes only)',
    overall,
    tasks_missing: missing,
    tasks,
    before_after_rule:
      'Del, Cas and Abs after-questions count only when the before-question on the same entity passed (judge.py trivial-pass filter), applied per judge run across items in Benchmark.summarise',
    tables: [
      {
        title: `MEME six-task score (after-questions; Del/Cas/Abs real passes only): overall ${pct(overall)}`,
        header: ['task', 'n', 'accuracy %', 'raw after %', 'before %', 'real / trivial / knew_but_failed / never_knew', 'result coverage %'],
        rows: tasks.map((t) => [
          t.task,
          t.n,
          pct(t.accuracy),
          pct(t.raw_accuracy),
          pct(t.before_accuracy),
          t.pass_types ? `${t.pass_types.real} / ${t.pass_types.trivial} / ${t.pass_types.knew_but_failed} / ${t.pass_types.never_knew}` : '',
          pct(t.result_coverage),
        ]),
      },
      ...(rp ? [rp.table] : []),
    ],
  };
}

/** P(path | result) over the items whose result and path coverage are decidable; null when none has them. */
function resultPathOf(items: ItemRecord[]): { figures: NonNullable<MemeSummary['result_path']>; table: MemeSummary['tables'][number] } | null {
  const decided = items.filter((i) => typeof i.metrics.path_result === 'number' && typeof i.metrics.path_coverage === 'number');
  if (decided.length === 0) return null;
  const withResult = decided.filter((i) => i.metrics.path_result === 1);
  const x = withResult.map((i) => i.metrics.path_coverage as number);
  const b = x.length ? bootstrapMean(x, { resamples: 2000, seed: 0 }) : null;
  const figures = { decidable: decided.length, result: withResult.length, path_given_result: b?.mean ?? null, ci_low: b?.ciLow ?? null, ci_high: b?.ciHigh ?? null };
  return {
    figures,
    table: {
      title: 'Result vs path (Tr and Cas after-questions, from the turns shown): P(path | result) with a bootstrap 95% CI',
      header: ['decidable', 'result shown', 'path shown too', 'P(path | result) %', '95% CI'],
      rows: [
        [
          decided.length,
          withResult.length,
          x.filter((v) => v === 1).length,
          pct(figures.path_given_result),
          b ? `${pct(b.ciLow)}–${pct(b.ciHigh)}` : '—',
        ],
      ],
    },
  };
}

/** `<episode>:<phase>:<index>` -> index (question order inside its block). */
function questionIndex(id: string): number {
  const n = Number(id.slice(id.lastIndexOf(':') + 1));
  return Number.isFinite(n) ? n : 0;
}

function pct(x: number | null): string {
  return x === null ? '—' : (100 * x).toFixed(2);
}

function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}
