/** What an ablation is asked, what it is given, and what it returns (src/ablate/engine.ts runs it). */
import type { RunConfig } from '../config/schema.js';
import type { ItemRecord } from '../core/item.js';
import type { EvidenceSource } from '../core/evidence-source.js';
import type { Retriever } from '../core/retriever.js';
import type { Summary } from '../reader-judge/summary.js';
import type { TransportOptions } from '../providers/transport.js';
import type { Manifest } from '../run-files/manifest.js';
import type { Variant } from './variants.js';

export interface AblationRequest {
  base: RunConfig;
  variants: Variant[];
  /** The ablation folder; each variant is a run directory inside it, named after the variant. */
  out: string;
  retryErrors?: boolean;
  /** Retrieve and count, but write nothing and call no reader or judge (see `VariantOutcome.adds`). */
  dryRun?: boolean;
  /** Provider transport (cache, timeouts, concurrency, endpoints), as for `rawrag run`. */
  transport?: Partial<TransportOptions>;
  /** List every data warning (default: one summary line, as `rawrag run`). */
  verbose?: boolean;
  /** The sweep's label (`--name`): every variant's manifest carries it. */
  name?: string | null;
  /**
   * Read and judge again, bypassing the response cache, every question of a variant whose evidence
   * equals an earlier variant's (otherwise their answers are reused, and their share of a delta is 0
   * by construction): what re-judging unchanged evidence moves is then measured (judge noise).
   */
  rejudgeUnchanged?: boolean;
}

export interface AblationHooks {
  log(line: string): void;
  progress?(done: number, total: number): void;
  /** Aborted on SIGINT/SIGTERM: no new questions start; each variant's manifest records `interrupted`. */
  signal?: AbortSignal;
}

export interface AblationDeps {
  /** For tests: the system's source itself (e.g. one whose reranker counts its calls). */
  source?: EvidenceSource;
  /** For dry runs: rank with this stand-in instead of the source's own ranker (nothing is sent). */
  retriever?: Retriever;
  /**
   * Never treat reranked and first-stage evidence as the same set (dry runs whose stand-in
   * reranker cannot tell what the real one would reorder).
   */
  rankingsDiffer?: boolean;
}

/** What a variant adds to the ablation that no earlier variant already paid for. */
export interface VariantAdds {
  /** First-stage indexes built (an embedding pass over every window of an episode). */
  indexBuilds: number;
  /** Windows embedded for those indexes, and their cl100k tokens. */
  windows: number;
  windowTokens: number;
  /** First-stage searches (one query embedding each). */
  searches: number;
  rerankCalls: number;
  /** Evidence sets not seen in an earlier variant for the same question: reader calls, were a reader set. */
  newEvidenceSets: number;
  /** cl100k tokens of those evidence sets (the bulk of the reader's prompt). */
  newEvidenceTokens: number;
}

export interface VariantOutcome {
  variant: Variant;
  adds: VariantAdds;
  dir: string;
  manifest: Manifest;
  summary: Record<string, unknown> & Summary;
  items: ItemRecord[];
}

/** What the shared work cost: the figures that make the ablation cheap (or show it is not). */
export interface AblationWork {
  windowSizes: number;
  indexBuilds: number;
  searches: number;
  rerankCalls: number;
  /** Distinct evidence sets sent through the reader/judge stages. */
  stageRuns: number;
  /** Variant items that reused an identical evidence set's answer. */
  reused: number;
  questions: number;
}

export interface AblationOutcome {
  dir: string;
  benchmark: string;
  retriever: string;
  /** The reference's system (`RAW-RAG/local`, `agentic-memory/gpt-4o-mini`): the table's title. */
  system: string;
  /** The sweep's --name label; null when none. */
  name?: string | null;
  /** Each variant ran as a plain run of the source (a `memory.*` sweep, config-variants.ts): no shared retrieval. */
  plainRuns?: boolean;
  /** Unchanged evidence was read and judged again (`rejudgeUnchanged`), not reused. */
  rejudgedUnchanged?: boolean;
  /** Provider usage of the shared retrieval (embeddings, reranking); each variant's summary has its own reader/judge usage. */
  retrievalReport: Record<string, unknown>;
  variants: VariantOutcome[];
  work: AblationWork;
  wallMs: number;
}
