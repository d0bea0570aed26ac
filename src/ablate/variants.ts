/**
 * The ablation grid: which RAW-RAG variants a sweep asks for, what each is called, and the exact
 * run config of each. The reference (the base config: the paper's defaults unless a config file
 * says otherwise) is always the first variant; the sweep is the cartesian product of the values
 * given per dimension, each dimension also holding its reference value.
 */
import type { RunConfig } from '../config/schema.js';
import type { SweepKnob } from '../core/system.js';
import type { Policy } from '../core/policy.js';
import { RunConfigSchema, systemOf } from '../systems/registry.js';
import { getBenchmark } from '../benchmarks/registry.js';
import { InputError } from '../util/errors.js';
import { canonicalJson } from '../util/hash.js';

/** What the user asked to vary. Empty lists / false = that dimension stays at the reference value. */
export interface SweepRequest {
  k: number[];
  window: number[];
  /** Fixed stride for every swept window size; null = keep the reference overlap (32 tokens by default). */
  stride: number | null;
  candidates: number[];
  /** Also run every combination with reranking off (first-stage order). */
  noRerank: boolean;
  /** Also run every combination with turn expansion off (the selected windows themselves). */
  noExpand: boolean;
  /** Evidence budgets (`--max-evidence-tokens 5000,0`; 0 = no cap); empty = the reference's only. */
  maxEvidenceTokens?: number[];
  /** Also run every combination with the other turn display (`--no-dedup`: dedup off, or on where the reference has it off). */
  noDedup?: boolean;
  /** Values of a system's own config (its sweep knobs, e.g. `memory.items`): such variants run as plain runs of the source. */
  config?: ConfigSweep[];
}

/** One knob of the system under test and the values asked for (besides the reference's). */
export interface ConfigSweep {
  knob: SweepKnob;
  values: unknown[];
}

export interface WindowSpec {
  size: number;
  stride: number;
}

export interface Variant {
  /** Directory name and label: `default`, `k=5`, `window=512,k=15`, `no-rerank`, ... */
  name: string;
  isDefault: boolean;
  window: WindowSpec;
  candidates: number;
  k: number;
  rerank: boolean;
  /** Effective turn expansion (after the benchmark policy). */
  expand: boolean;
  /** Evidence budget (0 = no cap) and display-turn dedup of this variant. */
  maxEvidenceTokens: number;
  dedup: boolean;
  /** Its values of the swept system knobs, by config path (`memory.items`); the reference's when not swept. */
  config: Record<string, unknown>;
  /** The name part of the knob values that differ from the reference (`items=3,dedup=0.8`); '' when none. */
  configName: string;
  /** The full run config of this variant (the reference's config, bit for bit, for `default`). */
  cfg: RunConfig;
}

export const DEFAULT_VARIANT = 'default';

export function windowKey(w: WindowSpec): string {
  return `${w.size}/${w.stride}`;
}

/**
 * The swept system knobs (in the system's own knob order), the reference's value of each, every
 * combination of the values asked for, and the name part of a combination (the knobs that differ).
 */
function systemKnobGrid(base: RunConfig, sweep: SweepRequest) {
  // In the system's own knob order, whatever order the request gave them: stable variant names.
  const declared = systemOf(base).sweep ?? [];
  const rank = (c: ConfigSweep) => declared.findIndex((k) => k.config.join('.') === c.knob.config.join('.'));
  const knobs = (sweep.config ?? []).filter((c) => c.values.length > 0).sort((a, b) => rank(a) - rank(b));
  const refConfig = Object.fromEntries(knobs.map((c) => [c.knob.config.join('.'), valueAt(sectionDefaults(base, c.knob), c.knob.config)]));
  let grid: Array<Record<string, unknown>> = [refConfig];
  for (const { knob, values } of knobs) {
    const key = knob.config.join('.');
    const given = uniqueBy([refConfig[key], ...values], canonicalJson);
    // Numbers in ascending order (the plot's and table's order); other values as given, reference first.
    const all = given.every((v) => typeof v === 'number') ? (given as number[]).sort((a, b) => a - b) : given;
    grid = grid.flatMap((g) => all.map((v) => ({ ...g, [key]: v })));
  }
  const configName = (c: Record<string, unknown>) =>
    knobs
      .filter(({ knob }) => canonicalJson(c[knob.config.join('.')]) !== canonicalJson(refConfig[knob.config.join('.')]))
      .map(({ knob }) => knob.label(c[knob.config.join('.')]))
      .join(',');
  return { knobs, refConfig, grid, configName };
}

