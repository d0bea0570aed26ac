/**
 * The page's data: one compact JSON blob. Every string (questions, golds, answers, judge replies,
 * evidence turns) is stored once in a string table and referred to by index, so 2,000 questions
 * x several systems over the same benchmark carry each question and each evidence turn once.
 */
import { MANIFEST_FILE, readRunManifest } from '../run-files/record.js';
import { serialiseTurn } from '../retrieval/serialise.js';
import type { Dataset } from '../core/schema.js';
import { paperRow, type PaperRow } from '../benchmarks/paper-rows.js';
import { compareWithPaperRow } from '../paper/rows.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PaperMap } from '../paper/map.js';
import type { FamilyReport, StatsReport } from '../stats/compute-tables.js';
import type { AblationInput, ReportInputs, RunInput } from './collect.js';
import { statusFacts, statusLabel } from '../run-files/status.js';
import { listPriceByRole, paidOf, sumRoles, type RoleUsage } from '../run-files/cost.js';

export type { RoleUsage };

export interface RunView {
  label: string;
  /** The run's `--name` label (manifest `name`); null when none was given. */
  name: string | null;
  system: string;
  benchmark: string;
  setting: string;
  status: string | null;
  reader: string | null;
  judge: string | null;
  /** summary.json's overall figures as written (null fields when absent). */
  summary: {
    n: number;
    errors: number;
    accuracy: number | null;
    scored: number;
    coverage_all: number | null;
    coverage_any: number | null;
    judge_sd: number | null;
    judge_runs: number | null;
  } | null;
  timings: Record<string, number>;
  /** List-price equivalent per role (src/run-files/cost.ts). */
  usage: Record<string, RoleUsage>;
  /** Paid: what was billed over every process of the directory (manifest spent_usd; src/run-files/cost.ts). */
  paid_usd: number | null;
  evidence_text: boolean;
  /** summary.json's coverage at other depths of the same ranking: k -> share with all gold shown. */
  coverage_at_k: Record<string, number | null>;
  /** Items whose evidence and judge replies are embedded (the rest: left out by the page's size cap). */
  detailed: number;
  /** One row per item: [question, answer, score, votes, judge replies, coverage, evidence turns, error, detail]. */
  rows: AnswerRow[];
}

/**
 * [question index, answer string (-1 none), score (null unscored), votes (null), judge raw reply
 * strings, coverage (1 all gold shown, 0 not, -1 unknown), evidence turn refs in the order shown,
 * error string (-1 none), 1 = detail embedded / 0 = evidence and judge replies left out by the page's size cap].
 */
export type AnswerRow = [number, number, number | null, number[] | null, number[], number, number[], number, 0 | 1];

/** [benchmark, id, type, question text, gold, gold evidence turn refs] (strings as indices). */
export type QuestionRow = [number, number, number, number, number, number[]];

export interface FamilyView {
  stats: FamilyReport;
  /** Per leaderboard system: the paper's figure when the run is a complete run of a paper row's setting. */
  paper: Record<string, PaperRow>;
  /** Per leaderboard system that is a paper row's run but not comparable with it: why (`partial (200 of 1,540)`). */
  notComparable: Record<string, string>;
}

export interface AblationView {
  label: string;
  benchmark: string;
  retriever: string;
  /** The reference's system (ablation.json `system`; older files: RAW-RAG/<retriever>). */
  system: string;
  /** The sweep's --name label (ablation.json `name`); null when none. */
  name: string | null;
  metric: string;
  resamples: number;
  /** The whole sweep's wall-clock time (ablation.json `wall_ms`); null when not recorded. */
  wall_ms: number | null;
  rows: Array<Record<string, unknown>>;
}

export interface ReportData {
  format: 'rawrag.report/1';
  generated_at: string;
  tool_version: string;
  libraries: Record<string, string>;
  stats_source: string;
  confidence: number;
  notes: string[];
  /** Characters of data under which per-question detail was embedded (the page's cap). */
  detail_budget: number;
  s: string[];
  families: FamilyView[];
  runs: RunView[];
  ablations: AblationView[];
  questions: QuestionRow[];
  /** Flat pairs: turn t is [turns[2t] = id string, turns[2t+1] = text string or -1]. */
  turns: number[];
  /** The reproduction map over the given folders (`rawrag paper`); absent in pages built without it. */
  paper?: PaperMap;
}

