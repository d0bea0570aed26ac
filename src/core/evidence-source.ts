/**
 * The evidence-source seam: what stands between a question and the reader. RAW-RAG's retrievers
 * (window ranking over the raw history) are one source; the built-in agentic memory system
 * (LLM extraction at ingest, weighted recall) is another; any future system plugs in here.
 *
 * The pipeline (src/pipeline/pipeline.ts) never asks which source it runs: it reads the
 * source's capabilities, opens one EpisodeEvidence per (episode, visibility horizon), and asks it
 * for each question's evidence. What the reader is shown is an `Evidence`; what the item records
 * about how it was found (ranked windows, recalled memories, coverage, pollution) the source
 * writes into the item itself.
 */
import type { RunConfig } from '../config/schema.js';
import type { Benchmark } from './benchmark.js';
import type { Policy } from './policy.js';
import type { Question } from './schema.js';
import type { IngestedEpisode } from './ingested-episode.js';
import type { Evidence } from './ingested-episode.js';
import type { ItemRecord } from './item.js';
import type { Retriever } from './retriever.js';

/** What a source needs and allows; the scheduler reads these instead of names. */
export interface SourceCapabilities {
  /** Calls a provider at ingest or per question (network, keys, cost). */
  remote: boolean;
  /** Calls an LLM while ingesting an episode (memory extraction): ingest is a paid, cached stage. */
  llmAtIngest: boolean;
  /**
   * Which provider role's concurrency limit bounds questions in flight during retrieval
   * (`rerank` for remote rerankers, `chat` for LLM-based recall); null = local, CPU-bound.
   */
  questionRole: 'embed' | 'rerank' | 'chat' | null;
  /** Ranks windows, so k / candidates / rerank apply and `rawrag ablate` can sweep them. */
  ranksWindows: boolean;
  /** Ranking deeper than k costs nothing: coverage at k = 1, 5, 15, 60 comes from one ranking. */
  cheapDeepRanking: boolean;
  /**
   * Config sections the source reads beyond the common ones (`memory`): `rawrag ablate` sweeps
   * their values as plain runs of the source, one run directory per variant.
   */
  configSections?: readonly string[];
  /** Stands in offline for the method the paper measured (the embedded retriever): never the default stats baseline when the real one is there. */
  standIn?: boolean;
  /**
   * Episodes open at once, at most (default: as many as the question concurrency allows, up to 16).
   * A memory service that holds one owner at a time says 1: the pipeline then opens, answers and
   * releases one episode after another.
   */
  episodesAtOnce?: number;
  /**
   * The system answers each question itself, as its vendor's protocol has its own agent answer: the
   * evidence it returns carries that answer (`Evidence.answer`), which takes the reader's place (no
   * reader model is called; the judge scores it). `model` is the LLM its agent answers with: the
   * setting's reader part, so the run pairs with runs whose reader is that model.
   */
  answersItself?: { model: string };
}

/** Everything a source may read when it opens an episode or answers a question. */
export interface SourceContext {
  cfg: RunConfig;
  benchmark: Benchmark;
  /** The benchmark's policy after the episode's override and the user's flags. */
  policy: Policy;
  /**
   * How far the episode being opened has got with its ingest, in the source's own units (extraction
   * batches, acknowledged adds; `done` of `total`, already-stored ones included): the run's progress
   * shows it as turns ingested (src/core/phases.ts). Only while `open` runs; a source that says nothing
   * has its episode counted when `open` returns.
   */
  ingestProgress?(done: number, total: number): void;
}

export interface EvidenceSource {
  /** The system under test as manifests and `rawrag stats` name it (`RAW-RAG/local`, `agentic-memory/gpt-4o-mini`). */
  readonly system: string;
  /** The effective component names actually used (e.g. the retriever after any fallback); part of a run's identity. */
  readonly name: string;
  readonly capabilities: SourceCapabilities;
  /**
   * The window retriever behind a source that ranks windows (RAW-RAG): `rawrag ablate` derives its
   * variants (k, candidates, reranking, window) from one ranking by it. Absent = nothing to rank.
   */
  readonly ranker?: Retriever;
  /** What this source could not do and what it did instead (shown first, kept in the manifest). */
  readonly notes: string[];
  /**
   * Another system (as manifests name it) `rawrag stats` also pairs this run against when both are
   * in one benchmark-setting, besides the baseline: a store oracle against the raw-evidence oracle
   * of the same budget (manifest `pair_with`).
   */
  readonly pairWith?: string;
  /** The system's own library behind this source, when rawrag started it (name, version, where it came from): kept in the manifest. */
  readonly library?: Record<string, unknown>;
  /** Optional warm-up with every pending question before any episode is opened (batched query embeddings). */
  prefetch?(questions: Question[]): Promise<void>;
  /**
   * Ingests one episode's visible history (ep.visibleTurns turns) and returns what answers its
   * questions. Throwing makes every question of that episode an item error (retryable); the run
   * goes on with the other episodes.
   */
  open(ep: IngestedEpisode, ctx: SourceContext): Promise<EpisodeEvidence>;
  /** Figures for summary.json: ingest cost (extraction calls, tokens, dollars), store paths, ... */
  report?(): Record<string, unknown>;
  close?(): Promise<void>;
}

export interface EpisodeEvidence {
  /**
   * Finds q's evidence, records how it was found on `item` (retrieved / recalled lists, coverage,
   * coverage at k, ranking metrics) and returns what the reader is shown. Throwing makes the item
   * an error at stage `retrieve`.
   */
  evidenceFor(q: Question, item: ItemRecord, ctx: SourceContext): Promise<Evidence>;
  /** Ingest figures of this episode (ms, LLM calls, tokens), spread over its questions' items. */
  readonly ingest?: Record<string, number>;
  /** Called once every question of the episode is answered (a service that holds one owner at a time clears it). */
  release?(): Promise<void>;
}
