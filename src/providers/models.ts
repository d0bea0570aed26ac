/**
 * The model registry (configs/models.yaml): for each model name, the wire protocol, where it is
 * served, which environment variable holds its key, and its prices. Schema-checked on load.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseYaml } from '../util/yaml.js';
import { z } from 'zod';
import { InputError, formatPath } from '../util/errors.js';
import { fromRoot } from '../util/paths.js';

export const PricesSchema = z
  .object({
    /** USD per 1M input (prompt) tokens. */
    input: z.number().nonnegative().optional(),
    /** USD per 1M output (completion) tokens. */
    output: z.number().nonnegative().optional(),
    /** USD per 1,000 searches (Cohere rerank bills search units, not tokens). */
    perThousandSearches: z.number().nonnegative().optional(),
  })
  .strict();
export type Prices = z.infer<typeof PricesSchema>;

/**
 * The batch APIs `--batch` speaks (src/providers/batch/jobs.ts): `openai` (Files upload + /v1/batches,
 * a lost create found by listing batches and reading their metadata), `openai-nolist` (the same
 * calls, on a server whose batches cannot be listed by metadata, e.g. Gemini's OpenAI-compatible
 * layer: a create whose reply was lost stops the run instead of being guessed at), `anthropic`
 * (Message Batches), `together` (Together's Batch API through the together-ai SDK).
 */
export const BATCH_APIS = ['openai', 'openai-nolist', 'anthropic', 'together'] as const;
export const BatchApiSchema = z.enum(BATCH_APIS);
export type BatchApi = z.infer<typeof BatchApiSchema>;

/** Per-batch limits: requests and input-file bytes. */
export const BatchLimitsSchema = z
  .object({
    requests: z.number().int().positive().default(50_000),
    bytes: z
      .number()
      .int()
      .positive()
      .default(200 * 1024 * 1024),
  })
  .strict();

export const ModelEntrySchema = z
  .object({
    kind: z.enum(['chat', 'embed', 'rerank']),
    /**
     * `openai`: OpenAI-compatible chat/embeddings; `anthropic`: Anthropic Messages API (chat);
     * `cohere`: Cohere v2 rerank; `vllm-rerank`: vLLM/Jina /rerank.
     */
    protocol: z.enum(['openai', 'anthropic', 'cohere', 'vllm-rerank']),
    /** Who serves it (part of the cache key: the same model name from two providers is two models). */
    provider: z.string().min(1),
    /** The model id sent on the wire, when it differs from the registry name. */
    apiModel: z.string().min(1).optional(),
    keyEnv: z.string().min(1).nullable().default(null),
    baseUrlEnv: z.string().min(1).nullable().default(null),
    baseUrl: z.string().url().nullable().default(null),
    /** Embedding query format; `{query}` is replaced by the question text. */
    queryTemplate: z.string().includes('{query}').optional(),
    /** Output dimensions (text-embedding-3 `dimensions`); omitted = the model's default. */
    dimensions: z.number().int().positive().optional(),
    maxBatchInputs: z.number().int().positive().max(2048).default(2048),
    maxBatchTokens: z.number().int().positive().default(300_000),
    maxInputTokens: z.number().int().positive().default(8191),
    /** Chat models: the context window in tokens (prompt + reply); absent = unknown (callers that must fit assume a small one). */
    contextWindow: z.number().int().positive().optional(),
    /** Chat models: `response_format: {type: 'json_schema', strict: true}` is honoured (OpenAI structured outputs). */
    structuredOutputs: z.boolean().default(false),
    prices: PricesSchema.default({}),
    /** Prices of replies from the provider's Batch API (OpenAI: half the listed prices); absent = no batch API. */
    batchPrices: PricesSchema.optional(),
    /** Which batch API serves it (default: its provider's, else its protocol's); see BATCH_APIS. */
    batchApi: BatchApiSchema.optional(),
    /** Per-batch limits of that Batch API (default: its provider's, else OpenAI's published limits). */
    batchLimits: BatchLimitsSchema.optional(),
  })
  .strict();
/**
 * A registry entry by name. `unlisted`: the name is not in the registry; the entry was made from
 * its provider's defaults (a `provider/` prefix, a known name prefix, else the OpenAI protocol),
 * so its prices are unknown and the pre-flight checks the name (src/preflight/models.ts).
 */
