/**
 * LongMemEval's reported scores (print_qa_metrics.py, spec §2.2) and the official retrieval
 * averages (run_retrieval.py `main`, spec §2.3), recomputed from items.jsonl.
 *
 * Accuracy is over judged items (item.score = mean of the judge runs). `missing` counts questions
 * without a judged answer (errors, no reader): officially they simply drop out, which shrinks the
 * denominators, so n is always reported beside each figure.
 */
import type { ItemRecord } from '../../core/item.js';
import { denominatorTable, denominators, type Denominators } from '../../scoring/denominators.js';
import { QUESTION_TYPES, isAbstention } from './format.js';
import { RETRIEVAL_KS, RETRIEVAL_LEVELS, RETRIEVAL_MEASURES, metricName } from './retrieval-metrics.js';

export interface Accuracy {
  n: number;
  accuracy: number | null;
}

export type LongMemEvalSummary = {
  judged: number;
  missing: number;
  /** Micro accuracy over judged questions. */
  overall: Accuracy;
  /** Mean of the per-type accuracies (the types that have judged questions). */
  task_averaged: Accuracy;
  abstention: Accuracy;
  by_type: Record<string, Accuracy>;
  /** Official retrieval averages: `session_recall_all@5` -> {n, mean}. */
  retrieval: Record<string, { n: number; mean: number | null }>;
  /** Questions averaged for retrieval (abstention and no-user-evidence ones are left out officially). */
  retrieval_questions: number;
  /** Overall accuracy over all N (failed count 0) and over the not-failed (the official rule), failures by stage. */
  denominators?: Denominators;
  tables?: ReportTable[];
};

function acc(scores: number[]): Accuracy {
  return { n: scores.length, accuracy: scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null };
}

export function summariseLongMemEval(items: ItemRecord[]): LongMemEvalSummary {
  const out = summariseOnly(items);
  out.denominators = denominators(items, (its) => summariseOnly(its).overall.accuracy, 'scored');
  out.tables = longMemEvalTables(out);
  if (out.judged > 0 || out.denominators.failed > 0) out.tables.push(denominatorTable(out.denominators, 'LongMemEval overall accuracy %'));
  return out;
}

function summariseOnly(items: ItemRecord[]): LongMemEvalSummary {
  const judged = items.filter((i) => !i.error && i.score !== null);
  const by_type: Record<string, Accuracy> = {};
  const types = [...QUESTION_TYPES, ...new Set(items.map((i) => i.type).filter((t) => !(QUESTION_TYPES as readonly string[]).includes(t)))];
  for (const t of types) {
    const row = acc(judged.filter((i) => i.type === t).map((i) => i.score!));
    if (items.some((i) => i.type === t)) by_type[t] = row;
  }
  const typeAccs = Object.values(by_type).map((r) => r.accuracy).filter((a): a is number => a !== null);
  const retrieval: LongMemEvalSummary['retrieval'] = {};
  for (const level of RETRIEVAL_LEVELS) {
    for (const m of RETRIEVAL_MEASURES) {
      for (const k of RETRIEVAL_KS) {
        const name = metricName(level, m, k);
        const vals = items.map((i) => i.metrics[name]).filter((v): v is number => typeof v === 'number');
        retrieval[name] = { n: vals.length, mean: vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : null };
      }
    }
  }
  const averaged = items.filter((i) => !i.error && typeof i.metrics[metricName('session', 'recall_any', 1)] === 'number').length;
  const out: LongMemEvalSummary = {
    judged: judged.length,
    missing: items.length - judged.length,
    overall: acc(judged.map((i) => i.score!)),
    task_averaged: { n: typeAccs.length, accuracy: typeAccs.length ? typeAccs.reduce((a, b) => a + b, 0) / typeAccs.length : null },
    abstention: acc(judged.filter((i) => isAbstention(i.id)).map((i) => i.score!)),
    by_type,
    retrieval,
    retrieval_questions: averaged,
  };
  return out;
}

export interface ReportTable {
  title: string;
  header: string[];
  rows: Array<Array<string | number>>;
}

/** Tables the run report prints (report.ts prints `benchmark_summary.tables`). */
export function longMemEvalTables(s: LongMemEvalSummary): ReportTable[] {
  const pct = (x: number | null) => (x === null ? '—' : (100 * x).toFixed(2));
  const tables: ReportTable[] = [];
  if (s.judged > 0) {
    tables.push({
      title: `LongMemEval accuracy (official judge prompts; ${s.judged} judged${s.missing ? `, ${s.missing} not judged` : ''}):`,
      header: ['score', 'n', 'accuracy %'],
      rows: [
        ['overall', s.overall.n, pct(s.overall.accuracy)],
        ['task-averaged', `${s.task_averaged.n} types`, pct(s.task_averaged.accuracy)],
        ['abstention', s.abstention.n, pct(s.abstention.accuracy)],
        ...Object.entries(s.by_type).map(([t, r]) => [t, r.n, pct(r.accuracy)]),
      ],
    });
  }
  const rows: string[][] = [];
  for (const level of RETRIEVAL_LEVELS) {
    for (const m of RETRIEVAL_MEASURES) {
      rows.push([
        level,
        m,
        ...RETRIEVAL_KS.map((k) => {
          const r = s.retrieval[metricName(level, m, k)]!;
          return r.mean === null ? '—' : r.n === s.retrieval_questions ? pct(r.mean) : `${pct(r.mean)} (n=${r.n})`;
        }),
      ]);
    }
  }
  tables.push({
    title: `LongMemEval retrieval, official metrics in % (${s.retrieval_questions} questions averaged; ranked windows mapped to sessions and user turns):`,
    header: ['level', 'metric', ...RETRIEVAL_KS.map((k) => `@${k}`)],
    rows,
  });
  return tables;
}
