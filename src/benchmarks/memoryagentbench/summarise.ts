/**
 * MemoryAgentBench aggregation (Benchmark.summarise): per source the micro mean x100 (as
 * main.py::save_results_to_file), per task (the paper's table columns: the five ICL sources form
 * one task, MCC, their mean), per competency the mean of its tasks, and Overall the unweighted
 * mean of the four competencies (the RAW-RAG paper's four-competency macro; the official code has
 * no cross-source aggregate). The same three levels are given for the offline answer-in-evidence
 * check. Items: type = source, type_id = competency.
 */
import type { ItemRecord } from '../../core/item.js';
import { denominatorTable, denominators } from '../../scoring/denominators.js';
import { COMPETENCIES, COMPETENCY_NAMES, COMPETENCY_OF_SPLIT, SOURCES, officialMetric, sourceInfo, taskLabel, taskOf } from './sources.js';

export interface Level {
  n: number;
  errors: number;
  /** Items with an official score (reader + metric or judge). */
  scored: number;
  /** Mean official score x100; null when nothing was scored. */
  score: number | null;
  /** Mean answer-in-evidence x100 over items where it was computed. */
  answer_in_evidence: number | null;
}

export interface SourceRow extends Level {
  source: string;
  competency: string;
  task: string;
  metric: string;
}

export interface TaskRow {
  task: string;
  competency: string;
  sources: string[];
  score: number | null;
  answer_in_evidence: number | null;
}

export interface CompetencyRow {
  competency: string;
  name: string;
  tasks: string[];
  score: number | null;
  answer_in_evidence: number | null;
}

/** Deviations from the official pipeline (and official quirks kept), named in every run summary. */
export const DEVIATIONS: string[] = [
  'Retrieval units: RAW-RAG 256/224-token cl100k windows over the context (FactConsolidation: one chunk per numbered fact, number kept), not the official NLTK-Punkt/o200k 512- or 4096-token chunks; units are not wrapped in the official memorize template (no wall-clock timestamp).',
  "Retrieval query: the HF question string verbatim (RAW-RAG), not the official text after 'Now Answer the Question:' / 'Here is the conversation:'.",
  'Reader: temperature 0 (official agent YAMLs use 0.7); max_tokens per source as officially (generation_max_length: FC 10, ICL 20, EventQA 40, RULER/LME 50, recsys 300, ∞Bench-Sum 1200, DetectiveQA 2000) unless reader.maxTokens is set.',
  'Judges: run cfg.judge.runs times (default 3) at temperature 0 with the run\'s judge model (default gpt-4o), mean reported (official: one GPT-4o call; ∞Bench-Sum gpt-4o-2024-05-13 at temperature 0.1). An unreadable ∞Bench-Sum judge reply is an item error, excluded from the mean like the official skip.',
  'Kept official quirks: LongMemEval judge shows the gold as a Python list repr (e.g. [\'50\']); ∞Bench-Sum precision prompt shows the expert summary as a one-element Python list; strict exact match for ICL/DetectiveQA; recsys blank lines occupy a rank (matched to the shortest title).',
  'recsys title matching: ties between equally distant titles go to the first in entity2id.json order (the official de-duplication through a Python set makes ties depend on hash order); without entity2id.json recsys is not scored (the official code falls back to text metrics).',
  'Aggregation: per-task means (ICL = MCC, mean of its 5 sources), per-competency mean of tasks, Overall = mean of the 4 competencies (the official code reports per-source means only).',
];

export function summariseMab(items: ItemRecord[]): Record<string, unknown> {
  const out = summariseOnly(items);
  const d = denominators(items, (its) => (summariseOnly(its).overall as { score: number | null }).score, 'scored');
  out.denominators = d;
  (out.tables as unknown[]).push(denominatorTable(d, 'MemoryAgentBench Overall (four-competency macro, x100)', 1));
  return out;
}

