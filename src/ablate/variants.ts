/**
 * The ablation grid: which RAW-RAG variants a sweep asks for, what each is called, and the exact
 * run config of each. The reference (the base config: the paper's defaults unless a config file
 * says otherwise) is always the first variant; the sweep is the cartesian product of the values
 * given per dimension, each dimension also holding its reference value.
 */
import type { MemoryConfig, RunConfig } from '../config/schema.js';
import { MemorySchema, RunConfigSchema } from '../config/schema.js';
import type { Policy } from '../core/policy.js';
import { InputError } from '../util/errors.js';

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
  /** Values of the `memory` config section to sweep (a source that reads it runs each as a plain run). */
  memory?: MemorySweep;
}

export type RecallWeights = MemoryConfig['weights'];

export interface MemorySweep {
  items: number[];
  tokens: number[];
  dedupThreshold: number[];
  weights: RecallWeights[];
}

/** The swept `memory.*` values of a variant. */
export interface MemoryKnobs {
  items: number;
  tokens: number;
  dedupThreshold: number;
  weights: RecallWeights;
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
  /** Its `memory.*` values (the reference's when not swept). */
  memory: MemoryKnobs;
  /** The full run config of this variant (the reference's config, bit for bit, for `default`). */
  cfg: RunConfig;
}

export const DEFAULT_VARIANT = 'default';

export function windowKey(w: WindowSpec): string {
  return `${w.size}/${w.stride}`;
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
  const refMemoryCfg = base.memory ?? MemorySchema.parse({});
  const refMemory: MemoryKnobs = {
    items: refMemoryCfg.items,
    tokens: refMemoryCfg.tokens,
    dedupThreshold: refMemoryCfg.dedupThreshold,
    weights: refMemoryCfg.weights,
  };
  const ms = sweep.memory;
  const memoryGrid: MemoryKnobs[] = [];
  for (const items of uniqueSorted([refMemory.items, ...(ms?.items ?? [])]))
    for (const tokens of uniqueSorted([refMemory.tokens, ...(ms?.tokens ?? [])]))
      for (const dedupThreshold of uniqueSorted([refMemory.dedupThreshold, ...(ms?.dedupThreshold ?? [])]))
        for (const weights of uniqueBy([refMemory.weights, ...(ms?.weights ?? [])], weightsKey))
          memoryGrid.push({ items, tokens, dedupThreshold, weights });

  const windows = uniqueBy([refWindow, ...sweep.window.map((size) => windowFor(size, sweep.stride, refWindow, overlap))], windowKey).sort(
    (a, b) => a.size - b.size || a.stride - b.stride,
  );
  const candidates = uniqueSorted([ref.candidates, ...sweep.candidates]);
  const ks = uniqueSorted([ref.k, ...sweep.k]);
  const reranks = sweep.noRerank ? [ref.rerank, false] : [ref.rerank];
  const expands = sweep.noExpand ? [ref.expand, false] : [ref.expand];

  const out: Variant[] = [];
  const seen = new Set<string>();
  const add = (window: WindowSpec, cand: number, k: number, rerank: boolean, expand: boolean, memory: MemoryKnobs = refMemory) => {
    const memoryDiffers = memoryName(memory, refMemory) !== '';
    const isDefault =
      windowKey(window) === windowKey(ref.window) &&
      cand === ref.candidates &&
      k === ref.k &&
      rerank === ref.rerank &&
      expand === ref.expand &&
      !memoryDiffers;
    const name = isDefault
      ? DEFAULT_VARIANT
      : [nameOf({ window, candidates: cand, k, rerank, expand }, ref, overlap), memoryName(memory, refMemory)].filter(Boolean).join(',');
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
    // The memory section only where a value differs, so `default` keeps the base config bit for bit.
    if (memoryDiffers) cfg.memory = { ...refMemoryCfg, ...memory, weights: { ...memory.weights } };
    const checked = RunConfigSchema.safeParse(cfg);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      throw new InputError(`variant ${name}: ${issue.message}`, { place: issue.path.join('.') || 'sweep' });
    }
    out.push({ name, isDefault, window, candidates: cand, k, rerank, expand, memory, cfg: checked.data });
  };
  add(ref.window, ref.candidates, ref.k, ref.rerank, ref.expand);
  for (const window of windows) {
    for (const cand of candidates) {
      for (const rerank of uniqueBy(reranks, String)) {
        for (const expand of uniqueBy(expands, String)) {
          for (const k of ks) for (const memory of memoryGrid) add(window, cand, k, rerank, expand, memory);
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

export function weightsKey(w: RecallWeights): string {
  return `${w.cosine}/${w.entity}/${w.recency}/${w.importance}`;
}

/** `items=3`, `tokens=400`, `dedup=0.8`, `weights=1/0/0/0`: only what differs from the reference. */
export function memoryName(m: MemoryKnobs, ref: MemoryKnobs): string {
  const parts: string[] = [];
  if (m.items !== ref.items) parts.push(`items=${m.items}`);
  if (m.tokens !== ref.tokens) parts.push(`tokens=${m.tokens}`);
  if (m.dedupThreshold !== ref.dedupThreshold) parts.push(`dedup=${m.dedupThreshold}`);
  if (weightsKey(m.weights) !== weightsKey(ref.weights)) parts.push(`weights=${weightsKey(m.weights)}`);
  return parts.join(',');
}

/** True when the sweep asks for `memory.*` values besides the reference's. */
export function sweepsMemory(variants: readonly Variant[]): boolean {
  const ref = variants.find((v) => v.isDefault);
  return ref !== undefined && variants.some((v) => memoryName(v.memory, ref.memory) !== '');
}

/** Parses `0.8,0.9` into numbers in [0, 1] (for commander). */
export function parseUnitList(value: string, flag: string): number[] {
  const parts = splitList(value, flag);
  return parts.map((p) => {
    const n = Number(p);
    if (!/^\d*\.?\d+$/.test(p) || n < 0 || n > 1) throw new InputError(`'${p}' is not a number between 0 and 1`, { place: flag });
    return n;
  });
}

/** Parses `0.4/0.3/0.2/0.1,1/0/0/0` (cosine/entity/recency/importance) into recall weights. */
export function parseWeightsList(value: string, flag: string): RecallWeights[] {
  return splitList(value, flag).map((p) => {
    const xs = p.split('/').map((x) => x.trim());
    const ns = xs.map(Number);
    if (xs.length !== 4 || xs.some((x) => !/^\d*\.?\d+$/.test(x)))
      throw new InputError(`'${p}' is not four non-negative weights cosine/entity/recency/importance`, { place: flag });
    return { cosine: ns[0]!, entity: ns[1]!, recency: ns[2]!, importance: ns[3]! };
  });
}

function splitList(value: string, flag: string): string[] {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new InputError('empty list', { place: flag });
  return parts;
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

/** Parses `1,5,15` into positive whole numbers (for commander). */
export function parsePositiveList(value: string, flag: string): number[] {
  const parts = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new InputError('empty list', { place: flag });
  return parts.map((p) => {
    const n = Number(p);
    if (!/^\d+$/.test(p) || !Number.isSafeInteger(n) || n <= 0)
      throw new InputError(`'${p}' is not a positive whole number`, { place: flag });
    return n;
  });
}
