import type { Dataset, Question } from './schema.js';
import type { Chunk, IngestedEpisode } from './ingested-episode.js';
import type { Policy } from './policy.js';
import type { Scoring } from './protocol.js';
import type { ItemRecord } from './item.js';
import type { Aggregation } from './aggregation.js';

/** A file the benchmark's data can be fetched from (`rawrag data pull`), pinned by checksum. */
export interface DownloadFile {
  url: string;
  /** Where it is stored, relative to the project root (under datasets/). */
  path: string;
  /** null = no published checksum: `rawrag data pull` then requires `--allow-unpinned`. */
  sha256: string | null;
  bytes?: number;
}

/** A benchmark-specific CLI option (e.g. LoCoMo `-B categories`), declared by its adapter. */
export interface BenchmarkOption {
  /** The option's spelling with its value's name, e.g. `-B categories=<list>` (help shows `-B categories=<list>`). */
  flags: string;
  /** Key under which the value reaches `load()` (camelCase of the long flag): `-B categories=...`, a config file's `options.categories`. */
  key: string;
  description: string;
  /** Default shown in help and recorded in the manifest. */
  defaultValue?: string;
  /** Throws (message only) when a value is not acceptable; checked before the run, so the message can say whether a flag or a config key gave it. */
  validate?(value: string): void;
  /**
   * The option picks the data a run is measured on — which questions, which haystack, which gold
   * (a variant, a size, a subset, a gold version): its value is part of the benchmark-setting, so
   * `rawrag stats` never pairs runs of different values (src/core/setting.ts).
   */
  definesSetting?: boolean;
}

export interface LoadOptions {
  /** Path of the data file or folder (the adapter's default when the user gives none). */
  path: string;
  /** Values of the adapter's own options, keyed by `BenchmarkOption.key` (strings from the CLI/config). */
  options: Record<string, string | undefined>;
}

/** What a benchmark's summarise may read besides the items (the options it ran with, the data). */
export interface SummariseContext {
  options: Record<string, string | undefined>;
  dataset: Dataset;
}

/**
 * A benchmark = its data adapter + its RAW-RAG policy + how it is scored. Everything that
 * differs between benchmarks lives here, as data.
 */
export interface Benchmark {
  name: string;
  title: string;
  /** Default data location, relative to the project root. */
  defaultData: string;
  policy: Policy;
  /** Question types in the order tables print them. */
  typeOrder: string[];
  options: BenchmarkOption[];
  load(opts: LoadOptions): Promise<Dataset>;
  /** Reader prompt, judge and metrics (the benchmark's official protocol). */
  scoring?: Scoring;
  /**
   * How item scores become the benchmark's headline (micro, macro over types or competencies, a
   * cross-item rule): one declaration read by run summaries, ablation tables and `rawrag stats`.
   * Absent = micro average over questions.
   */
  aggregation?: Aggregation;
  /** Benchmark-specific aggregates for summary.json (task-averaged accuracy, competencies, ...). */
  summarise?(items: ItemRecord[], ctx?: SummariseContext): Record<string, unknown>;
  /**
   * Ranking diagnostics beyond the selected top-k (LongMemEval's official recall@50): the runner
   * ranks at least this deep and passes the ranked chunks to `rankingMetrics`.
   */
  rankingDepth?: number;
  /**
   * Per-question figures from the full ranking (best first; the first `k` are the selected
   * evidence), merged into item.metrics.
   */
  rankingMetrics?(q: Question, ranked: Chunk[], ep: IngestedEpisode, k: number): Record<string, number | null>;
  /**
   * Answer-sufficiency coverage for questions without gold turns: 1 when the text shown to the
   * reader contains the answer (or an accepted one) under the benchmark's own answer normalisation,
   * 0 when not, null when undecidable. Absent = coverage stays unknown without gold turns.
   */
  answerSufficiency?(q: Question, texts: readonly string[]): number | null;
  /**
   * Per-question figures from the turn ids shown to the reader, for every system (MEME: result and
   * path coverage), merged into item.metrics.
   */
  shownDiagnostics?(q: Question, shownTurnIds: readonly string[]): Record<string, number | null>;
  /**
   * Every turn relevant to answering q, for oracles that pick evidence with gold knowledge: the
   * gold turns plus what leads to them (MEME: the trigger and chain of a cascade). Absent = q.evidence.
   */
  relevantTurns?(q: Question): string[];
  /** Official files by variant name, for `rawrag data pull <benchmark> [--variant V]`. */
  downloads?: Record<string, DownloadFile[]>;
  /**
   * The judge model of the benchmark's official setting (LongMemEval: gpt-4o-2024-08-06); used
   * when neither a config file nor `--judge` names one (`judge.model: null`). The reader's official
   * max_tokens is a value of the reader protocol (ReaderProtocol.maxTokens), per question.
   */
  defaultJudgeModel?: string;
}
