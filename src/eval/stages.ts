/**
 * What happens to a question after retrieval: reading, judging, metrics. Each is an ItemStage
 * that fills fields of the item; the runner stays ignorant of which stages exist.
 */
import type { Benchmark } from '../datasets/benchmark.js';
import type { Question } from '../datasets/schema.js';
import type { RunConfig } from '../config/schema.js';
import type { IngestedEpisode } from '../rawrag/chunk.js';
import type { Evidence } from '../rawrag/assemble.js';
import type { ItemRecord } from '../run/item.js';

export interface StageContext {
  question: Question;
  evidence: Evidence;
  ep: IngestedEpisode;
  cfg: RunConfig;
  benchmark: Benchmark;
}

export interface ItemStage {
  name: string;
  run(item: ItemRecord, ctx: StageContext): Promise<void>;
}

export interface StagePlan {
  stages: ItemStage[];
  /** Human sentences: what this run will not do, and why. */
  skipped: string[];
  /** How many questions may be in flight at once (1 when everything is local and CPU-bound). */
  concurrency: number;
  /** Figures for summary.json (cache hits, token usage, cost). */
  report?(): Record<string, unknown>;
  close?(): Promise<void>;
}

export async function planStages(cfg: RunConfig, _benchmark: Benchmark): Promise<StagePlan> {
  const skipped: string[] = [];
  if (cfg.reader.model === null) {
    skipped.push('no reader configured (--reader MODEL): answers and judge scores were not produced; coverage only');
  }
  return { stages: [], skipped, concurrency: 1 };
}
