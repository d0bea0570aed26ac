/** What a stage after evidence (read, metrics, judge) sees, and the stage interface; the pipeline runs them in order. */
import type { Benchmark } from '../core/benchmark.js';
import type { Question } from '../core/schema.js';
import type { RunConfig } from '../config/schema.js';
import type { IngestedEpisode } from '../core/ingested-episode.js';
import type { Evidence } from '../core/ingested-episode.js';
import type { ItemRecord } from '../core/item.js';
import type { Phase } from '../core/phases.js';

export interface StageContext {
  question: Question;
  evidence: Evidence;
  ep: IngestedEpisode;
  cfg: RunConfig;
  benchmark: Benchmark;
  /** `--epochs N`: which answer this is (1-based); absent = the only one. */
  epoch?: number;
}

export interface ItemStage {
  name: string;
  /** The run phases (src/core/phases.ts) an item has passed once this stage ran: the reader `answer`, an LLM judge `judge`. */
  phases?: readonly Phase[];
  run(item: ItemRecord, ctx: StageContext): Promise<void>;
}
