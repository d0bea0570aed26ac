/** Shared flag parsers and the mapping from run flags to config keys. */
import { CREDENTIALS_IN_URL, hasUrlCredentials, urlCredentialsIn } from '../util/url-credentials.js';
import { InvalidArgumentError, type Command } from 'commander';
import { integer, limitOrRange, nonNegativeInteger, positiveInt, positiveNumber, unitInterval } from '../util/flags.js';
export { integer, nonNegativeInteger, positiveInt, positiveNumber, unitInterval };
import { mergeLayers, readConfigFile, resolveConfig, type PartialConfig } from '../config/load.js';
import type { RunConfig } from '../config/schema.js';
import { DEFAULT_SYSTEM, getSystem, listSystems, RunConfigSchema } from '../systems/registry.js';
import { collectSystemOption, declaredOptions, optionKeyAt, systemOptionLayer, type SystemOptionLayer } from './system-options.js';
import { InputError, UsageError, formatPath } from '../util/errors.js';
import { RETRIEVER_NAMES } from '../retrieval/retrievers.js';
import { listBenchmarks } from '../benchmarks/registry.js';
import { benchmarkOptionLayer, collectBenchmarkOption } from './benchmark-options.js';
import { defaultTransport, type TransportOptions } from '../providers/transport.js';
import { CACHE_SCOPES, type CacheScope } from '../providers/provenance.js';
import { judgeModelFor } from '../core/protocol.js';
import { readReaderTemplate } from '../reader-judge/reader-override.js';
import { resolve } from 'node:path';

/** The RAW-RAG method flags shared by `run` and `ablate`. */
export function addMethodOptions(cmd: Command): Command {
  cmd.optionsGroup('Input:');
  cmd
    .option(
      '-c, --config <file>',
      'config file (JSON or YAML); flags override it. Several (a.yaml,b.yaml or repeated) or a folder: a grid, one run per file',
      (value: string, previous?: string) => (previous ? `${previous},${value}` : value),
    )
    .option(
      '--system <name>',
      `system under test (default raw-rag): ${listSystems()
        .map((s) => s.name)
        .join(' | ')}; 'rawrag systems' describes each`,
    )
    .option('--data <path>', "data file or folder in the benchmark's official format (default: the bundled copy)");
  addSystemOptionFlag(cmd);
  addBenchmarkOptionFlag(cmd);
  cmd.optionsGroup('RAW-RAG method:');
  cmd
    .option(
      '--retriever <name>',
      'local (embedded, no keys: BM25 + GloVe soft-match rerank; default) | local-dense (+ a bundled sentence encoder) | openai (text-embedding-3-small + Cohere rerank-v3.5) | qwen3 (Qwen3 embedding + reranker endpoints) | full-context (no retrieval); docs/retrievers.md',
    )
    .option('--candidates <n>', 'first-stage candidates (default 128)', positiveInt)
    .option('--k <n>', 'evidence windows kept after reranking (default 15)', positiveInt)
    .option('--no-rerank', 'skip the second stage: keep the first-stage order')
    .option('--window <n>', 'window size in cl100k tokens (default 256)', positiveInt)
    .option('--stride <n>', 'window stride in tokens (default 224, i.e. 32 overlap)', positiveInt)
    .option('--no-expand', "show the selected windows themselves, not their full turns (default: the benchmark's policy)")
    .option('--order <order>', "evidence order: rank | chronological (default: the benchmark's policy)")
    .option(
      '--max-evidence-tokens <n>',
      'evidence budget in cl100k tokens for every system, packed in rank order (default: no cap; 0 = no cap)',
      nonNegativeInteger,
    )
    .option('--dedup', "show a turn shared by overlapping windows once (default: once per window, the paper's display)")
    .option('--no-dedup', "show a turn shared by overlapping windows once per window (the paper's display, the default)");
  cmd.optionsGroup('Reader and judge:');
  cmd
    .option('--reader <model>', 'reader model (none: retrieval and coverage only, also over a config file that names one)')
    .option(
      '--judge <model>',
      "judge model (default: the benchmark's official judge, else gpt-4o-mini); none: answers without verdicts (rawrag judge --rejudge scores them later)",
    )
    .option('--judge-runs <n>', 'judge runs per answer, averaged (default 3)', positiveInt)
    .option(
      '--epochs <n>',
      "the reader answers each question N times (a cache key per epoch; the protocol's temperature unless --temperature), each answer judged, the item score their mean (default 1)",
      positiveInt,
    );
  cmd.optionsGroup('Questions:');
  cmd
    .option(
      '--limit <n|a-b>',
      'ask only the first N selected questions, or questions A to B (1-based, inclusive: 11-20); the run says which episodes and types they cover',
      limitOrRange,
    )
    .option('--sample <n>', 'ask a random sample of N questions, stratified by question type and episode (--seed)', positiveInt)
    .option(
      '--ids <file|a,b,c>',
      'ask only these questions: a FILE (one id a line, as items.jsonl names them) or ids inline, comma-separated',
    )
    .option('--seed <n>', 'seed for every random choice (default 0)', integer);
  return cmd;
}