class Interner {
  readonly strings: string[] = [];
  /** Characters of JSON the table holds so far (each string with its quotes and comma). */
  chars = 0;
  private readonly index = new Map<string, number>();
  of(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
      this.chars += s.length + 3;
    }
    return i;
  }
  maybe(s: unknown): number {
    return typeof s === 'string' ? this.of(s) : -1;
  }
}

/**
 * Per-question detail (evidence turns and their text, judge replies) is embedded while the page's
 * data stays under this many characters; items beyond keep their outcome, answer, votes and coverage
 * (so filters and counts stay exact) and the page says how to see the rest (`rawrag show`).
 */
export const DEFAULT_DETAIL_BUDGET = 6_000_000;

export interface BuildOptions {
  version: string;
  libraries: Record<string, string>;
  /** Characters of data under which per-question detail is embedded (default DEFAULT_DETAIL_BUDGET). */
  detailBudget?: number;
}

export function buildReportData(inputs: ReportInputs, meta: BuildOptions): ReportData {
  const str = new Interner();
  const turns: number[] = [];
  const turnIndex = new Map<string, number>();
  const questions: QuestionRow[] = [];
  const questionIndex = new Map<string, number>();
  const budget = meta.detailBudget ?? DEFAULT_DETAIL_BUDGET;
  // Characters of the data so far: strings, plus about 6 per number in the turn and row arrays.
  let refs = 0;
  const used = () => str.chars + 6 * refs;
  let trimming = false;

  const prepared = inputs.runs.map((run) => {
    const dataset = inputs.datasets.get(run) ?? null;
    const texts = turnTexts(dataset, run);
    /** A turn's index; its text is embedded only while per-question detail still fits. */
    const turnRef = (episode: string, id: string, withText: boolean): number => {
      const key = `${run.loaded.benchmark}\u0000${episode}\u0000${id}`;
      let t = turnIndex.get(key);
      const text = withText ? texts?.get(`${episode}\u0000${id}`) : undefined;
      if (t === undefined) {
        t = turns.length / 2;
        turns.push(str.of(id), text === undefined ? -1 : str.of(text));
        turnIndex.set(key, t);
        refs += 2;
      } else if (turns[2 * t + 1] === -1 && text !== undefined) turns[2 * t + 1] = str.of(text);
      refs++;
      return t;
    };
    return { run, texts, turnRef, rows: new Array<AnswerRow>(run.items.length), detailed: 0 };
  });

  const buildRow = (p: (typeof prepared)[number], item: Record<string, unknown>): AnswerRow => {
    const { run, turnRef } = p;
    const episode = typeof item.episode === 'string' ? item.episode : '';
    const id = String(item.id);
    const qKey = `${run.loaded.benchmark}\u0000${id}`;
    let q = questionIndex.get(qKey);
    const gold = Array.isArray(item.gold_evidence) ? (item.gold_evidence as string[]) : [];
    if (!trimming && used() > budget) trimming = true;
    const detail = !trimming;
    if (q === undefined) {
      q = questions.length;
      questions.push([
        str.of(run.loaded.benchmark),
        str.of(id),
        str.of(item.type === undefined || item.type === null ? 'untyped' : String(item.type)),
        str.maybe(item.question),
        str.maybe(item.gold),
        gold.map((t) => turnRef(episode, t, detail)),
      ]);
      questionIndex.set(qKey, q);
    } else if (questions[q]![3] === -1 && typeof item.question === 'string') {
      // An external run came first with bare ids; a rawrag run has the text.
      const row = questions[q]!;
      row[3] = str.of(item.question);
      row[4] = str.maybe(item.gold);
      row[5] = gold.map((t) => turnRef(episode, t, detail));
      if (item.type !== undefined && item.type !== null) row[2] = str.of(String(item.type));
    } else if (detail) {
      // The question came in trimmed from another run: its gold turns' text now fits.
      for (const t of gold) turnRef(episode, t, true);
    }
    const judge = (item.details as { judge?: { votes?: number[]; runs?: Array<{ raw?: unknown }> } } | undefined)?.judge;
    const votes = Array.isArray(judge?.votes) ? judge!.votes : Array.isArray(item.judge) ? (item.judge as number[]) : null;
    const replies = detail ? (judge?.runs ?? []).map((r) => str.of(typeof r.raw === 'string' ? r.raw : JSON.stringify(r.raw ?? null))) : [];
    const cov = item.coverage as { all?: boolean } | boolean | null | undefined;
    const covered = cov === null || cov === undefined ? -1 : typeof cov === 'boolean' ? Number(cov) : Number(Boolean(cov.all));
    const err = item.error as { stage?: string; message?: string } | string | null | undefined;
    const errText = err == null ? -1 : str.of(typeof err === 'string' ? err : `${err.stage ?? 'error'}: ${err.message ?? ''}`);
    const shown = Array.isArray(item.evidence_turns) ? (item.evidence_turns as string[]) : [];
    refs += 10 + replies.length + (votes?.length ?? 0);
    if (detail) p.detailed++;
    return [
      q,
      str.maybe(item.answer),
      typeof item.score === 'number' ? item.score : null,
      votes && votes.length ? votes : null,
      replies,
      covered,
      detail ? shown.map((t) => turnRef(episode, t, true)) : [],
      errText,
      detail ? 1 : 0,
    ];
  };
  // Round robin over the runs, question by question, so every run keeps detail for its first questions.
  const longest = Math.max(0, ...prepared.map((p) => p.run.items.length));
  for (let i = 0; i < longest; i++) for (const p of prepared) if (i < p.run.items.length) p.rows[i] = buildRow(p, p.run.items[i]!);

  const runs = prepared.map(({ run, texts, rows, detailed }) => runView(run, texts !== null, rows, detailed));

  return {
    format: 'rawrag.report/1',
    generated_at: new Date().toISOString(),
    tool_version: meta.version,
    libraries: meta.libraries,
    stats_source: inputs.statsSource,
    confidence: inputs.stats.options?.confidence ?? 0.95,
    notes: inputs.notes,
    detail_budget: budget,
    s: str.strings,
    families: familyViews(inputs.stats),
    runs,
    ablations: inputs.ablations.map(ablationView),
    questions,
    turns,
  };
}

