/**
 * `rawrag run --dry-run`: how many calls each role would make and what they would cost, from the
 * data and the registry prices alone. Nothing is sent, no run directory is written, the cache is
 * not opened. Token counts are cl100k; evidence size and reply lengths are estimates (stated).
 */
import { readerProtocolFor } from '../reader-judge/reader-override.js';
import type { RunConfig } from '../config/schema.js';
import { countTokens } from '../retrieval/tokenizer.js';
import { effectivePolicy, groupByIndex, loadRunInputs } from './plan.js';
import { ingestYielding } from '../retrieval/chunk.js';
import type { IngestedEpisode } from '../core/ingested-episode.js';
import { markdownTable } from '../util/table.js';
import type { ModelEntry } from '../providers/models.js';
import { ProviderSession } from '../providers/session.js';
import type { TransportOptions } from '../providers/transport.js';
import { addCost, costOf, type Role } from '../providers/usage.js';
import { batchCosts } from '../providers/batch/estimate.js';
import { judgeModelFor, readerMaxTokens } from '../core/protocol.js';
import { goldVersionOf } from '../scoring/gold-version.js';
import { systemOf } from '../systems/registry.js';
import { NO_MODEL } from '../config/load.js';
import type { Phase } from '../core/phases.js';
import { phaseTotals } from './phases.js';

/** Assumed reply lengths (tokens): a short answer, a one-sentence judgement with its JSON label. */
export const EST_READER_OUTPUT = 30;
export const EST_JUDGE_OUTPUT = 40;

export interface RoleEstimate {
  role: Role;
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  search_units: number;
  cost_usd: number | null;
}

export interface RunEstimate {
  questions: number;
  roles: RoleEstimate[];
  cost_usd: number | null;
  notes: string[];
  /** What a real run would lack (a key, an endpoint), one reason per model; empty when everything can run here. */
  missing: string[];
  /** Every model the run would call, by role (what the pre-flight checks: src/preflight/). */
  models: Array<{ role: Role; entry: ModelEntry }>;
  /** The system's paid LLM work at ingest (extraction, summaries), when it has any: rendered as its own section. */
  ingest?: { cost_usd: number | null; lines: string[]; data: Record<string, unknown> };
  /** Each phase's total as the run will plan it (src/pipeline/phases.ts phaseTotals): what a grid's progress shows before a cell starts. */
  phases: Partial<Record<Phase, number>>;
}

