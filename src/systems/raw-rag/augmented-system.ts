/**
 * A RAW-RAG variant with an LLM step at ingest as a system descriptor: the config section's common
 * part (extractor, batch, maxTokens), creation (retriever + the checked ingest model), the dry-run
 * estimate (RAW-RAG's own calls, plus the ingest LLM's calls for the whole benchmark, identical
 * requests counted once as the cache would answer them) and the summary lines, so each variant's
 * folder holds only its prompt, its reply schema and what it makes of the replies.
 */
import { z } from 'zod';
import type { RunConfig } from '../../config/schema.js';
import type { EstimateInput, SweepKnob, SystemDescriptor, SystemEstimate, SystemOption, SystemPaperRow } from '../../core/system.js';
import { MESSAGE_OVERHEAD, batchLimits, batchesOf, instructionTokens, limitsNote, type BatchLimits } from '../../ingest/batches.js';
import { promptFile } from '../../scoring/prompts.js';
import { IngestLlm, segmentMessages } from '../../ingest/llm-step.js';
import type { ModelEntry } from '../../providers/models.js';
import type { ProviderSession } from '../../providers/session.js';
import { costOf } from '../../providers/usage.js';
import { createRetriever } from '../../retrieval/retrievers.js';
import { countTokens } from '../../retrieval/tokenizer.js';
import { positiveInt } from '../../util/flags.js';
import { sha256Hex } from '../../util/fsx.js';
import { augmentedSource, type Augmentation } from './augmented.js';
import { estimateRawRag } from './estimate.js';

/** The ingest part every variant's section has. */
export const ingestSettingsShape = {
  /** The ingest LLM; null = the reader's model. */
  extractor: z.string().nullable().default(null),
  /** One call per session, or per that many turns. */
  batch: z.union([z.literal('session'), z.number().int().positive()]).default('session'),
  /** Completion budget of one reply. */
  maxTokens: z.number().int().positive().default(2048),
};

function batchRule(value: string): 'session' | number {
  return value.trim() === 'session' ? 'session' : positiveInt(value);
}

/** The `--<prefix>-extractor` and `--<prefix>-batch` flags of a variant. */
export function ingestOptions(prefix: string, section: string): SystemOption[] {
  return [
    { flags: `--${prefix}-extractor <model>`, description: 'the ingest LLM (default: the reader model)', config: [section, 'extractor'] },
    {
      flags: `--${prefix}-batch <rule>`,
      description: "ingest LLM calls per 'session' or per a number of turns (default session)",
      parse: batchRule,
      config: [section, 'batch'],
    },
  ];
}

export interface AugmentedSystemSpec<T> {
  name: string;
  description: string;
  augmentation: Augmentation<T>;
  schema: z.ZodType;
  options?: SystemOption[];
  sweep?: SweepKnob[];
  paperRows?: readonly SystemPaperRow[];
  /** Assumed reply tokens per turn read (the dry run states it). */
  outputPerTurn: number;
  /** Units the variant adds to the index per batch, assumed for the embedding estimate. */
  unitsPerTurn: number;
}

/** How much one ingest request of the variant may hold in its model's context and reply budget. */
function stepLimits<T>(spec: AugmentedSystemSpec<T>, model: { contextWindow?: number } | null, replyBudget: number): BatchLimits {
  return batchLimits(model, {
    replyBudget,
    outputPerTurn: spec.outputPerTurn,
    instructionTokens: instructionTokens(promptFile(spec.augmentation.step.prompt)),
  });
}

export function augmentedSystem<T>(spec: AugmentedSystemSpec<T>): SystemDescriptor<ProviderSession, ModelEntry> {
  const aug = spec.augmentation;
  return {
    name: spec.name,
    description: spec.description,
    config: { key: aug.section, schema: spec.schema },
    options: spec.options,
    sweep: spec.sweep,
    paperRows: spec.paperRows,
    async create(cfg, session, opts) {
      const settings = aug.settings(cfg);
      const llm = new IngestLlm(session, settings.extractor ?? cfg.reader.model, { system: spec.name, flag: aug.modelFlag });
      const limits = stepLimits(spec, llm.entry, settings.maxTokens);
      return augmentedSource(aug, cfg, await createRetriever(cfg, session), llm, opts.runDir, limits);
    },
    estimate: (input) => estimateAugmented(spec, input),
    summaryLines: ingestLlmLines,
  };
}