/** `-S key=value`: the chosen system's own options (`rawrag systems NAME` lists them). */
export function addSystemOptionFlag(
  cmd: Command,
  description = "an option of the system under test, repeatable (e.g. -S url=http://127.0.0.1:8080 -S top_k=30); 'rawrag systems NAME' lists them",
): Command {
  return cmd.option('-S, --system-option <key=value>', description, collectSystemOption);
}

/** `-B key=value`: the benchmark's own options (`rawrag data options` lists them). */
export function addBenchmarkOptionFlag(
  cmd: Command,
  description = "an option of the benchmark, repeatable (e.g. -B categories=1,2,3,4,5 -B gold=audited); 'rawrag data options' lists them",
): Command {
  return cmd.option('-B, --benchmark-option <key=value>', description, collectBenchmarkOption);
}

/**
 * Reader settings that depart from the benchmark's protocol: recorded as deviations (manifest.json
 * `deviations`, the run's summary, `rawrag protocol`). Shared by run, ablate and protocol.
 */
export function addReaderOptions(cmd: Command): Command {
  cmd.optionsGroup('Reader and judge:');
  return cmd
    .option('--temperature <t>', 'reader temperature, 0-2 (protocol: 0; another value is recorded as a deviation)', temperature)
    .option(
      '--max-tokens <n|none>',
      "reader max_tokens for every question, or 'none' to send none (protocol: the benchmark's official budget; recorded as a deviation)",
      maxTokens,
    )
    .option(
      '--reader-prompt <file>',
      'a reader template in place of the official prompt: {{evidence}} and {{question}} (also {{question_date}}, {{options}}); recorded as a deviation with its sha256',
    );
}

export function temperature(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 2)
    throw new InvalidArgumentError(`'${value}' is not a temperature between 0 and 2.`);
  return n;
}

export function maxTokens(value: string): number | 'none' {
  return value.trim() === 'none' ? 'none' : positiveInt(value);
}