function summariseOnly(items: ItemRecord[]): Record<string, unknown> {
  const sourcesSeen = [...new Set(items.map((i) => i.type))];
  const order = (s: string) => {
    const i = SOURCES.findIndex((x) => x.source === s);
    return i === -1 ? SOURCES.length : i;
  };
  sourcesSeen.sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  const competencyOf = (source: string, its: ItemRecord[]) =>
    sourceInfo(source) ? COMPETENCY_OF_SPLIT[sourceInfo(source)!.split] : String(its[0]?.type_id ?? 'unknown');

  const sources: SourceRow[] = sourcesSeen.map((source) => {
    const its = items.filter((i) => i.type === source);
    return { source, competency: competencyOf(source, its), task: taskOf(source), metric: officialMetric(source), ...level(its) };
  });

  const tasks: TaskRow[] = [];
  for (const row of sources) {
    let t = tasks.find((x) => x.task === row.task && x.competency === row.competency);
    if (!t) tasks.push((t = { task: row.task, competency: row.competency, sources: [], score: null, answer_in_evidence: null }));
    t.sources.push(row.source);
  }
  for (const t of tasks) {
    const rows = sources.filter((r) => t.sources.includes(r.source));
    t.score = meanOf(rows.map((r) => r.score));
    t.answer_in_evidence = meanOf(rows.map((r) => r.answer_in_evidence));
  }

  const competencies: CompetencyRow[] = [...COMPETENCIES, ...new Set(sources.map((s) => s.competency))]
    .filter((c, i, all) => all.indexOf(c) === i)
    .filter((c) => tasks.some((t) => t.competency === c))
    .map((c) => {
      const ts = tasks.filter((t) => t.competency === c);
      return {
        competency: c,
        name: (COMPETENCY_NAMES as Record<string, string>)[c] ?? c,
        tasks: ts.map((t) => taskLabel(t.task)),
        score: meanOf(ts.map((t) => t.score)),
        answer_in_evidence: meanOf(ts.map((t) => t.answer_in_evidence)),
      };
    });

  const four = competencies.filter((c) => (COMPETENCIES as readonly string[]).includes(c.competency));
  const overallScore = meanOf(four.map((c) => c.score));
  const overallEvidence = meanOf(four.map((c) => c.answer_in_evidence));
  const fmt = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  // Printed by `rawrag run` (cli/run-printout.ts benchmarkTables): the three levels of the paper's table.
  const tables = [
    {
      title: 'MemoryAgentBench per source (official metric x100; answer-in-evidence = a selected chunk holds a gold answer):',
      header: ['source', 'competency', 'metric', 'n', 'score', 'answer-in-evidence %'],
      rows: sources.map((r) => [r.source, r.competency, r.metric, r.n, fmt(r.score), fmt(r.answer_in_evidence)]),
    },
    {
      title: 'Per competency (mean of its tasks) and Overall (mean of the four competencies):',
      header: ['competency', 'tasks', 'score', 'answer-in-evidence %'],
      rows: [
        ...competencies.map((c) => [`${c.competency} ${c.name}`, c.tasks.join(', '), fmt(c.score), fmt(c.answer_in_evidence)]),
        [`Overall (${four.length} of 4 competencies)`, '', fmt(overallScore), fmt(overallEvidence)],
      ],
    },
  ];
  return {
    aggregation: 'source micro mean x100 -> task mean (ICL sources = MCC) -> competency mean of tasks -> Overall = mean of the 4 competencies',
    overall: {
      score: overallScore,
      answer_in_evidence: overallEvidence,
      /** Overall is the paper's figure only when all four competencies have a value. */
      competencies_with_score: four.filter((c) => c.score !== null).length,
      competencies_with_evidence: four.filter((c) => c.answer_in_evidence !== null).length,
      n: items.length,
    },
    competencies,
    tasks,
    sources,
    deviations: DEVIATIONS,
    tables,
  };
}

function level(items: ItemRecord[]): Level {
  const ok = items.filter((i) => !i.error);
  const scores = ok.map((i) => i.score).filter((s): s is number => typeof s === 'number');
  const evidence = ok.map((i) => i.metrics.answer_in_evidence).filter((v): v is number => typeof v === 'number');
  return {
    n: items.length,
    errors: items.length - ok.length,
    scored: scores.length,
    score: scores.length ? (100 * scores.reduce((a, b) => a + b, 0)) / scores.length : null,
    answer_in_evidence: evidence.length ? (100 * evidence.reduce((a, b) => a + b, 0)) / evidence.length : null,
  };
}

function meanOf(values: Array<number | null>): number | null {
  const xs = values.filter((v): v is number => v !== null);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}
