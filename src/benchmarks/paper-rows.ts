/**
 * The paper's published RAW-RAG figures ("Is Complex Agentic Memory Always Needed? Naive RAG Is
 * Stronger Than We Thought", main results and retriever table), read from configs/paper/figures.json: run summaries, `rawrag
 * stats` and `rawrag report` print the paper's figure beside the user's where a run is a paper row.
 */
import { RELEASE_SHA256 as LOCOMO_RELEASE } from './locomo/index.js';
import { VARIANT_FILES as LONGMEMEVAL_FILES } from './longmemeval/variants.js';
import { paperFigures } from './paper-figures.js';

/**
 * The data each benchmark's paper figures were measured on (its default data setting): the pinned
 * release's sha256 where one is published, and its question count. A run of another file, or of
 * a file holding fewer questions, is "other data" beside the paper (src/core/comparability.ts).
 */
export const PAPER_RELEASES: Readonly<Record<string, { sha256?: string | null; questions?: number }>> = {
  locomo: { sha256: LOCOMO_RELEASE, questions: 1540 },
  longmemeval: { sha256: LONGMEMEVAL_FILES.s_cleaned.sha256, questions: 500 },
  meme: { questions: 1188 },
  memoryagentbench: { questions: 2071 },
};

export interface PaperRow {
  benchmark: string;
  /** Reader model as rawrag's registry names it. */
  reader: string;
  /**
   * `openai` (text-embedding-3-small + Cohere rerank-v3.5), `qwen3` (Qwen3-Embedding-4B + Qwen3-Reranker-4B),
   * or `full-context` (no retrieval: the whole history, the paper's Full-context row).
   */
  retriever: 'openai' | 'qwen3' | 'full-context';
  /** Who the row is, when it is not RAW-RAG (`Full-context`). */
  system?: string;
  /** The headline the paper reports (accuracy %, or the benchmark's macro). */
  accuracy: number;
  /** What the figure is (e.g. `six-task macro`), so nobody compares it with the wrong number. */
  headline: string;
  /** The strongest other system the paper lists for the same row, when it names one. */
  strongestOther?: { system: string; accuracy: number };
  /** Where in the paper the figure comes from. */
  source: string;
}

// PersonaMem-v2 (figures.json `personamem`) is not a row here: the paper does
// not say which reader produced it (`rawrag paper` lists it with any reader's run, naming the reader).
/** The RAW-RAG rows of configs/paper/figures.json (src/benchmarks/paper-figures.ts). */
export const PAPER_ROWS: readonly PaperRow[] = paperFigures().rows;

/**
 * Figures the paper gives for one question type (or headline column) of a RAW-RAG row: its named
 * weak spots. `column` is the type or column as rawrag's aggregation names it.
 */
export interface PaperBreakdown {
  benchmark: string;
  reader: string;
  column: string;
  label: string;
  value: number;
  note?: string;
  /** Where in the paper the figure comes from. */
  source: string;
}

/** The weak spots of configs/paper/figures.json (src/benchmarks/paper-figures.ts). */
export const PAPER_BREAKDOWNS: readonly PaperBreakdown[] = paperFigures().breakdowns;

/** The paper's row for a benchmark, reader and retriever, if the paper has one. */
export function paperRow(benchmark: string, reader: string | null, retriever: string): PaperRow | undefined {
  if (reader === null) return undefined;
  return PAPER_ROWS.find((r) => r.benchmark === benchmark && r.reader === reader && retriever.startsWith(r.retriever));
}

/**
 * Where a run's headline sits in summary.json, per benchmark, and its scale to percent: the number
 * to put beside the paper's figure (the same aggregate the paper reports).
 */
export const RUN_HEADLINE: Readonly<Record<string, { path: readonly string[]; toPercent: number; allN?: readonly string[] }>> = {
  locomo: { path: ['overall', 'accuracy'], toPercent: 100, allN: ['overall', 'accuracy_all_n'] },
  longmemeval: {
    path: ['benchmark_summary', 'overall', 'accuracy'],
    toPercent: 100,
    allN: ['benchmark_summary', 'denominators', 'headline_all_n'],
  },
  meme: { path: ['benchmark_summary', 'overall'], toPercent: 100, allN: ['benchmark_summary', 'denominators', 'headline_all_n'] },
  memoryagentbench: {
    path: ['benchmark_summary', 'overall', 'score'],
    toPercent: 1,
    allN: ['benchmark_summary', 'denominators', 'headline_all_n'],
  },
  personamem: {
    path: ['benchmark_summary', 'overall', 'accuracy'],
    toPercent: 100,
    allN: ['benchmark_summary', 'denominators', 'headline_all_n'],
  },
};

function at(obj: unknown, path: readonly string[]): number | null {
  let v: unknown = obj;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return typeof v === 'number' ? v : null;
}

/**
 * The line a run's printed summary ends with when the run is a paper row: the paper's figure
 * beside this run's (over scored items, and over all N when they differ). A run with the paper's
 * benchmark and reader but another retriever gets a line saying the figures are not comparable;
 * so does a run of the row's retriever that is partial or of another setting (`notComparable`:
 * the comparability rule's label, src/core/comparability.ts, e.g. `partial (10 of 1,540)`);
 * anything else gets none.
 */
export function paperComparisonLine(
  benchmark: string,
  reader: string | null,
  retriever: string,
  summary: unknown,
  notComparable: string | null = null,
): string | null {
  const row = paperRow(benchmark, reader, retriever);
  if (!row) {
    const others = PAPER_ROWS.filter((r) => r.benchmark === benchmark && r.reader === reader);
    if (!others.length) return null;
    const list = others.map((r) => `${r.accuracy.toFixed(2)} with the ${r.retriever} retriever`).join(', ');
    return `paper (RAW-RAG, reader ${reader}): ${list}; this run used the ${retriever} retriever, so its figure is not the paper's row`;
  }
  const where = RUN_HEADLINE[benchmark];
  const mine = where ? at(summary, where.path) : null;
  const all = where?.allN ? at(summary, where.allN) : null;
  const fmt = (x: number | null) => (x === null ? '—' : (x * where!.toPercent).toFixed(2));
  const allPart = all !== null && mine !== null && Math.abs(all - mine) > 1e-12 ? ` (over all questions, failed count 0: ${fmt(all)})` : '';
  const other = row.strongestOther
    ? `; strongest other system in the paper: ${row.strongestOther.system} ${row.strongestOther.accuracy.toFixed(2)}`
    : '';
  const caveat = notComparable ? `; this run is ${notComparable}: not comparable with the paper's figure` : '';
  return `paper (${row.system ?? 'RAW-RAG'}, ${row.retriever} retriever, reader ${row.reader}): ${row.accuracy.toFixed(2)} — ${row.headline}; this run: ${fmt(mine)}${allPart}${caveat}${other}`;
}
