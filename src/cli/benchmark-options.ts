/**
 * `-B key=value` (repeatable): a benchmark's own options, declared by its adapter
 * (src/benchmarks/<name>/, `options`), the way `-S` carries a system's (system-options.ts), so
 * `rawrag run --help` does not grow with every benchmark. The key is the option's config key
 * (`historySize`, as a config file's `options:` names it) or its kebab-case spelling
 * (`history-size`); the value is kept as text, which the adapter reads and checks.
 */
import { InvalidArgumentError } from 'commander';
import type { Benchmark, BenchmarkOption } from '../core/benchmark.js';
import { UsageError } from '../util/errors.js';

/** Commander's collector for `-B`: checks the `key=value` shape, keeps the pairs in order. */
export function collectBenchmarkOption(value: string, previous: string[] = []): string[] {
  const eq = value.indexOf('=');
  if (eq <= 0 || !/^[A-Za-z][\w-]*$/.test(value.slice(0, eq).trim()))
    throw new InvalidArgumentError(`'${value}' is not key=value (e.g. -B categories=1,2,3,4).`);
  return [...previous, value];
}

/** `history-size` / `history_size` / `historySize` -> `historySize`. */
export function benchmarkOptionKey(key: string): string {
  return key.trim().replace(/[-_]([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The kebab-case spelling of a config key, as help and docs show it: `historySize` -> `history-size`. */
export function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The `options` layer the `-B` pairs give for `benchmark`: an unknown key is refused with the
 * benchmark's own keys, unless `onlyDeclared` (a grid's cell: the key belongs to another cell's benchmark).
 */
export function benchmarkOptionLayer(
  benchmark: Benchmark,
  pairs: readonly string[],
  o: { onlyDeclared?: boolean } = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = benchmarkOptionKey(pair.slice(0, eq));
    const option = benchmark.options.find((x) => x.key === key);
    if (!option) {
      if (o.onlyDeclared) continue;
      throw new UsageError(`-B ${pair.slice(0, eq).trim()}: not an option of ${benchmark.name} (${optionList(benchmark)})`);
    }
    out[key] = pair.slice(eq + 1).trim();
  }
  return out;
}

/** In a grid: each `-B` key must be an option of one of the grid's benchmarks. */
export function checkGridBenchmarkOptions(pairs: readonly string[], benchmarks: readonly Benchmark[]): void {
  for (const pair of pairs) {
    const key = benchmarkOptionKey(pair.slice(0, pair.indexOf('=')));
    if (!benchmarks.some((b) => b.options.some((x) => x.key === key)))
      throw new UsageError(
        `-B ${pair.slice(0, pair.indexOf('=')).trim()}: not an option of any benchmark in this grid (${benchmarks.map((b) => b.name).join(', ')}; rawrag data options lists them)`,
      );
  }
}

function optionList(b: Benchmark): string {
  return b.options.length ? `its options: ${b.options.map((x) => kebab(x.key)).join(', ')}` : 'it has no options';
}

/** One line per option, for `rawrag data options`: `-B key=<value>  description (default ...)`. */
export function describeBenchmarkOption(o: BenchmarkOption): { flag: string; description: string } {
  const arg = o.flags.match(/<([^>]+)>/)?.[1] ?? 'true';
  return {
    flag: `-B ${kebab(o.key)}=${arg === 'true' ? 'true' : `<${arg}>`}`,
    description: `${o.description}${o.defaultValue ? ` (default ${o.defaultValue})` : ''}`,
  };
}

/**
 * The `-B` pairs of a command that reads a benchmark's data without a run config of its own
 * (judge, import, calibrate-judge), by config key: checked against `benchmark` when it is known,
 * else against every benchmark's options.
 */
export function givenBenchmarkOptions(
  pairs: readonly string[],
  benchmark: Benchmark | undefined,
  all: readonly Benchmark[],
): Record<string, string> {
  if (benchmark) return benchmarkOptionLayer(benchmark, pairs);
  checkGridBenchmarkOptions(pairs, all);
  const out: Record<string, string> = {};
  for (const pair of pairs) out[benchmarkOptionKey(pair.slice(0, pair.indexOf('=')))] = pair.slice(pair.indexOf('=') + 1).trim();
  return out;
}
