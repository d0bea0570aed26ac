/**
 * `rawrag judge`: another system's answers through the same pipeline as `rawrag run`. The answers
 * file is an evidence source (the answers' own evidence turns, when given, for coverage) and an
 * answer stage takes the reader's place; the benchmark's metrics and official judge are the very
 * stages `run` uses, with the same prompts, cache, retries, resume and run directory.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { RunConfig } from '../config/schema.js';
import type { Benchmark } from '../core/benchmark.js';
import type { Question } from '../core/schema.js';
import type { IdList } from '../benchmarks/select.js';
import { coverage } from '../core/coverage.js';
import { scoringStage, type ItemStage, type StagePlan } from './stages.js';
import { metricsStage } from '../reader-judge/judge.js';
import { judgeModelFor } from '../core/protocol.js';
import { judgeProtocolFor } from '../reader-judge/judge-prompt.js';
import { goldVersionOf } from '../scoring/gold-version.js';
import { ProviderSession } from '../providers/session.js';
import type { TransportOptions } from '../providers/transport.js';
import { costOf } from '../providers/usage.js';
import { countTokens } from '../retrieval/tokenizer.js';
import { InputError } from '../util/errors.js';
import { sha256Hex } from '../util/fsx.js';
import { hashOf } from '../util/hash.js';
import { markdownTable } from '../util/table.js';
import type { EvidenceSource } from '../core/evidence-source.js';
import { EST_JUDGE_OUTPUT } from './estimate.js';
import { loadRunInputs } from './plan.js';
import type { RunComposition } from './run.js';

export interface Answer {
  answer: string;
  /** Turn ids the system showed its reader (for coverage); null when not given. */
  evidence: string[] | null;
  line: number;
}

export interface AnswersFile {
  file: string;
  sha256: string;
  byId: Map<string, Answer>;
  /** The ids in file order, with their lines (the question selection). */
  ids: IdList;
}

/** `{id, answer, evidence?}` JSON lines; blank lines are skipped; anything else is an input error naming the line. */
export function readAnswers(file: string): AnswersFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the answers file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
  }
  const byId = new Map<string, Answer>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const place = `line ${i + 1}`;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new InputError(`not valid JSON (${(e as Error).message})`, { file, place });
    }
    const o = v as { id?: unknown; answer?: unknown; evidence?: unknown };
    if (!o || typeof o !== 'object' || Array.isArray(o))
      throw new InputError('each line must be a JSON object {"id", "answer"}', { file, place });
    if (typeof o.id !== 'string' || o.id === '')
      throw new InputError('"id" must be a question id (a string, as items.jsonl names questions)', { file, place });
    if (typeof o.answer !== 'string') throw new InputError(`"answer" of '${o.id}' must be a string`, { file, place });
    if (o.evidence !== undefined && (!Array.isArray(o.evidence) || o.evidence.some((t) => typeof t !== 'string'))) {
      throw new InputError(`"evidence" of '${o.id}' must be a list of turn ids (strings)`, { file, place });
    }
    const first = byId.get(o.id);
    if (first) throw new InputError(`'${o.id}' is answered twice (first on line ${first.line})`, { file, place });
    byId.set(o.id, { answer: o.answer, evidence: (o.evidence as string[] | undefined) ?? null, line: i + 1 });
  });
  if (byId.size === 0) throw new InputError('no answers in the file', { file });
  // Unknown ids are found by the same selection as --ids (an input error listing a few, with lines).
  const ids: IdList = { file, entries: [...byId].map(([id, a]) => ({ id, line: a.line })) };
  return { file, sha256: sha256Hex(text), byId, ids };
}