/** A run as the page shows it: its label, setting, status, summary, cost and time, and its answer rows. */
function runView(run: RunInput, evidenceText: boolean, rows: AnswerRow[], detailed: number): RunView {
  return {
    label: run.label,
    name: run.loaded.name ?? null,
    system: run.loaded.system,
    benchmark: run.loaded.benchmark,
    setting: run.loaded.setting,
    // `incomplete (39 failed)`: a run with failed items is never shown as complete (src/run-files/status.ts).
    status: statusLabel(statusFacts(run.manifest, run.summary)),
    reader: configValue(run, 'reader'),
    judge: run.items.some((i) => judgeOf(i) !== null) ? configValue(run, 'judge') : null,
    summary: summaryView(run),
    timings: numbers((run.manifest.timings ?? {}) as Record<string, unknown>),
    usage: usageOf(run),
    paid_usd: paidOf(run.manifest),
    evidence_text: evidenceText,
    coverage_at_k: coverageAtK(run),
    detailed,
    rows,
  };
}

/** Serialised turn lines (as the reader saw them, date and speaker included) for the turns any item refers to. */
function turnTexts(dataset: Dataset | null, run: RunInput): Map<string, string> | null {
  if (!dataset) return null;
  const wanted = new Set<string>();
  for (const item of run.items) {
    const ep = String(item.episode ?? '');
    for (const t of [...((item.evidence_turns as string[]) ?? []), ...((item.gold_evidence as string[]) ?? [])])
      wanted.add(`${ep}\u0000${t}`);
  }
  const style = (run.manifest.policy as { serialisation?: 'message' | 'plain' } | undefined)?.serialisation ?? 'message';
  const out = new Map<string, string>();
  for (const ep of dataset.episodes) {
    const epStyle = ep.policy?.serialisation ?? style;
    for (const turn of ep.turns) {
      const key = `${ep.id}\u0000${turn.id}`;
      if (wanted.has(key)) out.set(key, serialiseTurn(turn, epStyle));
    }
  }
  return out;
}