export type ModelEntry = z.infer<typeof ModelEntrySchema> & { name: string; unlisted?: boolean };

/** The batch API of a model: its own, its provider's, else its protocol's. */
export function batchApiOf(model: Pick<ModelEntry, 'batchApi' | 'protocol'>): BatchApi {
  return model.batchApi ?? (model.protocol === 'anthropic' ? 'anthropic' : 'openai');
}

/** A provider: where its models are served, its key variable, and how its names are recognised. */
export const ProviderSchema = z
  .object({
    protocol: z.enum(['openai', 'anthropic']),
    keyEnv: z.string().min(1).nullable().default(null),
    baseUrlEnv: z.string().min(1).nullable().default(null),
    baseUrl: z.string().url().nullable().default(null),
    /** Model names with these prefixes are this provider's (`claude-` is Anthropic's) without a `provider/` prefix. */
    namePrefixes: z.array(z.string().min(1)).default([]),
    /** The provider serves more models than the registry can list (OpenRouter, Together): names are not checked against the registry. */
    anyModel: z.boolean().default(false),
    /** Its batch API, when not its protocol's (`openai-nolist`, `together`); see BATCH_APIS. */
    batchApi: BatchApiSchema.optional(),
    /** The per-batch limits of its batch API, for its models that give none. */
    batchLimits: BatchLimitsSchema.optional(),
  })
  .strict();
export type Provider = z.infer<typeof ProviderSchema> & { name: string };

const RegistrySchema = z
  .object({
    providers: z.record(z.string(), ProviderSchema).default({}),
    models: z.record(z.string(), ModelEntrySchema),
    retrievers: z.record(z.string(), z.object({ embed: z.string(), rerank: z.string() }).strict()).default({}),
  })
  .strict();

export interface ModelRegistry {
  file: string;
  providers: Record<string, Provider>;
  models: Record<string, ModelEntry>;
  retrievers: Record<string, { embed: string; rerank: string }>;
}

export const DEFAULT_REGISTRY_FILE = 'configs/models.yaml';

/**
 * The registry: the package's file, then the user's own (`--models FILE` / RAWRAG_MODELS) over it.
 * A model or retriever the user's file names replaces the package's entry of that name whole;
 * retrievers are checked against the merged models.
 */
export function loadRegistry(file: string = fromRoot(DEFAULT_REGISTRY_FILE), overlay?: string | null): ModelRegistry {
  const files = overlay ? [file, resolve(overlay)] : [file];
  const providers: Record<string, Provider> = {};
  const models: Record<string, ModelEntry> = {};
  const retrievers: Record<string, { embed: string; rerank: string }> = {};
  const definedIn: Record<string, string> = {};
  for (const f of files) {
    const layer = readRegistryFile(f, f !== file);
    for (const [name, p] of Object.entries(layer.providers)) providers[name] = { ...p, name };
    for (const [name, m] of Object.entries(layer.models)) models[name] = { ...m, name };
    for (const [r, pair] of Object.entries(layer.retrievers)) {
      retrievers[r] = pair;
      definedIn[r] = f;
    }
  }
  // A model without its own batch API (or limits) has its provider's.
  for (const m of Object.values(models)) {
    const p = providers[m.provider];
    if (m.batchApi === undefined && p?.batchApi) m.batchApi = p.batchApi;
    if (m.batchLimits === undefined && p?.batchLimits) m.batchLimits = p.batchLimits;
  }
  for (const [r, pair] of Object.entries(retrievers)) {
    for (const role of ['embed', 'rerank'] as const) {
      const m = models[pair[role]];
      if (!m || m.kind !== role) {
        throw new InputError(
          `retriever '${r}' names ${role} model '${pair[role]}', which is not a ${role} model in ${files.length > 1 ? 'the merged registry' : 'this file'}`,
          { file: definedIn[r], place: `retrievers.${r}.${role}` },
        );
      }
    }
  }
  return { file: files.join(' + '), providers, models, retrievers };
}