export function planVariants(base: RunConfig, policy: Policy, sweep: SweepRequest): Variant[] {
  const refWindow: WindowSpec = { size: base.chunking.size, stride: base.chunking.stride };
  const overlap = refWindow.size - refWindow.stride;
  const refExpand = base.assembly.expand ?? policy.expandToTurns;
  const ref = {
    window: refWindow,
    candidates: base.retrieval.candidates,
    k: base.retrieval.k,
    rerank: base.retrieval.rerank,
    expand: refExpand,
  };
  const { knobs, refConfig, grid: configGrid, configName } = systemKnobGrid(base, sweep);

  const windows = uniqueBy([refWindow, ...sweep.window.map((size) => windowFor(size, sweep.stride, refWindow, overlap))], windowKey).sort(
    (a, b) => a.size - b.size || a.stride - b.stride,
  );
  const candidates = uniqueSorted([ref.candidates, ...sweep.candidates]);
  const ks = uniqueSorted([ref.k, ...sweep.k]);
  const reranks = sweep.noRerank ? [ref.rerank, false] : [ref.rerank];
  const expands = sweep.noExpand ? [ref.expand, false] : [ref.expand];
  const refBudget = base.assembly.maxEvidenceTokens ?? 0;
  const refDedup = base.assembly.dedup !== false;
  const budgets = uniqueSorted([refBudget, ...(sweep.maxEvidenceTokens ?? [])]);
  // The other display beside the reference's: dedup off where the reference dedups, on where it does not.
  const dedups = sweep.noDedup ? [refDedup, !refDedup] : [refDedup];
  const assemblies = budgets.flatMap((budget) => dedups.map((dedup) => ({ budget, dedup })));

  const out: Variant[] = [];
  const seen = new Set<string>();
  const add = (
    window: WindowSpec,
    cand: number,
    k: number,
    rerank: boolean,
    expand: boolean,
    config: Record<string, unknown> = refConfig,
    assembly: { budget: number; dedup: boolean } = { budget: refBudget, dedup: refDedup },
  ) => {
    const knobName = configName(config);
    const assemblyName = [
      assembly.budget !== refBudget ? `max-evidence=${assembly.budget}` : '',
      assembly.dedup !== refDedup ? (assembly.dedup ? 'dedup' : 'no-dedup') : '',
    ]
      .filter(Boolean)
      .join(',');
    const configDiffers = knobName !== '';
    const isDefault =
      windowKey(window) === windowKey(ref.window) &&
      cand === ref.candidates &&
      k === ref.k &&
      rerank === ref.rerank &&
      expand === ref.expand &&
      assemblyName === '' &&
      !configDiffers;
    const name = isDefault
      ? DEFAULT_VARIANT
      : [nameOf({ window, candidates: cand, k, rerank, expand }, ref, overlap), assemblyName, knobName].filter(Boolean).join(',');
    if (seen.has(name)) return;
    seen.add(name);
    const cfg = structuredClone(base);
    cfg.chunking.size = window.size;
    cfg.chunking.stride = window.stride;
    cfg.retrieval.candidates = cand;
    cfg.retrieval.k = k;
    cfg.retrieval.rerank = rerank;
    // Expansion left to the policy when it equals the policy's choice, so `default` keeps the base config.
    cfg.assembly.expand = expand === refExpand ? base.assembly.expand : expand;
    // Likewise the budget and dedup: set only where they differ from the reference.
    if (assembly.budget !== refBudget) cfg.assembly.maxEvidenceTokens = assembly.budget;
    if (assembly.dedup !== refDedup) cfg.assembly.dedup = assembly.dedup;
    // A system's section only where a value differs, so `default` keeps the base config bit for bit.
    if (configDiffers) for (const { knob } of knobs) setAt(cfg, knob, config[knob.config.join('.')]);
    const checked = RunConfigSchema.safeParse(cfg);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      throw new InputError(`variant ${name}: ${issue.message}`, { place: issue.path.join('.') || 'sweep' });
    }
    out.push({
      name,
      isDefault,
      window,
      candidates: cand,
      k,
      rerank,
      expand,
      maxEvidenceTokens: assembly.budget,
      dedup: assembly.dedup,
      config,
      configName: knobName,
      cfg: checked.data,
    });
  };
  add(ref.window, ref.candidates, ref.k, ref.rerank, ref.expand);
  for (const window of windows) {
    for (const cand of candidates) {
      for (const rerank of uniqueBy(reranks, String)) {
        for (const expand of uniqueBy(expands, String)) {
          for (const k of ks)
            for (const config of configGrid) for (const assembly of assemblies) add(window, cand, k, rerank, expand, config, assembly);
        }
      }
    }
  }
  return out;
}