/** Config layers from flags: only options the user actually typed override the file and defaults. */
export function configFromFlags(cmd: Command, benchmark: string | undefined, cell?: GridCell): RunConfig {
  const opts = cmd.opts();
  const given = (key: string) => cmd.getOptionValueSource(key) === 'cli';
  const flags: PartialConfig = benchmark ? { benchmark } : {};
  const set = (path: string[], key: string) => {
    if (!given(key)) return;
    let node = flags;
    for (const p of path.slice(0, -1)) node = (node[p] ??= {}) as PartialConfig;
    node[path[path.length - 1]!] = opts[key];
  };
  set(['data'], 'data');
  set(['system'], 'system');
  set(['retrieval', 'retriever'], 'retriever');
  set(['retrieval', 'candidates'], 'candidates');
  set(['retrieval', 'k'], 'k');
  set(['retrieval', 'rerank'], 'rerank');
  set(['chunking', 'size'], 'window');
  set(['chunking', 'stride'], 'stride');
  set(['assembly', 'expand'], 'expand');
  set(['assembly', 'order'], 'order');
  set(['assembly', 'maxEvidenceTokens'], 'maxEvidenceTokens');
  set(['assembly', 'dedup'], 'dedup');
  set(['reader', 'model'], 'reader');
  set(['judge', 'model'], 'judge');
  set(['judge', 'runs'], 'judgeRuns');
  set(['epochs'], 'epochs');
  set(['reader', 'temperature'], 'temperature');
  set(['reader', 'maxTokens'], 'maxTokens');
  if (given('readerPrompt')) {
    const t = readReaderTemplate(resolve(opts.readerPrompt as string));
    const reader = (flags.reader ??= {}) as PartialConfig;
    reader.promptFile = t.file;
    reader.promptSha256 = t.sha256;
  }
  set(['limit'], 'limit');
  set(['sample'], 'sample');
  set(['ids'], 'ids');
  set(['seed'], 'seed');
  // A window size given without a stride keeps the paper's 32-token overlap.
  if (given('window') && !given('stride')) {
    (flags.chunking as PartialConfig).stride = Math.max(1, (opts.window as number) - 32);
  }
  // A grid's cell: its config file and its reader/system/retriever, as if typed alone (src/cli/run-grid.ts).
  const configPath = cell ? cell.config : ((opts.config as string | undefined) ?? null);
  if (cell) withCell(flags, cell);
  const file = configPath ? readConfigFile(configPath) : {};
  // `-S` options belong to the system the flags or the file name (else the default one); in a grid,
  // each cell takes the options its system declares (src/cli/run-grid.ts checks that each is someone's).
  const systemName = (flags.system ?? file.system ?? DEFAULT_SYSTEM) as string;
  const sOptions = systemOptionLayer(getSystem(systemName), (opts.systemOption as string[] | undefined) ?? [], {
    onlyDeclared: cell !== undefined,
  });
  // `-B` options belong to the benchmark the argument or the file names (else the bundled LoCoMo).
  const benchmarkName = String(flags.benchmark ?? file.benchmark ?? 'locomo').toLowerCase();
  const benchmarkDef = listBenchmarks().find((b) => b.name === benchmarkName);
  const pairs = (opts.benchmarkOption as string[] | undefined) ?? [];
  if (benchmarkDef && pairs.length) {
    const bOptions = benchmarkOptionLayer(benchmarkDef, pairs, { onlyDeclared: cell !== undefined });
    if (Object.keys(bOptions).length) flags.options = bOptions;
  }
  // No benchmark named anywhere: the bundled LoCoMo.
  const merged = mergeLayers({ benchmark: 'locomo' }, file, sOptions.layer, flags);
  // Benchmark names are case-insensitive: `run LoCoMo` is the run `run locomo` makes (same id, hash, directory).
  if (typeof merged.benchmark === 'string') merged.benchmark = merged.benchmark.toLowerCase();
  const cfg = checkedConfig(merged, { flags, file, configFile: configPath, systemOptions: sOptions.paths });
  return withPromptHash(withOfficialJudge(cfg));
}

/** One cell of a grid (`rawrag run a,b --reader x,y ...`): the values of the listed flags it takes; absent = as typed. */
export interface GridCell {
  /** The cell's config file (null: none). */
  config: string | null;
  reader?: string;
  system?: string;
  retriever?: string;
  /** The cell's data path (from `--data NAME=PATH`); null: the benchmark's default (a config file's, if it names one). */
  data?: string | null;
}

function withCell(flags: PartialConfig, cell: GridCell): void {
  const section = (key: string) => (flags[key] ??= {}) as PartialConfig;
  if (cell.reader !== undefined) section('reader').model = cell.reader;
  if (cell.system !== undefined) flags.system = cell.system;
  if (cell.retriever !== undefined) section('retrieval').retriever = cell.retriever;
  if (cell.data === null) delete flags.data;
  else if (cell.data !== undefined) flags.data = cell.data;
}