/** One registry file, schema-checked; a user's file may hold only `models` or only `retrievers`. */
function readRegistryFile(file: string, partial: boolean): z.infer<typeof RegistrySchema> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read model registry (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new InputError(`invalid YAML (${(e as Error).message.split('\n')[0]})`, { file });
  }
  if (partial && raw && typeof raw === 'object' && !('models' in raw)) raw = { ...raw, models: {} };
  const parsed = RegistrySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // An unknown key is named itself (as a config file's is), not "(top level): Unrecognized key".
    if (issue.code === 'unrecognized_keys')
      throw new InputError(`unknown key '${issue.keys[0]}'`, { file, place: formatPath([...issue.path, issue.keys[0]!]) });
    throw new InputError(issue.message, { file, place: formatPath(issue.path) });
  }
  return parsed.data;
}

/**
 * The entry for a model name. A registry name is itself. Other chat names are made from their
 * provider's defaults, marked `unlisted` (unknown prices): `provider/model` when `provider` is a
 * known provider (`anthropic/claude-x`; an id like `Qwen/Qwen3-4B` is not split), else a known name
 * prefix (`claude-`, `gemini-`, `deepseek-`), else an OpenAI-compatible model at OPENAI_BASE_URL
 * or the base URL given.
 */
export function resolveModel(reg: ModelRegistry, name: string, kind: ModelEntry['kind']): ModelEntry {
  const m = reg.models[name];
  if (m) {
    if (m.kind !== kind)
      throw new InputError(`model '${name}' is a ${m.kind} model, not a ${kind} model`, { file: reg.file, place: `models.${name}` });
    return m;
  }
  if (kind !== 'chat') {
    throw new InputError(`unknown ${kind} model '${name}' (add it to the model registry)`, { file: reg.file, place: 'models' });
  }
  const split = splitProvider(reg, name);
  if (split) {
    // `anthropic/claude-haiku-4-5` is the registry's `claude-haiku-4-5` when that is Anthropic's.
    const listed = reg.models[split.model];
    // The wire name is the registry's (`claude-haiku-4-5`), never the prefixed one.
    if (listed && listed.kind === 'chat' && listed.provider === split.provider.name)
      return { ...listed, name, apiModel: listed.apiModel ?? split.model };
    return fromProvider(split.provider, name, split.model);
  }
  const byPrefix = Object.values(reg.providers).find((p) => p.namePrefixes.some((pre) => name.startsWith(pre)));
  if (byPrefix) return fromProvider(byPrefix, name, name);
  const openai = reg.providers.openai;
  if (openai) return { ...fromProvider(openai, name, name), provider: 'openai-compatible' };
  const entry = ModelEntrySchema.parse({
    kind: 'chat',
    protocol: 'openai',
    provider: 'openai-compatible',
    keyEnv: 'OPENAI_API_KEY',
    baseUrlEnv: 'OPENAI_BASE_URL',
    baseUrl: 'https://api.openai.com/v1',
  });
  return { ...entry, name, unlisted: true };
}

/** `provider/model` when the part before the first `/` names a known provider; null otherwise. */
export function splitProvider(reg: ModelRegistry, name: string): { provider: Provider; model: string } | null {
  const slash = name.indexOf('/');
  if (slash <= 0 || slash === name.length - 1) return null;
  const provider = reg.providers[name.slice(0, slash)];
  return provider ? { provider, model: name.slice(slash + 1) } : null;
}

/** A chat entry for a name the registry does not list, from its provider's defaults. */
function fromProvider(p: Provider, name: string, wire: string): ModelEntry {
  const entry = ModelEntrySchema.parse({
    kind: 'chat',
    protocol: p.protocol,
    provider: p.name,
    keyEnv: p.keyEnv,
    baseUrlEnv: p.baseUrlEnv,
    baseUrl: p.baseUrl,
    ...(p.batchApi ? { batchApi: p.batchApi } : {}),
    ...(p.batchLimits ? { batchLimits: p.batchLimits } : {}),
    ...(wire !== name ? { apiModel: wire } : {}),
  });
  return { ...entry, name, unlisted: true };
}

/** OpenAI's published per-batch limits: 50,000 requests and a 200 MB input file. */
export const DEFAULT_BATCH_LIMITS = { requests: 50_000, bytes: 200 * 1024 * 1024 };

/** What `model` charges for `batch` replies (undefined: unknown, so costs print as unknown). */
export function pricesFor(model: ModelEntry, batch: boolean): Prices | undefined {
  return batch ? model.batchPrices : model.prices;
}
