/** Shared flag parsers and the mapping from run flags to config keys. */
import { InvalidArgumentError, type Command } from 'commander';
import { mergeLayers, readConfigFile, resolveConfig, type PartialConfig } from '../config/load.js';
import type { RunConfig } from '../config/schema.js';
import { listBenchmarks } from '../datasets/registry.js';

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new InvalidArgumentError(`'${value}' is not a positive whole number.`);
  }
  return n;
}

export function integer(value: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`'${value}' is not a whole number.`);
  return n;
}

export function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`'${value}' is not a non-negative number.`);
  return n;
}

/** The RAW-RAG method flags shared by `run` and `ablate`. */
export function addMethodOptions(cmd: Command): Command {
  return cmd
    .option('-c, --config <file>', 'config file (JSON or YAML); flags override it')
    .option('--data <path>', "data file or folder in the benchmark's official format (default: the bundled copy)")
    .option('--retriever <name>', 'retriever: local (embedded, no keys; default)')
    .option('--candidates <n>', 'first-stage candidates (default 128)', positiveInt)
    .option('--k <n>', 'evidence windows kept after reranking (default 15)', positiveInt)
    .option('--no-rerank', 'skip the second stage: keep the first-stage order')
    .option('--window <n>', 'window size in cl100k tokens (default 256)', positiveInt)
    .option('--stride <n>', 'window stride in tokens (default 224, i.e. 32 overlap)', positiveInt)
    .option('--no-expand', "show the selected windows themselves, not their full turns (default: the benchmark's policy)")
    .option('--order <order>', "evidence order: rank | chronological (default: the benchmark's policy)")
    .option('--reader <model>', 'reader model (none: retrieval and coverage only)')
    .option('--judge <model>', 'judge model (default gpt-4o-mini)')
    .option('--judge-runs <n>', 'judge runs per answer, averaged (default 3)', positiveInt)
    .option('--limit <n>', 'ask only the first N selected questions', positiveInt)
    .option('--seed <n>', 'seed for every random choice (default 0)', integer);
}

/** Adds every benchmark's own options (each says which benchmark it belongs to). */
export function addBenchmarkOptions(cmd: Command): Command {
  const seen = new Set<string>();
  for (const b of listBenchmarks()) {
    for (const o of b.options) {
      if (seen.has(o.flags)) continue;
      seen.add(o.flags);
      const def = o.defaultValue ? ` (default ${o.defaultValue})` : '';
      cmd.option(o.flags, `[${b.name}] ${o.description}${def}`);
    }
  }
  return cmd;
}

/** Config layers from flags: only options the user actually typed override the file and defaults. */
export function configFromFlags(cmd: Command, benchmark: string | undefined): RunConfig {
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
  set(['retrieval', 'retriever'], 'retriever');
  set(['retrieval', 'candidates'], 'candidates');
  set(['retrieval', 'k'], 'k');
  set(['retrieval', 'rerank'], 'rerank');
  set(['chunking', 'size'], 'window');
  set(['chunking', 'stride'], 'stride');
  set(['assembly', 'expand'], 'expand');
  set(['assembly', 'order'], 'order');
  set(['reader', 'model'], 'reader');
  set(['judge', 'model'], 'judge');
  set(['judge', 'runs'], 'judgeRuns');
  set(['limit'], 'limit');
  set(['seed'], 'seed');
  // A window size given without a stride keeps the paper's 32-token overlap.
  if (given('window') && !given('stride')) {
    (flags.chunking as PartialConfig).stride = Math.max(1, (opts.window as number) - 32);
  }
  const benchOpts: Record<string, string> = {};
  for (const b of listBenchmarks()) for (const o of b.options) if (given(o.key)) benchOpts[o.key] = String(opts[o.key]);
  if (Object.keys(benchOpts).length) flags.options = benchOpts;
  const file = opts.config ? readConfigFile(opts.config as string) : {};
  // No benchmark named anywhere: the bundled LoCoMo.
  return resolveConfig(mergeLayers({ benchmark: 'locomo' }, file, flags), opts.config ? (opts.config as string) : 'command line');
}