function windowFor(size: number, stride: number | null, ref: WindowSpec, overlap: number): WindowSpec {
  if (stride !== null) {
    if (stride > size) throw new InputError(`stride ${stride} exceeds window ${size} (windows would skip tokens)`, { place: '--stride' });
    return { size, stride };
  }
  if (size === ref.size) return ref;
  return { size, stride: Math.max(1, size - overlap) };
}

/**
 * Name parts in a fixed order; only what differs from the reference, except that k is named
 * whenever the window or depth differs (k is the plot's axis, so `window=512,k=15` stays explicit).
 */
function nameOf(
  v: { window: WindowSpec; candidates: number; k: number; rerank: boolean; expand: boolean },
  ref: { window: WindowSpec; candidates: number; k: number; rerank: boolean; expand: boolean },
  overlap: number,
): string {
  const parts: string[] = [];
  const windowDiffers = windowKey(v.window) !== windowKey(ref.window);
  if (windowDiffers) {
    parts.push(`window=${v.window.size}`);
    if (v.window.stride !== Math.max(1, v.window.size - overlap)) parts.push(`stride=${v.window.stride}`);
  }
  if (v.candidates !== ref.candidates) parts.push(`candidates=${v.candidates}`);
  if (v.k !== ref.k || parts.length > 0) parts.push(`k=${v.k}`);
  if (v.rerank !== ref.rerank) parts.push(v.rerank ? 'rerank' : 'no-rerank');
  if (v.expand !== ref.expand) parts.push(v.expand ? 'expand' : 'no-expand');
  return parts.join(',');
}

/** True when the sweep asks for system knob values besides the reference's. */
export function sweepsConfig(variants: readonly Variant[]): boolean {
  return variants.some((v) => v.configName !== '');
}

/** The config section of a benchmark's own options (`-B key=a,b` sweeps one). */
export const BENCHMARK_OPTIONS = 'options';

/** True when a benchmark option is swept: each variant then loads its own data (a plain run). */
export function sweepsBenchmarkOptions(variants: readonly Variant[]): boolean {
  return sweptSections(variants).includes(BENCHMARK_OPTIONS);
}

/** The config sections the swept knobs live in (`memory`). */
export function sweptSections(variants: readonly Variant[]): string[] {
  return [...new Set(variants.flatMap((v) => Object.keys(v.config)).map((k) => k.split('.')[0]!))];
}

/** The knob's section as the run would read it: the config's own, else the system's defaults. */
function sectionDefaults(base: RunConfig, knob: SweepKnob): Record<string, unknown> {
  const key = knob.config[0]!;
  // A benchmark option (`-B key=a,b`): the base config's value, else the benchmark's default.
  if (key === BENCHMARK_OPTIONS) {
    const declared = getBenchmark(base.benchmark).options.filter((o) => o.defaultValue !== undefined);
    return { [key]: { ...Object.fromEntries(declared.map((o) => [o.key, o.defaultValue])), ...base.options } };
  }
  const own = base[key] as Record<string, unknown> | undefined;
  if (own) return { [key]: own };
  const system = systemOf(base);
  const schema = system.config?.key === key ? system.config.schema : null;
  if (!schema)
    throw new InputError(`'${system.name}' reads no ${key} config: -S ${knob.key} would change nothing`, { place: `-S ${knob.key}` });
  return { [key]: schema.parse({}) };
}

function valueAt(node: unknown, path: readonly string[]): unknown {
  for (const p of path) node = (node as Record<string, unknown> | undefined)?.[p];
  return node;
}

/** Sets a knob's value in a cloned config, filling its section with the defaults first. */
function setAt(cfg: RunConfig, knob: SweepKnob, value: unknown): void {
  const [section, ...rest] = knob.config;
  const root = cfg as Record<string, unknown>;
  if (root[section!] === undefined) root[section!] = structuredClone(sectionDefaults(cfg, knob)[section!]);
  let node = root[section!] as Record<string, unknown>;
  for (const p of rest.slice(0, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
  node[rest[rest.length - 1]!] = structuredClone(value);
}

function uniqueSorted(xs: number[]): number[] {
  return [...new Set(xs)].sort((a, b) => a - b);
}

function uniqueBy<T>(xs: T[], key: (x: T) => string): T[] {
  const seen = new Set<string>();
  return xs.filter((x) => {
    const k = key(x);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
