/**
 * A RAW-RAG variant with an LLM step at ingest as a system descriptor: the config section's common
 * part (extractor, batch, maxTokens), creation (retriever + the checked ingest model), the dry-run
 * estimate (RAW-RAG's own calls, plus the ingest LLM's calls for the whole benchmark, identical
 * requests counted once as the cache would answer them) and the summary lines, so each variant's
 * folder holds only its prompt, its reply schema and what it makes of the replies.
 */
import { z } from 'zod';
import type { RunConfig } from '../../config/schema.js';
import type { EstimateInput, SweepKnob, SystemDescriptor, SystemEstimate, SystemPaperRow } from '../../core/system.js';
import { batchLimits, instructionTokens, type BatchLimits } from '../../ingest-llm/batches.js';
import { estimateBatches, ingestCost, limitsNote } from '../../ingest-llm/estimate.js';
import { promptFile } from '../../scoring/prompts.js';
import { IngestLlm, segmentMessages } from '../../ingest-llm/llm-step.js';
import type { ModelEntry } from '../../providers/models.js';
import type { ProviderSession } from '../../providers/session.js';
import { createRetriever } from '../../retrieval/retrievers.js';
import { augmentedSource, type Augmentation } from './augmented.js';
import { estimateRawRag } from './estimate.js';

/** The ingest part every variant's section has. */
export const ingestSettingsShape = {
  extractor: z.string().nullable().default(null).describe('the ingest LLM (default: the reader model)'),
  batch: z
    .union([z.literal('session'), z.number().int().positive()])
    .default('session')
    .describe("ingest LLM calls per 'session' or per a number of turns"),
  maxTokens: z.number().int().positive().default(2048).describe('completion budget of one ingest reply'),
};

export interface AugmentedSystemSpec<T> {
  name: string;
  description: string;
  augmentation: Augmentation<T>;
  schema: z.ZodType;
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
    about: { kind: 'method' },
    config: { key: aug.section, schema: spec.schema },
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
  const e = estimateBatches(
    groups.map(({ ep }) => ({ episodeId: ep.episode.id, turns: ep.episode.turns, visible: ep.visibleTurns })),
    settings.batch,
    limits,
    (turns, b) => segmentMessages(aug.step.prompt, turns, b),
  );
  const notes = [
    ...limitsNote(`${spec.name}: ingest`, model, limits, e),
    `${spec.name}: ingest replies assumed ${spec.outputPerTurn} tokens per turn read (capped at ${settings.maxTokens} per call); the embedding of about ${Math.round(e.turnsRead * spec.unitsPerTurn)} derived units is not counted`,
  ];
  const priced = ingestCost(e, model, session, {
    step: 'ingest',
    modelWord: 'ingest model',
    missingModel: `${spec.name}: no ingest model: give ${aug.modelFlag} MODEL (or --reader MODEL)`,
  });
  const cost = priced.cost;
  notes.push(...priced.notes);
  const costText = cost === null ? 'unknown' : `$${cost.toFixed(cost < 1 ? 4 : 2)}`;
  const line =
    `${spec.name} ingest (${aug.step.name}, ${model ?? 'no model'}): ${e.calls} calls (${e.batches} batches, ${e.batches - e.calls} answered by the cache), ` +
    `${e.promptTokens.toLocaleString('en-US')} prompt + ~${e.completionTokens.toLocaleString('en-US')} completion tokens, ${costText} (RAW-RAG: no LLM at ingest)`;
  return {
    ...base,
    ingest: {
      cost_usd: cost,
      lines: [line, ...notes.map((n) => `note: ${n}`)],
      data: {
        ingest_llm: {
          model,
          calls: e.calls,
          batches: e.batches,
          input_tokens: e.promptTokens,
          output_tokens: e.completionTokens,
          cost_usd: cost,
        },
      },
    },
  };
}

interface CallGroup {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
}

interface IngestFigures extends CallGroup {
  cache_hits: number;
  /** Absent in runs written before they were split. */
  sent?: CallGroup;
  cached?: CallGroup;
  ms: number;
}

/**
 * The run summary's ingest lines: the LLM work that built the index, beside RAW-RAG's (none). Tokens
 * and dollars come from the same calls, sent and cache-answered apart; time is the wall time this
 * process spent building indexes, and the summed call latency is named as such.
 */
export function ingestLlmLines(summary: Record<string, unknown>): string[] {
  const m = summary.ingest_llm as
    | {
        system: string;
        step: string;
        model: string;
        structured_outputs: boolean;
        store: string;
        whole_index: IngestFigures | null;
        this_run?: { ingest_wall_ms?: number };
        warnings?: string[];
        units?: Record<string, number>;
      }
    | undefined;
  if (!m) return [];
  const w = m.whole_index ?? { calls: 0, cache_hits: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, ms: 0 };
  const usd = (x: number | null) => (x === null ? 'cost unknown' : `$${x.toFixed(4)}`);
  const tokens = (g: CallGroup) =>
    `${g.prompt_tokens + g.completion_tokens} tokens (${g.prompt_tokens} prompt + ${g.completion_tokens} completion)`;
  const units = m.units
    ? `; ${Object.entries(m.units)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}`
    : '';
  const calls =
    w.sent && w.cached
      ? `${w.sent.calls} calls sent: ${tokens(w.sent)}, ${usd(w.sent.cost_usd)} paid; ${w.cached.calls} answered by the cache: ${tokens(w.cached)}, ${usd(w.cached.cost_usd)} not paid`
      : `${w.calls} calls (${w.cache_hits} answered by the cache): ${tokens(w)}, ${usd(w.cost_usd)}`;
  const wall = m.this_run?.ingest_wall_ms;
  return [
    '',
    `Ingest LLM (${m.step}, ${m.model}, ${m.structured_outputs ? 'structured outputs' : 'plain JSON'}; whole index): ${calls}${units}`,
    `ingest time: ${wall === undefined ? 'not recorded' : `${(wall / 1000).toFixed(1)} s wall time building indexes in this process`}; summed call latency ${(w.ms / 1000).toFixed(1)} s (calls overlap, cache hits included: not a time)`,
    `RAW-RAG ingest: 0 LLM calls, 0 tokens, $0 (embedding only)`,
    ...(m.warnings ?? []).map((x) => `WARNING: ${x}`),
    `ingest store: ${m.store}`,
  ];
}

/** The settings of a variant's section (absent = its defaults). */
export function sectionOf<S>(cfg: RunConfig, key: string, schema: z.ZodType<S>): S {
  return schema.parse((cfg as Record<string, unknown>)[key] ?? {});
}