export async function estimateRun(
  cfg: RunConfig,
  transport: Partial<TransportOptions> = {},
  opts: { skip?: ReadonlySet<string> } = {},
): Promise<RunEstimate> {
  const inputs = await loadRunInputs(cfg);
  const { benchmark, dataset } = inputs;
  // A resumed run's estimate (--max-cost): only the questions its directory does not hold yet.
  const questions = opts.skip ? inputs.questions.filter((q) => !opts.skip!.has(q.id)) : inputs.questions;
  const session = new ProviderSession({ ...transport, noCache: true });
  const notes: string[] = [];
  const missing: string[] = [];
  const roles: RoleEstimate[] = [];
  const models: RunEstimate['models'] = [];
  const add = (role: Role, m: ModelEntry, calls: number, input: number, output: number, searchUnits = 0) => {
    roles.push({
      role,
      model: m.name,
      calls,
      input_tokens: input,
      output_tokens: output,
      search_units: searchUnits,
      cost_usd: costOf({ prompt_tokens: input, completion_tokens: output, search_units: searchUnits }, m.prices),
    });
  };
  const check = (m: ModelEntry, role: Role) => {
    if (!models.some((x) => x.role === role && x.entry.name === m.name)) models.push({ role, entry: m });
    const a = session.availability(m, role);
    if (!a.ok) {
      const retrieval = role === 'embed' || role === 'rerank';
      const fallback = retrieval && transport.fallback === 'local';
      const then = !retrieval
        ? 'stop'
        : fallback
          ? 'fall back to the local retriever (--fallback local)'
          : 'stop (--fallback local: the local retriever instead)';
      notes.push(`${a.reason}: a real run would ${then}`);
      if (!missing.includes(a.reason)) missing.push(a.reason);
    }
  };

  // The system's own calls (embedding, reranking, ingest LLM work) and the evidence it would show.
  // Tokenizing every history takes seconds (the pre-flight of a grid, before its first cell): a
  // turn of the event loop every ~50 ms lets a Ctrl-C through meanwhile (issue 42, item 7).
  const groups: Array<{ ep: IngestedEpisode; policy: ReturnType<typeof effectivePolicy>; questions: typeof questions }> = [];
  for (const group of groupByIndex(questions)) {
    const episode = dataset.episodes.find((e) => e.id === group.episode);
    if (!episode) continue;
    const policy = effectivePolicy(benchmark, cfg, episode);
    const ep = await ingestYielding(episode, group.visibleTurns ?? episode.turns.length, policy, cfg.chunking, () => false);
    if (ep === null) continue; // never here: only a `stop()` saying so gives null
    groups.push({ ep, policy, questions: group.questions });
  }
  const own = systemOf(cfg).estimate({ cfg, benchmark, dataset, questions, groups, session, check });
  for (const r of own.rows) add(r.role, r.model, r.calls, r.input_tokens, r.output_tokens, r.search_units ?? 0);
  notes.push(...(own.notes ?? []));
  const evidenceTokens = own.evidenceTokens;

  const scoring = benchmark.scoring;
  const addReader = (model: string, epochs: number) => {
    const reader = session.model(model, 'reader');
    check(reader, 'reader');
    let input = 0;
    let output = 0;
    const readerProtocol = readerProtocolFor(cfg, scoring!);
    for (const q of questions) {
      output += Math.min(EST_READER_OUTPUT, readerMaxTokens(cfg.reader.maxTokens, readerProtocol, q) ?? Infinity);
      const template = readerProtocol.render(q, { blocks: [] }).reduce((s, m) => s + countTokens(m.content), 0);
      input += template + (evidenceTokens.get(q.id) ?? 0);
    }
    add('reader', reader, questions.length * epochs, input * epochs, output * epochs);
  };
  // A system that answers itself (its own agent) sends no reader call: its answers are judged.
  const selfAnswer = own.answersItself ?? null;
  // The items pass the judge phase when an LLM judge scores them (the run's stages: src/pipeline/stages.ts).
  let judgePhase = false;
  if (cfg.reader.model === null && !selfAnswer) notes.push('no reader configured (--reader MODEL): retrieval and coverage only');
  else if (!scoring) notes.push(`${benchmark.name} has no scoring protocol yet: no reader or judge calls`);
  else {
    // --epochs N: every question answered N times (and each answer judged: an upper bound, since an
    // answer repeated word for word reuses its verdicts from the cache).
    const epochs = selfAnswer ? 1 : (cfg.epochs ?? 1);
    if (selfAnswer) notes.push(selfAnswer);
    else addReader(cfg.reader.model!, epochs);
    if (epochs > 1) notes.push(`${epochs} epochs: reader and judge calls are ${epochs}x (the judge's fewer when answers repeat)`);
    if (cfg.judge.model === NO_MODEL) notes.push('no judge (--judge none): answers only, no judge calls');
    else if (scoring.judge) {
      const judge = session.model(judgeModelFor(cfg.judge.model, benchmark.defaultJudgeModel), 'judge');
      check(judge, 'judge');
      let jIn = 0;
      let judged = 0;
      for (const q of questions) {
        // The answer is not known yet: the gold stands in for it (same order of length).
        const msgs = scoring.judge.render(q, q.gold);
        if (msgs === null) continue;
        // A question with a second gold version is judged under both (its score under the other gold).
        const requests = (scoring.judge.requestsPerRun?.(q) ?? 1) * (goldVersionOf(q)?.other ? 2 : 1);
        judged += requests;
        jIn += requests * msgs.reduce((s, m) => s + countTokens(m.content), 0);
      }
      const runs = cfg.judge.runs * epochs;
      add('judge', judge, judged * runs, jIn * runs, judged * runs * EST_JUDGE_OUTPUT);
      judgePhase = true;
    }
  }
  for (const r of roles)
    if (r.cost_usd === null) notes.push(`no price for ${r.role} model '${r.model}' in the registry: its cost is unknown`);
  const ingest = own.ingest;
  const cost = roles.reduce<number | null>((s, r) => addCost(s, r.cost_usd), ingest ? ingest.cost_usd : 0);
  const turns = new Map(dataset.episodes.map((e) => [e.id, e.turns.length]));
  const phases = phaseTotals(groupByIndex(questions), (id) => turns.get(id), judgePhase ? ['answer', 'judge'] : ['answer']);
  return { questions: questions.length, roles, cost_usd: cost, notes, missing, models, ...(ingest ? { ingest } : {}), phases };
}

export function renderEstimate(cfg: RunConfig, e: RunEstimate, batch?: ReturnType<typeof batchCosts>): string {
  const usd = (x: number | null) => (x === null ? 'unknown' : `$${x.toFixed(x < 1 ? 4 : 2)}`);
  const rows = e.roles.map((r, i) => [
    r.role,
    r.model,
    r.calls,
    r.input_tokens,
    r.output_tokens,
    r.search_units || '',
    usd(r.cost_usd),
    ...(batch ? [usd(batch.perRole[i]!)] : []),
  ]);
  const lines = [
    `dry run: ${cfg.benchmark}, retriever ${cfg.retrieval.retriever}, reader ${cfg.reader.model ?? 'none'} — ${e.questions} questions`,
    '',
    rows.length
      ? markdownTable(
          ['role', 'model', 'calls', 'input tokens', 'output tokens', 'search units', 'est. cost', ...(batch ? ['est. cost --batch'] : [])],
          rows,
        )
      : 'no provider calls (everything runs locally)',
    '',
    ...(e.ingest ? [...e.ingest.lines, ''] : []),
    `estimated total: ${usd(e.cost_usd)}${batch ? `; with --batch ${usd(batch.total)} (reader and judge at batch prices)` : ''} (before cache hits; evidence and reply lengths are estimates)`,
    ...(batch?.notes ?? []).map((n) => `NOTE: ${n}`),
    ...e.notes.map((n) => `NOTE: ${n}`),
    'nothing was sent and no run directory was written',
  ];
  return lines.join('\n');
}

export async function dryRun(
  cfg: RunConfig,
  transport: Partial<TransportOptions>,
  opts: { batch?: boolean; capLine?: (estimateUsd: number | null) => string } = {},
): Promise<string> {
  const e = await estimateRun(cfg, transport);
  if (!opts.batch) return renderEstimate(cfg, e) + (opts.capLine ? `\n${opts.capLine(e.cost_usd)}` : '');
  const session = new ProviderSession({ ...transport, noCache: true });
  return renderEstimate(
    cfg,
    e,
    batchCosts(e.roles, (name, role) => session.model(name, role)),
  );
}
