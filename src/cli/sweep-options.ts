/**
 * `rawrag ablate -S key=a,b`: a system option swept. A key the system declares a sweep knob for
 * (`-S mutations=on,off`, `-S items=3,5,10`) is read by that knob, even with one value (the
 * reference always runs beside it); any other declared key with a comma list (`-S top_k=10,30`) is
 * swept with each value read as YAML, checked by the system's schema. A single value of a key
 * without a knob is the base config's, as in `rawrag run`.
 */
import type { SweepKnob, SystemDescriptor } from '../core/system.js';
import type { Benchmark } from '../core/benchmark.js';
import { benchmarkOptionKey, kebab } from './benchmark-options.js';
import { UsageError } from '../util/errors.js';
import { parseYaml } from '../util/yaml.js';
import { declaredOptions } from './system-options.js';
import type { ConfigSweep } from '../ablate/variants.js';

/** The pairs `-S` gave, split into the base config's and the sweeps of `system`. */
export function splitSweepPairs(system: SystemDescriptor, pairs: readonly string[]): { base: string[]; sweeps: ConfigSweep[] } {
  const base: string[] = [];
  const sweeps: ConfigSweep[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1);
    const flag = `-S ${key}`;
    const knob = (system.sweep ?? []).find((k) => k.key === key);
    if (knob) sweeps.push({ knob, values: rethrow(flag, () => knob.parse(value, flag)) });
    else if (topLevelParts(value).length > 1) {
      const generic = genericKnob(system, key, flag);
      sweeps.push({ knob: generic, values: generic.parse(value, flag) });
    } else base.push(pair);
  }
  return { base, sweeps };
}

/** A knob for a declared key without one of its own: values read as YAML, each checked by the section's schema. */
function genericKnob(system: SystemDescriptor, key: string, flag: string): SweepKnob {
  const section = system.config?.key;
  if (!section || !declaredOptions(system).includes(key))
    throw new UsageError(
      `${flag}: '${system.name}' has no option '${key}' to sweep${section ? ` (its options: ${declaredOptions(system).join(', ')})` : ''}`,
    );
  const schema = system.config!.schema;
  return {
    key,
    description: `${key} (swept)`,
    config: [section, key],
    parse: (list) =>
      topLevelParts(list).map((text) => {
        const v = text === '' ? '' : rethrow(flag, () => parseYaml(text));
        const checked = schema.safeParse({ [key]: v });
        const issue = checked.success ? undefined : checked.error.issues.find((i) => i.path[0] === key);
        if (issue) throw new UsageError(`${flag}: '${text}': ${issue.message}`);
        return v;
      }),
    label: (v) => `${key}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
  };
}

/** `a,b,[c,d]` -> `a`, `b`, `[c,d]`: commas inside brackets or braces belong to a value. */
export function topLevelParts(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      parts.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(value.slice(start).trim());
  return parts;
}

function rethrow<T>(flag: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    const msg = (e as Error).message;
    throw new UsageError(msg.startsWith(`${flag}: `) ? msg : `${flag}: ${msg}`);
  }
}

/**
 * `rawrag ablate -B key=a,b`: a benchmark option swept. Only an option that leaves the data alone
 * (how the benchmark is read or scored: LongMemEval's `reading`, PersonaMem's `mcq-protocol`,
 * BEAM's `beam-rubric`) is swept; each value is checked by the option. An option that picks the
 * data, the gold or the questions (`definesSetting`: `categories`, `gold`, `variant`, ...) takes its
 * value as in `rawrag run` (a comma list there is one value, e.g. `-B categories=1,2`): runs on
 * other data are never paired, so they are no ablation.
 */
export function splitBenchmarkSweeps(benchmark: Benchmark, pairs: readonly string[]): { base: string[]; sweeps: ConfigSweep[] } {
  const base: string[] = [];
  const sweeps: ConfigSweep[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = benchmarkOptionKey(pair.slice(0, eq));
    const option = benchmark.options.find((o) => o.key === key);
    const values = topLevelParts(pair.slice(eq + 1));
    if (!option || option.definesSetting || values.length < 2) {
      base.push(pair);
      continue;
    }
    const flag = `-B ${kebab(key)}`;
    const knob: SweepKnob = {
      key: kebab(key),
      description: `${kebab(key)} (swept)`,
      config: ['options', key],
      parse: (list) =>
        topLevelParts(list).map((v) => {
          if (v === '') throw new UsageError(`${flag}: an empty value in the list`);
          rethrow(flag, () => option.validate?.(v));
          return v;
        }),
      label: (v) => `${kebab(key)}=${String(v)}`,
    };
    sweeps.push({ knob, values: knob.parse(pair.slice(eq + 1), flag) });
  }
  return { base, sweeps };
}