/** The answers as the pipeline's evidence source: no retrieval; the answer's evidence (if any) is recorded for coverage. */
export function answersSource(answers: AnswersFile, system: string): EvidenceSource {
  return {
    system,
    name: `answers:${basename(answers.file)}@${answers.sha256.slice(0, 12)}`,
    capabilities: { remote: false, llmAtIngest: false, questionRole: null, ranksWindows: false, cheapDeepRanking: false },
    notes: [],
    async open(ep) {
      const index = new Map(ep.episode.turns.map((t, i) => [t.id, i]));
      return {
        async evidenceFor(q, item) {
          const a = answers.byId.get(q.id)!;
          if (a.evidence === null) return { turnIndices: [], turnIds: [], blocks: [], tokens: 0 };
          const unknown = a.evidence.filter((t) => !index.has(t));
          if (unknown.length > 0) {
            throw new Error(
              `${answers.file}: line ${a.line}: evidence turn${unknown.length > 1 ? 's' : ''} ${unknown
                .slice(0, 5)
                .map((t) => `'${t}'`)
                .join(', ')} not in episode ${q.episode}`,
            );
          }
          item.evidence_turns = [...a.evidence];
          item.coverage = coverage(a.evidence, q.evidence);
          return { turnIndices: a.evidence.map((t) => index.get(t)!), turnIds: [...a.evidence], blocks: [], tokens: 0 };
        },
      };
    },
  };
}

/**
 * Takes the reader's place: the given answer as it stands (trimmed). The reader protocol's
 * parseAnswer is not applied: it reads rawrag's own reader's reply (LoCoMo category 5 maps a
 * one-letter reply to one of the two options rawrag showed), and another system never saw those
 * options, so its "Max" is "Max", not an option text.
 */
export function answerStage(answers: AnswersFile): ItemStage {
  return {
    name: 'answer',
    async run(item) {
      const a = answers.byId.get(item.id)!;
      item.answer = externalAnswer(a.answer);
      item.details.answer = { file: answers.file, line: a.line, raw: a.answer };
    },
  };
}

/** An answer given from outside (an answers file, a run's items, a calibration probe): judged as written. */
export const externalAnswer = (raw: string): string => raw.trim();

/** The composition `rawrag judge` hands to executeRun: answers source, answer -> metrics -> judge. */
export function judgeComposition(
  answers: AnswersFile,
  opts: {
    system: string;
    /** The setting asked for, or how to derive it from the data half (re-judging: the source run's, with the new data half). */
    setting: string | undefined | ((data: string) => string);
    runId: string;
    questions?: RunComposition['questions'];
    incompleteBecause?: string | null;
  },
): RunComposition {
  const setting = opts.setting;
  return {
    runId: opts.runId,
    setting: (data) => (typeof setting === 'function' ? setting(data) : judgedSetting(data, setting, opts.system)),
    ...(opts.questions ? { questions: opts.questions } : {}),
    ...(opts.incompleteBecause ? { incompleteBecause: opts.incompleteBecause } : {}),
    source: async () => answersSource(answers, opts.system),
    stages: async (cfg, benchmark, session) => judgeStages(cfg, benchmark, session, answers),
  };
}

/**
 * Default `<data>/<system>`. A setting the user names must start with the data's own part
 * (`longmemeval/variant=oracle/...` for the oracle file), so answers on one data variant are never
 * paired with runs on another.
 */
export function judgedSetting(data: string, given: string | undefined, system: string): string {
  if (given === undefined) return `${data}/${system}`;
  if (!given.startsWith(`${data}/`) || given.length === data.length + 1 || given.slice(data.length + 1).includes('=')) {
    throw new InputError(
      `'${given}' does not name the data these answers were judged on: a setting here is ${data}/<reader or system> (e.g. ${data}/gpt-4o-mini)`,
      { place: '--setting' },
    );
  }
  return given;
}

/** answer -> metrics -> the official judge (or the protocol's metric where a benchmark has no judge), as planStages wires them. */
export async function judgeStages(
  cfg: RunConfig,
  benchmark: Benchmark,
  session: ProviderSession,
  answers: AnswersFile,
): Promise<StagePlan> {
  const scoring = benchmark.scoring;
  if (!scoring)
    throw new InputError(`${benchmark.name} has no scoring protocol: there is nothing to judge answers with`, { place: '--benchmark' });
  const stages: ItemStage[] = [answerStage(answers), metricsStage(scoring)];
  const skipped: string[] = [];
  const { stage: scoreStage, judgeInfo } = scoringStage(cfg, benchmark, scoring, session, skipped);
  stages.push(scoreStage);
  return {
    stages,
    skipped,
    concurrency: session.transport.concurrency.chat,
    report: () => ({
      reader: { model: null, answers: { file: answers.file, sha256: answers.sha256 } },
      judge: judgeInfo,
      ...session.report(),
    }),
    close: async () => session.close(),
  };
}

