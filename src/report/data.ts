/**
 * The page's data: one compact JSON blob. Every string (questions, golds, answers, judge replies,
 * evidence turns) is stored once in a string table and referred to by index, so 2,000 questions
 * x several systems over the same benchmark carry each question and each evidence turn once.
 */
import { serialiseTurn } from '../retrieval/serialise.js';
import type { Dataset } from '../core/schema.js';
import { paperRow, type PaperRow } from '../datasets/paper-rows.js';
import type { FamilyReport, StatsReport } from '../stats/compute-tables.js';
import type { AblationInput, ReportInputs, RunInput } from './collect.js';
import { addCost } from '../providers/usage.js';

/** Per role: tokens, dollars, requests, cache hits (summed over the run's items). */
export interface RoleUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
  requests: number;
  cache_hits: number;
}

export interface RunView {
  label: string;
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
  usage: Record<string, RoleUsage>;
  evidence_text: boolean;
  /** summary.json's coverage at other depths of the same ranking: k -> share with all gold shown. */
  coverage_at_k: Record<string, number | null>;
  /** One row per item: [question, answer, score, votes, judge replies, coverage, evidence turns, error, missed gold turns]. */
  rows: AnswerRow[];
}

/**
 * [question index, answer string (-1 none), score (null unscored), votes (null), judge raw reply
 * strings, coverage (1 all gold shown, 0 not, -1 unknown), evidence turn refs in the order shown,
 * error string (-1 none)].
 */
export type AnswerRow = [number, number, number | null, number[] | null, number[], number, number[], number];

/** [benchmark, id, type, question text, gold, gold evidence turn refs] (strings as indices). */
export type QuestionRow = [number, number, number, number, number, number[]];

export interface FamilyView {
  stats: FamilyReport;
  /** Per leaderboard system: the paper's figure when the run is a paper row. */
  paper: Record<string, PaperRow>;
}

export interface AblationView {
  label: string;
  benchmark: string;
  retriever: string;
  /** The reference's system (ablation.json `system`; older files: RAW-RAG/<retriever>). */
  system: string;
  metric: string;
  resamples: number;
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
  s: string[];
  families: FamilyView[];
  runs: RunView[];
  ablations: AblationView[];
  questions: QuestionRow[];
  /** Flat pairs: turn t is [turns[2t] = id string, turns[2t+1] = text string or -1]. */
  turns: number[];
}

class Interner {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  of(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    return i;
  }
  maybe(s: unknown): number {
    return typeof s === 'string' ? this.of(s) : -1;
  }
}

