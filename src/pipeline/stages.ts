/**
 * What happens to a question after retrieval: reading, judging, metrics. Each is an ItemStage
 * that fills fields of the item; the runner stays ignorant of which stages exist.
 */
import type { Benchmark } from '../core/benchmark.js';
import type { RunConfig } from '../config/schema.js';
import { ProviderSession } from '../providers/session.js';
import { chatModel } from '../providers/clients.js';
import { readerStage } from '../reader-judge/reader.js';
import { judgeStage, metricsStage } from '../reader-judge/judge.js';
import { withOtherGold } from '../reader-judge/other-gold.js';
import { judgeProtocolFor } from '../reader-judge/judge-prompt.js';
import type { ItemStage, StageContext } from '../reader-judge/stage.js';
import { readerProtocolFor } from '../reader-judge/reader-override.js';
import { epochsStage } from '../reader-judge/epochs.js';
import { NO_MODEL } from '../config/load.js';
import { systemAnswerStage } from './system-answer.js';

export type { ItemStage, StageContext };
import { judgeModelFor, type ReaderMaxTokensSetting, type Scoring } from '../core/protocol.js';

export interface StagePlan {
  stages: ItemStage[];
  /** Human sentences: what this run will not do, and why. */
  skipped: string[];
  /** What the user should know before the run starts (printed as notes). */
  notes?: string[];
  /** How many questions may be in flight at once (1 when everything is local and CPU-bound). */
  concurrency: number;
  /** Figures for summary.json (cache hits, token usage, cost). */
  report?(): Record<string, unknown>;
  /** USD the stages' requests cost this process (manifest `spent_usd`); null when a price is unknown. */
  spentUsd?(): number | null;
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
  source: {
    remote: boolean;
    questionRole: 'embed' | 'rerank' | 'chat' | null;
    answersItself?: { model: string };
    system?: string;
  } = {
    remote: false,
    questionRole: null,
  },
): Promise<StagePlan> {
  const skipped: string[] = [];
  const base = {
    // A source that calls a provider per question (remote rerank, LLM recall): let questions overlap.
    concurrency: source.questionRole ? session.transport.concurrency[source.questionRole] : 1,
    report: () => (source.remote || cfg.reader.model !== null ? session.report() : {}),
    spentUsd: () => session.usage.total().cost_usd_spent,
    close: async () => session.close(),
  };
  if (source.answersItself) return selfAnswerPlan(cfg, benchmark, session, base, source.system ?? 'the system', source.answersItself.model);
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
  const { stage: scoreStage, judgeInfo } = scoringStage(cfg, benchmark, scoring, session, skipped);
  const perAnswer: ItemStage[] = [{ ...readerStage(reader, readerProtocol), phases: ['answer'] }, metricsStage(scoring), scoreStage];
  // --epochs N: the reader answers N times (a cache key per epoch), each answer scored, the item the mean.
  const epochs = cfg.epochs ?? 1;
  const stages = epochs > 1 ? [{ ...epochsStage(perAnswer, epochs), phases: perAnswer.flatMap((s) => s.phases ?? []) }] : perAnswer;
  const notes =
    epochs > 1 && cfg.reader.temperature === 0
      ? [
          `${epochs} epochs at reader temperature 0 (the protocol's): the epochs differ only by the provider's own nondeterminism (--temperature T to sample answers)`,
        ]
      : [];
  const readerInfo = {
    ...(epochs > 1 ? { epochs } : {}),
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
    notes,
    concurrency: Math.max(base.concurrency, session.transport.concurrency.chat),
    report: () => ({ reader: readerInfo, judge: judgeInfo, ...session.report() }),
  };
}

/**
 * A system that answers each question itself (capabilities `answersItself`): its answer -> metrics
 * -> judge; no reader is called (a named --reader is said to be unused), and the summary's reader
 * says the system answered.
 */
function selfAnswerPlan(
  cfg: RunConfig,
  benchmark: Benchmark,
  session: ProviderSession,
  base: Pick<StagePlan, 'concurrency' | 'spentUsd' | 'close'>,
  system: string,
  model: string,
): StagePlan {
  // Said in the manifest's and summary's `skipped`, and printed: no reader read the evidence.
  const skipped = [
    `no reader: ${system}'s own agent (LLM ${model}) answered each question, as its vendor's protocol has it; its answers were judged${
      cfg.reader.model !== null ? ` (--reader ${cfg.reader.model} was not used)` : ''
    }${(cfg.epochs ?? 1) > 1 ? '; --epochs does not apply (one answer per question)' : ''}`,
  ];
  const scoring = benchmark.scoring;
  if (!scoring) {
    skipped.push(`${benchmark.name} has no scoring protocol yet: ${system}'s answers were not scored; coverage only`);
    return { ...base, stages: [systemAnswerStage(system)], skipped };
  }
  const { stage: scoreStage, judgeInfo } = scoringStage(cfg, benchmark, scoring, session, skipped);
  return {
    ...base,
    stages: [systemAnswerStage(system), metricsStage(scoring), scoreStage],
    skipped,
    concurrency: Math.max(base.concurrency, session.transport.concurrency.chat),
    report: () => ({
      reader: { model: null, answered_by: `${system}'s own agent`, agent_model: model },
      judge: judgeInfo,
      ...session.report(),
    }),
  };
}

/** The note of a predict-only run (`--judge none`): in the manifest's `skipped` and printed at the end. */
export const NO_JUDGE_NOTE =
  'no judge (--judge none): answers were written without verdicts and items are not scored; `rawrag judge --rejudge DIR` scores them';

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
  if (cfg.judge.model === NO_MODEL) {
    // Predict-only: answers (and offline metrics) are written, no verdict and no score.
    skipped.push(NO_JUDGE_NOTE);
    return { stage: { name: 'judge', run: async () => undefined }, judgeInfo: { model: null, runs: 0, predict_only: true } };
  }
  if (!scoring.judge) {
    skipped.push(`${benchmark.name} has no LLM judge: items are scored by ${scoring.fallbackMetric ?? 'nothing'}`);
    return { stage: fallbackScoreStage(scoring.fallbackMetric), judgeInfo: { model: null, runs: 0 } };
  }
  const judge = chatModel(session, 'judge', judgeModelFor(cfg.judge.model, benchmark.defaultJudgeModel));
  // --judge-prompt FILE: another prompt for the same judge protocol (parse, JSON mode, runs).
  const protocol = judgeProtocolFor(scoring.judge, cfg.judge.prompt ?? null, cfg.benchmark);
  return {
    // Questions that carry a second gold version are also judged under it (summary: the score under both golds).
    stage: { ...withOtherGold(judgeStage(judge, protocol, cfg.judge.runs, scoring.fallbackMetric), scoring.metrics), phases: ['judge'] },
    judgeInfo: {
      model: judge.entry.name,
      protocol: protocol.id,
      source: protocol.source,
      runs: cfg.judge.runs,
      temperature: cfg.judge.temperature,
    },
  };
}
