/**
 * A run's benchmark-setting (what `rawrag stats` groups and pairs by) carries the benchmark
 * options that change what a score means — LoCoMo's `--gold audited` — so runs scored against
 * different golds are never paired: `locomo/gpt-4o-mini` vs `locomo/gpt-4o-mini+gold=audited`.
 */
import type { Benchmark } from '../core/benchmark.js';

export function withSettingTags(setting: string, benchmark: Benchmark, options: Record<string, string | undefined>): string {
  const tags = benchmark.settingTags?.(options) ?? [];
  const missing = tags.filter((t) => !setting.split('+').includes(t));
  return [setting, ...missing].join('+');
}