export function buildReportData(inputs: ReportInputs, meta: { version: string; libraries: Record<string, string> }): ReportData {
  const str = new Interner();
  const turns: number[] = [];
  const turnIndex = new Map<string, number>();
  const questions: QuestionRow[] = [];
  const questionIndex = new Map<string, number>();

  const runs: RunView[] = inputs.runs.map((run) => {
    const dataset = inputs.datasets.get(run) ?? null;
    const texts = turnTexts(dataset, run);
    const turnRef = (episode: string, id: string): number => {
      const key = `${run.loaded.benchmark}\u0000${episode}\u0000${id}`;
      let t = turnIndex.get(key);
      if (t === undefined) {
        t = turns.length / 2;
        const text = texts?.get(`${episode}\u0000${id}`);
        turns.push(str.of(id), text === undefined ? -1 : str.of(text));
        turnIndex.set(key, t);
      } else if (turns[2 * t + 1] === -1) {
        const text = texts?.get(`${episode}\u0000${id}`);
        if (text !== undefined) turns[2 * t + 1] = str.of(text);
      }
      return t;
    };
    const rows: AnswerRow[] = run.items.map((item) => {
      const episode = typeof item.episode === 'string' ? item.episode : '';
      const id = String(item.id);
      const qKey = `${run.loaded.benchmark}\u0000${id}`;
      let q = questionIndex.get(qKey);
      const gold = Array.isArray(item.gold_evidence) ? (item.gold_evidence as string[]) : [];
      if (q === undefined) {
        q = questions.length;
        questions.push([
          str.of(run.loaded.benchmark),
          str.of(id),
          str.of(item.type === undefined || item.type === null ? 'untyped' : String(item.type)),
          str.maybe(item.question),
          str.maybe(item.gold),
          gold.map((t) => turnRef(episode, t)),
        ]);
        questionIndex.set(qKey, q);
      } else if (questions[q]![3] === -1 && typeof item.question === 'string') {
        // An external run came first with bare ids; a rawrag run has the text.
        const row = questions[q]!;
        row[3] = str.of(item.question);
        row[4] = str.maybe(item.gold);
        row[5] = gold.map((t) => turnRef(episode, t));
        if (item.type !== undefined && item.type !== null) row[2] = str.of(String(item.type));
      }
      const judge = (item.details as { judge?: { votes?: number[]; runs?: Array<{ raw?: unknown }> } } | undefined)?.judge;
      const votes = Array.isArray(judge?.votes) ? judge!.votes : Array.isArray(item.judge) ? (item.judge as number[]) : null;
      const replies = (judge?.runs ?? []).map((r) => str.of(typeof r.raw === 'string' ? r.raw : JSON.stringify(r.raw ?? null)));
      const cov = item.coverage as { all?: boolean } | boolean | null | undefined;
      const covered = cov === null || cov === undefined ? -1 : typeof cov === 'boolean' ? Number(cov) : Number(Boolean(cov.all));
      const err = item.error as { stage?: string; message?: string } | string | null | undefined;
      const errText = err == null ? -1 : str.of(typeof err === 'string' ? err : `${err.stage ?? 'error'}: ${err.message ?? ''}`);
      const shown = Array.isArray(item.evidence_turns) ? (item.evidence_turns as string[]) : [];
      return [
        q,
        str.maybe(item.answer),
        typeof item.score === 'number' ? item.score : null,
        votes && votes.length ? votes : null,
        replies,
        covered,
        shown.map((t) => turnRef(episode, t)),
        errText,
      ];
    });
    return {
      label: run.label,
      system: run.loaded.system,
      benchmark: run.loaded.benchmark,
      setting: run.loaded.setting,
      status: run.loaded.status,
      reader: configValue(run, 'reader'),
      judge: run.items.some((i) => judgeOf(i) !== null) ? configValue(run, 'judge') : null,
      summary: summaryView(run),
      timings: numbers((run.manifest.timings ?? {}) as Record<string, unknown>),
      usage: usageOf(run),
      evidence_text: texts !== null,
      coverage_at_k: coverageAtK(run),
      rows,
    };
  });

  return {
    format: 'rawrag.report/1',
    generated_at: new Date().toISOString(),
    tool_version: meta.version,
    libraries: meta.libraries,
    stats_source: inputs.statsSource,
    confidence: inputs.stats.options?.confidence ?? 0.95,
    notes: inputs.notes,
    s: str.strings,
    families: familyViews(inputs.stats),
    runs,
    ablations: inputs.ablations.map(ablationView),
    questions,
    turns,
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

function usageOf(run: RunInput): Record<string, RoleUsage> {
  const total: Record<string, RoleUsage> = {};
  for (const item of run.items) {
    const usage = (item.details as { usage?: Record<string, RoleUsage> } | undefined)?.usage;
    if (!usage) continue;
    for (const [role, u] of Object.entries(usage)) {
      const t = (total[role] ??= { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, requests: 0, cache_hits: 0 });
      t.prompt_tokens += u.prompt_tokens ?? 0;
      t.completion_tokens += u.completion_tokens ?? 0;
      t.cost_usd = addCost(t.cost_usd, u.cost_usd ?? null);
      t.requests += u.requests ?? 0;
      t.cache_hits += u.cache_hits ?? 0;
    }
  }
  return total;
}

function familyViews(stats: StatsReport): FamilyView[] {
  return stats.families.map((f) => {
    const reader = f.setting.includes('/') ? f.setting.slice(f.setting.indexOf('/') + 1) : null;
    const paper: Record<string, PaperRow> = {};
    for (const row of f.leaderboard) {
      if (!row.reference || !row.source) continue;
      const p = paperRow(f.benchmark, reader, row.source);
      if (p) paper[row.system] = p;
    }
    return { stats: f, paper };
  });
}

function ablationView(a: AblationInput): AblationView {
  const d = a.data as {
    benchmark?: string;
    retriever?: string;
    system?: string;
    metric?: string;
    resamples?: number;
    table?: Array<Record<string, unknown>>;
  };
  return {
    label: a.label,
    benchmark: d.benchmark ?? '?',
    retriever: d.retriever ?? '?',
    system: d.system ?? d.retriever ?? '?',
    metric: d.metric ?? 'coverage',
    resamples: d.resamples ?? 0,
    rows: d.table ?? [],
  };
}