/** Default run id: which answers, judged how (a different file or judge is another directory). */
export function judgeRunId(cfg: RunConfig, answers: AnswersFile, system: string): string {
  return `judge-${cfg.benchmark}-${system}-${hashOf({ cfg, answers: answers.sha256 }, 10)}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** --dry-run: the judge calls the answers need and their cost, from the real answer texts. Nothing is sent or written. */
export async function estimateJudge(
  cfg: RunConfig,
  answers: AnswersFile,
  transport: Partial<TransportOptions>,
  opts: { questions?: (qs: Question[]) => Question[]; what?: string } = {},
): Promise<string> {
  return (await judgeEstimate(cfg, answers, transport, opts)).text;
}

/** The judge dry run's text and its dollars (null: no price), e.g. for --max-cost. */
export async function judgeEstimate(
  cfg: RunConfig,
  answers: AnswersFile,
  transport: Partial<TransportOptions>,
  opts: { questions?: (qs: Question[]) => Question[]; what?: string } = {},
): Promise<{ text: string; costUsd: number | null }> {
  const { benchmark, questions: selected } = await loadRunInputs(cfg);
  const questions = opts.questions?.(selected) ?? selected;
  const scoring = benchmark.scoring;
  if (!scoring)
    throw new InputError(`${benchmark.name} has no scoring protocol: there is nothing to judge answers with`, { place: '--benchmark' });
  const session = new ProviderSession({ ...transport, noCache: true });
  const notes: string[] = [];
  const rows: Array<Array<string | number>> = [];
  let cost: number | null = 0;
  if (scoring.judge) {
    const protocol = judgeProtocolFor(scoring.judge, cfg.judge.prompt ?? null, cfg.benchmark);
    const judge = session.model(judgeModelFor(cfg.judge.model, benchmark.defaultJudgeModel), 'judge');
    const a = session.availability(judge, 'judge');
    if (!a.ok) notes.push(`${a.reason}: a real run would stop`);
    let calls = 0;
    let input = 0;
    for (const q of questions as Question[]) {
      const msgs = protocol.render(q, externalAnswer(answers.byId.get(q.id)!.answer));
      if (msgs === null) continue;
      const requests = (protocol.requestsPerRun?.(q) ?? 1) * (goldVersionOf(q)?.other ? 2 : 1);
      calls += requests * cfg.judge.runs;
      input += requests * cfg.judge.runs * msgs.reduce((s, m) => s + countTokens(m.content), 0);
    }
    const output = calls * EST_JUDGE_OUTPUT;
    cost = costOf({ prompt_tokens: input, completion_tokens: output, search_units: 0 }, judge.prices);
    if (cost === null) notes.push(`no price for judge model '${judge.name}' in the registry: its cost is unknown`);
    const usd = cost === null ? 'unknown' : `$${cost.toFixed(cost < 1 ? 4 : 2)}`;
    rows.push(['judge', judge.name, calls, input, output, usd]);
  } else notes.push(`${benchmark.name} has no LLM judge: items are scored by ${scoring.fallbackMetric ?? 'nothing'} (no calls)`);
  const usd = cost === null ? 'unknown' : `$${cost.toFixed(cost < 1 ? 4 : 2)}`;
  const text = [
    `dry run: ${opts.what ?? `judge ${answers.file}`} on ${benchmark.name}, judge ${judgeModelFor(cfg.judge.model, benchmark.defaultJudgeModel)} x${cfg.judge.runs} — ${questions.length} answers`,
    '',
    rows.length ? markdownTable(['role', 'model', 'calls', 'input tokens', 'output tokens', 'est. cost'], rows) : 'no provider calls',
    '',
    `estimated total: ${usd} (before cache hits; judge reply lengths are estimates)`,
    ...notes.map((n) => `NOTE: ${n}`),
    'nothing was sent and no run directory was written',
  ].join('\n');
  return { text, costUsd: cost };
}