/** Where each bad value came from: a flag (usage error, exit 1) or a config file key (input error, exit 2). */
interface Layers {
  flags: PartialConfig;
  file: PartialConfig;
  configFile: string | null;
  /** What `-S` set: an error there is blamed on `-S key`. */
  systemOptions?: SystemOptionLayer['paths'];
}

/** The flag that sets each config key (the benchmark comes from the positional argument). */
const FLAG_OF: Record<string, string> = {
  benchmark: 'the benchmark argument',
  data: '--data',
  system: '--system',
  'retrieval.retriever': '--retriever',
  'retrieval.candidates': '--candidates',
  'retrieval.k': '--k',
  'retrieval.rerank': '--no-rerank',
  'chunking.size': '--window',
  'chunking.stride': '--stride',
  'assembly.expand': '--no-expand',
  'assembly.order': '--order',
  'assembly.maxEvidenceTokens': '--max-evidence-tokens',
  'assembly.dedup': '--dedup',
  'reader.model': '--reader',
  'judge.model': '--judge',
  'judge.runs': '--judge-runs',
  epochs: '--epochs',
  'reader.temperature': '--temperature',
  'reader.maxTokens': '--max-tokens',
  limit: '--limit',
  seed: '--seed',
};
/** A constraint between two keys is reported on the first; the second may be the one the user typed. */
const PARTNER: Record<string, string> = { 'chunking.stride': 'chunking.size', 'retrieval.k': 'retrieval.candidates' };

function has(layer: PartialConfig, path: ReadonlyArray<PropertyKey>): boolean {
  let node: unknown = layer;
  for (const p of path) {
    if (!node || typeof node !== 'object' || !Object.hasOwn(node, String(p))) return false;
    node = (node as Record<string, unknown>)[String(p)];
  }
  return true;
}