function judgeOf(item: Record<string, unknown>): string | null {
  const m = (item.details as { judge?: { model?: unknown } } | undefined)?.judge?.model;
  return typeof m === 'string' ? m : null;
}

function configValue(run: RunInput, role: 'reader' | 'judge'): string | null {
  const cfg = run.manifest.config as Record<string, { model?: unknown }> | undefined;
  const m = cfg?.[role]?.model;
  return typeof m === 'string' ? m : null;
}

function summaryView(run: RunInput): RunView['summary'] {
  const s = run.summary as {
    n?: number;
    errors?: number;
    overall?: {
      accuracy?: number | null;
      scored?: number;
      coverage?: { all?: number | null; any?: number | null };
      judge_runs?: { sd: number; runs: number } | null;
    };
  } | null;
  if (!s || !s.overall) return null;
  return {
    n: s.n ?? 0,
    errors: s.errors ?? 0,
    accuracy: s.overall.accuracy ?? null,
    scored: s.overall.scored ?? 0,
    coverage_all: s.overall.coverage?.all ?? null,
    coverage_any: s.overall.coverage?.any ?? null,
    judge_sd: s.overall.judge_runs?.sd ?? null,
    judge_runs: s.overall.judge_runs?.runs ?? null,
  };
}

function coverageAtK(run: RunInput): Record<string, number | null> {
  const at = (run.summary as { coverage_at_k?: Record<string, { all?: number | null }> } | null)?.coverage_at_k ?? {};
  return Object.fromEntries(Object.entries(at).map(([k, c]) => [k, c?.all ?? null]));
}

function numbers(o: Record<string, unknown>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, number] => typeof e[1] === 'number'));
}

/** The list-price equivalent per role (src/run-files/cost.ts: the one cost definition). */
export function usageOf(run: RunInput): Record<string, RoleUsage> {
  return listPriceByRole(run.items, run.summary);
}

/** Sum over roles (null when any role's price is unknown). */
export const totalCost = sumRoles;

function familyViews(stats: StatsReport): FamilyView[] {
  return stats.families.map((f) => {
    const reader = f.setting.includes('/') ? f.setting.slice(f.setting.indexOf('/') + 1) : null;
    const paper: Record<string, PaperRow> = {};
    const notComparable: Record<string, string> = {};
    for (const row of f.leaderboard) {
      if (!row.reference || !row.source) continue;
      const p = paperRow(f.benchmark, reader, row.source);
      if (!p) continue;
      // The paper's figure stands beside a complete run of the row's setting only (src/core/comparability.ts).
      const label = comparisonOf(row.dir);
      if (label === null) paper[row.system] = p;
      else notComparable[row.system] = label;
    }
    return { stats: f, paper, notComparable };
  });
}

function ablationView(a: AblationInput): AblationView {
  const d = a.data as {
    benchmark?: string;
    retriever?: string;
    system?: string;
    name?: string;
    metric?: string;
    resamples?: number;
    wall_ms?: number;
    table?: Array<Record<string, unknown>>;
  };
  return {
    label: a.label,
    benchmark: d.benchmark ?? '?',
    retriever: d.retriever ?? '?',
    system: d.system ?? d.retriever ?? '?',
    name: typeof d.name === 'string' ? d.name : null,
    metric: d.metric ?? 'coverage',
    resamples: d.resamples ?? 0,
    wall_ms: typeof d.wall_ms === 'number' ? d.wall_ms : null,
    rows: d.table ?? [],
  };
}

/** A run directory against its paper row: null when comparable (or unreadable: then no row is claimed), else the label. */
function comparisonOf(dir: string): string | null {
  if (!existsSync(join(dir, MANIFEST_FILE))) return null;
  try {
    return compareWithPaperRow(readRunManifest(dir).manifest as Parameters<typeof compareWithPaperRow>[0])?.notComparable ?? null;
  } catch {
    return null;
  }
}
