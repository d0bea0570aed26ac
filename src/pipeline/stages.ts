/**
 * What happens to a question after retrieval: reading, judging, metrics. Each is an ItemStage
 * that fills fields of the item; the runner stays ignorant of which stages exist.
 */
import type { Benchmark } from '../core/benchmark.js';
import type { RunConfig } from '../config/schema.js';
import { ProviderSession } from '../providers/session.js';
import { chatModel } from '../providers/clients.js';
import { readerStage } from '../eval/reader.js';
import { judgeStage, metricsStage } from '../eval/judge.js';
import { withOtherGold } from '../eval/other-gold.js';
import { judgeProtocolFor } from '../eval/judge-prompt.js';
import type { ItemStage, StageContext } from '../eval/stage.js';
import { readerProtocolFor } from '../eval/reader-override.js';

export type { ItemStage, StageContext };
import { judgeModelFor, type ReaderMaxTokensSetting, type Scoring } from '../core/protocol.js';

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

/**
 * The stages a run's config asks for: read -> metrics -> judge when a reader is named and the
 * benchmark has a scoring protocol. Models are checked here (endpoint, key) so a missing key
 * stops the run before anything is written.
 */
export async function planStages(
  cfg: RunConfig,
  benchmark: Benchmark,
  session: ProviderSession = new ProviderSession(),
  source: { remote: boolean; questionRole: 'embed' | 'rerank' | 'chat' | null } = { remote: false, questionRole: null },
): Promise<StagePlan> {
  const skipped: string[] = [];
  const base = {
    // A source that calls a provider per question (remote rerank, LLM recall): let questions overlap.
    concurrency: source.questionRole ? session.transport.concurrency[source.questionRole] : 1,
    report: () => (source.remote || cfg.reader.model !== null ? session.report() : {}),
    close: async () => session.close(),
  };
  if (cfg.reader.model === null) {
    skipped.push('no reader configured (--reader MODEL): answers and judge scores were not produced; coverage only');
    return { ...base, stages: [], skipped };
  }
  const scoring = benchmark.scoring;
  if (!scoring) {
    skipped.push(`${benchmark.name} has no scoring protocol yet: no answers or scores were produced; coverage only`);
    return { ...base, stages: [], skipped };
  }
  const reader = chatModel(session, 'reader', cfg.reader.model);
  const readerProtocol = readerProtocolFor(cfg, scoring);
  const stages: ItemStage[] = [readerStage(reader, readerProtocol), metricsStage(scoring)];
  const { stage: scoreStage, judgeInfo } = scoringStage(cfg, benchmark, scoring, session, skipped);
  stages.push(scoreStage);
  const readerInfo = {
    model: reader.entry.name,
    protocol: readerProtocol.id,
    source: readerProtocol.source,
    temperature: cfg.reader.temperature,
    max_tokens: describeReaderMaxTokens(cfg.reader.maxTokens),
  };
  return {
    ...base,
    stages,
    skipped,
    concurrency: Math.max(base.concurrency, session.transport.concurrency.chat),
    report: () => ({ reader: readerInfo, judge: judgeInfo, ...session.report() }),
  };
}

export function fallbackScoreStage(metric: string | undefined): ItemStage {
  return {
    name: 'score',
    async run(item) {
      const v = metric ? item.metrics[metric] : undefined;
      item.score = typeof v === 'number' ? v : null;
    },
  };
}

/** What summary.json records as the reader budget: the override, or that the protocol decides per question. */
function describeReaderMaxTokens(setting: ReaderMaxTokensSetting): number | string {
  return setting === null ? 'official (per question; see item details.reader.max_tokens)' : setting === 'none' ? 'none sent' : setting;
}

/**
 * What scores an answer: the benchmark's judge (its official model unless one is named, `runs`
 * times) or, without a judge, its fallback metric. Shared by `rawrag run` and `rawrag judge`.
 */
export function scoringStage(
  cfg: RunConfig,
  benchmark: Benchmark,
  scoring: Scoring,
  session: ProviderSession,
  skipped: string[],
): { stage: ItemStage; judgeInfo: Record<string, unknown> } {
  if (!scoring.judge) {
    skipped.push(`${benchmark.name} has no LLM judge: items are scored by ${scoring.fallbackMetric ?? 'nothing'}`);
    return { stage: fallbackScoreStage(scoring.fallbackMetric), judgeInfo: { model: null, runs: 0 } };
  }
  const judge = chatModel(session, 'judge', judgeModelFor(cfg.judge.model, benchmark.defaultJudgeModel));
  // --judge-prompt FILE: another prompt for the same judge protocol (parse, JSON mode, runs).
  const protocol = judgeProtocolFor(scoring.judge, cfg.judge.prompt ?? null);
  return {
    // Questions that carry a second gold version are also judged under it (summary: the score under both golds).
    stage: withOtherGold(judgeStage(judge, protocol, cfg.judge.runs, scoring.fallbackMetric), scoring.metrics),
    judgeInfo: {
      model: judge.entry.name,
      protocol: protocol.id,
      source: protocol.source,
      runs: cfg.judge.runs,
      temperature: cfg.judge.temperature,
    },
  };
}