function blame(layers: Layers, path: ReadonlyArray<PropertyKey>, message: string): Error {
  const optionKey = optionKeyAt(layers.systemOptions ?? [], path);
  if (optionKey !== null) return new UsageError(`-S ${optionKey}: ${message}`);
  const key = path.map(String).join('.');
  const keys = [key, Object.hasOwn(PARTNER, key) ? PARTNER[key] : undefined].filter((k): k is string => Boolean(k));
  const flagKey = keys.find((k) => has(layers.flags, k.split('.')));
  if (flagKey) {
    const flag = key.startsWith('options.')
      ? `-B ${key.slice('options.'.length).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
      : Object.hasOwn(FLAG_OF, flagKey)
        ? FLAG_OF[flagKey]!
        : flagKey;
    return new UsageError(`${flag}: ${message}`);
  }
  if (layers.configFile && keys.some((k) => has(layers.file, k.split('.'))))
    return new InputError(message, { file: layers.configFile, place: formatPath(path) });
  return new InputError(message, { place: formatPath(path) });
}

/** Schema, benchmark, retriever and benchmark options, each error blamed on the flag or config key that set it. */
function checkedConfig(merged: PartialConfig, layers: Layers): RunConfig {
  // Before the schema: its error would quote the value, and the flag or key that set it is named.
  const secret = urlCredentialsIn(merged);
  if (secret) throw blame(layers, secret, CREDENTIALS_IN_URL);
  let cfg: RunConfig;
  try {
    cfg = resolveConfig(merged, layers.configFile ?? 'command line', RunConfigSchema);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const parsed = RunConfigSchema.safeParse(merged);
    const issue = parsed.success ? undefined : parsed.error.issues[0];
    if (!issue) throw e;
    // An unknown key inside a system's section: blamed on the key itself, with the options it has.
    if (issue.code === 'unrecognized_keys' && issue.path.length === 1) {
      const owner = listSystems().find((s) => s.config?.key === issue.path[0]);
      if (owner)
        throw blame(
          layers,
          [...issue.path, issue.keys[0]!],
          `'${issue.keys[0]}' is not an option of ${owner.name} (options: ${declaredOptions(owner).join(', ')}; rawrag systems ${owner.name})`,
        );
    }
    // An unknown key is blamed on the key itself, so the file (or flag) that set it is named.
    if (issue.code === 'unrecognized_keys')
      throw blame(
        layers,
        [...issue.path, issue.keys[0]!],
        `unknown key '${issue.keys[0]}'${
          issue.keys.length > 1
            ? ` (and ${issue.keys
                .slice(1)
                .map((k) => `'${k}'`)
                .join(', ')})`
            : ''
        }`,
      );
    throw blame(layers, issue.path, issue.message);
  }
  const bench = listBenchmarks().find((b) => b.name === cfg.benchmark.toLowerCase());
  if (!bench)
    throw blame(
      layers,
      ['benchmark'],
      `unknown benchmark '${cfg.benchmark}' (known: ${listBenchmarks()
        .map((b) => b.name)
        .join(', ')})`,
    );
  if (!(RETRIEVER_NAMES as readonly string[]).includes(cfg.retrieval.retriever)) {
    throw blame(
      layers,
      ['retrieval', 'retriever'],
      `unknown retriever '${cfg.retrieval.retriever}' (known: ${RETRIEVER_NAMES.join(', ')})`,
    );
  }
  for (const o of bench.options) {
    const value = cfg.options?.[o.key];
    if (value === undefined || !o.validate) continue;
    try {
      o.validate(String(value));
    } catch (e) {
      const bare =
        e instanceof InputError ? e.message.replace(`${[e.file, e.place].filter(Boolean).join(': ')}: `, '') : (e as Error).message;
      throw blame(layers, ['options', o.key], bare);
    }
  }
  return cfg;
}

/** A config file's reader.promptFile: checked and hashed here (a flag's template already is). */
export function withPromptHash(cfg: RunConfig): RunConfig {
  if (!cfg.reader.promptFile || cfg.reader.promptSha256) return cfg;
  const t = readReaderTemplate(cfg.reader.promptFile);
  return { ...cfg, reader: { ...cfg.reader, promptSha256: t.sha256 } };
}

/**
 * judge.model null (the default) = the benchmark's official judge, resolved per benchmark after
 * the layers merge, so a config value equal to a default never changes what another benchmark gets.
 */
export function withOfficialJudge(cfg: RunConfig): RunConfig {
  const b = listBenchmarks().find((x) => x.name === cfg.benchmark.toLowerCase());
  return { ...cfg, judge: { ...cfg.judge, model: judgeModelFor(cfg.judge.model, b?.defaultJudgeModel) } };
}

/** Transport flags: how requests travel. None of them changes the run's config hash or a cache key. */
export function addTransportOptions(cmd: Command): Command {
  cmd.optionsGroup('Providers, cost and cache:');
  return cmd
    .option('--dry-run', 'print the calls per role and the estimated cost, then stop (spends nothing, writes nothing)')
    .option('--no-cache', 'send every request and store no reply (default: reuse the response cache)')
    .option('--cache-dir <dir>', 'response cache folder (default $RAWRAG_CACHE_DIR, else $XDG_CACHE_HOME/rawrag, else ~/.cache/rawrag)')
    .option(
      '--cache-scope <scope>',
      'share cached replies per endpoint (default) or per model name across endpoints (model: the run reports where cached replies came from)',
      cacheScope,
    )
    .option(
      '--concurrency <kind=n>',
      'requests in flight at once per endpoint and kind, shared by the cells of a grid: chat=8 (reader, judge), embed=4, rerank=4; e.g. chat=16,embed=8 (repeatable)',
      collectConcurrency,
    )
    .option(
      '--max-cost <usd>',
      'spend at most USD on provider requests (the whole set for a grid): refused before starting when the estimate is above it, stopped before a request could cross it (exit 6); the same command with a higher cap resumes',
      positiveNumber,
    )
    .option('--timeout <seconds>', 'per-request timeout (default 120)', positiveNumber)
    .option(
      '--max-retries <n>',
      'retries after a failed request: 429, 5xx, timeouts, resets, truncated replies (default 8)',
      nonNegativeInteger,
    )
    .option('--models <file>', 'your own models (YAML, as configs/models.yaml) merged over the built-in table (default $RAWRAG_MODELS)')
    .option('--reader-base-url <url>', 'OpenAI-compatible endpoint for the reader (vLLM, Ollama, llama.cpp, DeepSeek ...)')
    .option('--judge-base-url <url>', 'OpenAI-compatible endpoint for the judge')
    .option('--embed-base-url <url>', 'OpenAI-compatible /v1 endpoint for embeddings')
    .option('--rerank-base-url <url>', 'rerank endpoint (Cohere: without /v2; vLLM: its /v1)');
}

const CONCURRENCY_KINDS = ['chat', 'embed', 'rerank'] as const;

/** `--concurrency chat=16,embed=8` (repeatable): the in-flight limit per request kind. */
export function collectConcurrency(value: string, previous: Partial<Record<string, number>> = {}): Partial<Record<string, number>> {
  const out = { ...previous };
  for (const part of value.split(',')) {
    const [kind, n] = part.split('=').map((x) => x.trim());
    if (!kind || n === undefined || !(CONCURRENCY_KINDS as readonly string[]).includes(kind))
      throw new InvalidArgumentError(`'${part}' is not kind=n with kind one of ${CONCURRENCY_KINDS.join(', ')} (e.g. chat=16).`);
    out[kind] = positiveInt(n);
  }
  return out;
}

export function cacheScope(value: string): CacheScope {
  if (!(CACHE_SCOPES as string[]).includes(value)) throw new InvalidArgumentError(`'${value}' is not one of ${CACHE_SCOPES.join(', ')}.`);
  return value as CacheScope;
}

/** The transport a command's flags ask for (unset flags keep the defaults). */
export function transportFromFlags(cmd: Command): Partial<TransportOptions> {
  const o = cmd.opts();
  const t: Partial<TransportOptions> = { noCache: o.cache === false, cacheDir: (o.cacheDir as string | undefined) ?? null };
  const base = defaultTransport();
  t.concurrency = { ...base.concurrency, ...((o.concurrency as Partial<TransportOptions['concurrency']> | undefined) ?? {}) };
  if (o.models !== undefined) t.modelsFile = o.models as string;
  if (o.cacheScope !== undefined) t.cacheScope = o.cacheScope as CacheScope;
  if (o.timeout !== undefined) t.timeoutMs = Math.max(1, Math.round((o.timeout as number) * 1000));
  if (o.maxRetries !== undefined) t.retry = { ...base.retry, maxRetries: o.maxRetries as number };
  t.baseUrls = {};
  for (const role of ['reader', 'judge', 'embed', 'rerank'] as const) {
    const v = o[`${role}BaseUrl`] as string | undefined;
    if (v && hasUrlCredentials(v)) throw new UsageError(`--${role}-base-url: ${CREDENTIALS_IN_URL}`);
    if (v) t.baseUrls[role] = v;
  }
  return t;
}

/** `--name LABEL`: the run's label, kept in the manifest and shown beside the system everywhere (not part of its identity). */
export function addNameOption(cmd: Command, what = 'run'): Command {
  cmd.optionsGroup('Output and resume:');
  return cmd.option(
    '--name <label>',
    `a label for this ${what}, kept in the manifest and shown beside the system in tables, reports and rawrag runs (a resume keeps the label unless a new one is given)`,
    runLabel,
  );
}

export function runLabel(value: string): string {
  const v = value.trim();
  if (v === '' || v.length > 80 || /[\u0000-\u001f\u007f\[\]]/.test(v))
    throw new InvalidArgumentError(`'${value}' is not a label: 1-80 characters, no control characters or brackets.`);
  return v;
}