function estimateAugmented<T>(spec: AugmentedSystemSpec<T>, input: EstimateInput<ProviderSession, ModelEntry>): SystemEstimate<ModelEntry> {
  const base = estimateRawRag(input);
  const aug = spec.augmentation;
  const { cfg, groups, session } = input;
  const settings = aug.settings(cfg);
  const model = settings.extractor ?? cfg.reader.model;
  const limits = stepLimits(spec, model === null ? null : session.model(model, 'reader'), settings.maxTokens);
  const seen = new Set<string>();
  let batches = 0;
  let prompt = 0;
  let completion = 0;
  let turnsRead = 0;
  let maxPrompt = 0;
  let oversized = 0;
  const cutSessions = new Set<string>();
  let cut = 0;
  for (const { ep } of groups) {
    for (const b of batchesOf(ep.episode.turns, ep.visibleTurns, settings.batch, limits)) {
      batches++;
      const messages = segmentMessages(aug.step.prompt, ep.episode.turns, b);
      const key = sha256Hex(messages.map((m) => m.content).join('\u0000'));
      if (seen.has(key)) continue;
      seen.add(key);
      const tokens = messages.reduce((s, m) => s + countTokens(m.content) + MESSAGE_OVERHEAD, 0);
      prompt += tokens;
      maxPrompt = Math.max(maxPrompt, tokens);
      completion += Math.min(settings.maxTokens, spec.outputPerTurn * (b.last - b.first + 1));
      turnsRead += b.last - b.first + 1;
      if (b.cut) {
        cut++;
        cutSessions.add(`${ep.episode.id}\u0000${ep.episode.turns[b.first]!.session}`);
      }
      if (b.oversized) oversized++;
    }
  }
  const notes = [
    ...limitsNote(`${spec.name}: ingest`, model, limits, { cut, sessionsCut: cutSessions.size, maxPrompt, oversized }),
    `${spec.name}: ingest replies assumed ${spec.outputPerTurn} tokens per turn read (capped at ${settings.maxTokens} per call); the embedding of about ${Math.round(turnsRead * spec.unitsPerTurn)} derived units is not counted`,
  ];
  let cost: number | null = null;
  if (model === null) notes.push(`${spec.name}: no ingest model: give ${aug.modelFlag} MODEL (or --reader MODEL)`);
  else {
    const entry = session.model(model, 'reader');
    cost = costOf({ prompt_tokens: prompt, completion_tokens: completion, search_units: 0 }, entry.prices);
    if (cost === null) notes.push(`no price for '${model}' in the model registry: ingest cost unknown`);
    const a = session.availability(entry, 'reader');
    if (!a.ok) notes.push(`${a.reason.replace('reader model', 'ingest model')}: a real run would stop before writing anything`);
  }
  const costText = cost === null ? 'unknown' : `$${cost.toFixed(cost < 1 ? 4 : 2)}`;
  const line =
    `${spec.name} ingest (${aug.step.name}, ${model ?? 'no model'}): ${seen.size} calls (${batches} batches, ${batches - seen.size} answered by the cache), ` +
    `${prompt.toLocaleString('en-US')} prompt + ~${completion.toLocaleString('en-US')} completion tokens, ${costText} (RAW-RAG: no LLM at ingest)`;
  return {
    ...base,
    ingest: {
      cost_usd: cost,
      lines: [line, ...notes.map((n) => `note: ${n}`)],
      data: { ingest_llm: { model, calls: seen.size, batches, input_tokens: prompt, output_tokens: completion, cost_usd: cost } },
    },
  };
}

interface IngestFigures {
  calls: number;
  cache_hits: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
  ms: number;
}

/** The run summary's ingest line: the LLM work that built the index, beside RAW-RAG's (none). */
export function ingestLlmLines(summary: Record<string, unknown>): string[] {
  const m = summary.ingest_llm as
    | {
        system: string;
        step: string;
        model: string;
        structured_outputs: boolean;
        store: string;
        whole_index: IngestFigures | null;
        units?: Record<string, number>;
      }
    | undefined;
  if (!m) return [];
  const w = m.whole_index ?? { calls: 0, cache_hits: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, ms: 0 };
  const cost = w.cost_usd === null ? 'cost unknown' : `$${w.cost_usd.toFixed(4)}`;
  const units = m.units
    ? `; ${Object.entries(m.units)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}`
    : '';
  return [
    '',
    `Ingest LLM (${m.step}, ${m.model}, ${m.structured_outputs ? 'structured outputs' : 'plain JSON'}; whole index): ${w.calls} calls, ` +
      `${w.prompt_tokens + w.completion_tokens} tokens (${w.prompt_tokens} prompt + ${w.completion_tokens} completion), ${cost}, ${(w.ms / 1000).toFixed(1)} s of calls${units}`,
    `RAW-RAG ingest: 0 LLM calls, 0 tokens, $0 (embedding only)`,
    `ingest store: ${m.store}`,
  ];
}

/** The settings of a variant's section (absent = its defaults). */
export function sectionOf<S>(cfg: RunConfig, key: string, schema: z.ZodType<S>): S {
  return schema.parse((cfg as Record<string, unknown>)[key] ?? {});
}
