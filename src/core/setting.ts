/**
 * The benchmark-setting `rawrag stats` groups and pairs runs by: the benchmark, the data it was
 * measured on, and who read the evidence. Runs in different settings are never paired, so every
 * option that changes the question set, the haystack or the gold — declared by the adapter as
 * `definesSetting` — is part of it. An option at its default is left out, so the default release
 * keeps its short name (`locomo/gpt-4o-mini`); any other value is named (`longmemeval/variant=oracle/no-reader`).
 */
import type { Benchmark } from './benchmark.js';
import type { Dataset } from './schema.js';

/** `key=value` for each setting-defining option away from its default, in the adapter's option order. */
export function dataSettingParts(
  benchmark: Benchmark,
  options: Record<string, string | undefined>,
  dataset?: Pick<Dataset, 'variant'>,
): string[] {
  const parts: string[] = [];
  for (const o of benchmark.options) {
    if (!o.definesSetting) continue;
    const value = dataset?.variant?.[o.key] ?? options[o.key] ?? o.defaultValue;
    if (value === undefined || value === o.defaultValue) continue;
    parts.push(`${o.key}=${value}`);
  }
  return parts;
}

/** The data half of the setting: `beam/size=500K`, or just `locomo` for the default release. */
export function dataSetting(benchmark: Benchmark, options: Record<string, string | undefined>, dataset?: Pick<Dataset, 'variant'>): string {
  return [benchmark.name, ...dataSettingParts(benchmark, options, dataset)].join('/');
}

/** The whole setting: the data, then the reader (`no-reader` for a coverage-only run) or the system that answered. */
export function benchmarkSetting(
  benchmark: Benchmark,
  options: Record<string, string | undefined>,
  dataset: Pick<Dataset, 'variant'> | undefined,
  answeredBy: string,
): string {
  return `${dataSetting(benchmark, options, dataset)}/${answeredBy}`;
}
