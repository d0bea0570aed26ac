import { describe, expect, it } from 'vitest';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { DEFAULT_POLICY } from '../../../src/core/policy.js';
import { hashOf } from '../../../src/util/hash.js';
import { InputError } from '../../../src/util/errors.js';
import { planVariants, sweepsConfig, type SweepRequest } from '../../../src/ablate/variants.js';
import { parsePositiveList, parseUnitList } from '../../../src/util/lists.js';
import { agenticMemory, parseWeightsList } from '../../../src/systems/agentic-memory/index.js';
import { MemorySchema } from '../../../src/systems/agentic-memory/config.js';

const base = RunConfigSchema.parse({ benchmark: 'locomo' });
const none: SweepRequest = { k: [], window: [], stride: null, candidates: [], noRerank: false, noExpand: false };
const names = (s: Partial<SweepRequest>, policy = DEFAULT_POLICY) => planVariants(base, policy, { ...none, ...s }).map((v) => v.name);

describe('planVariants', () => {
  it('always puts the reference first, with the base config bit for bit', () => {
    const vs = planVariants(base, DEFAULT_POLICY, { ...none, k: [1, 5] });
    expect(vs[0]!.name).toBe('default');
    expect(vs[0]!.isDefault).toBe(true);
    expect(hashOf(vs[0]!.cfg)).toBe(hashOf(base));
    expect(vs.filter((v) => v.isDefault)).toHaveLength(1);
  });

  it('adds the reference value to every swept dimension and names variants by what differs', () => {
    expect(names({ k: [1, 5, 15, 120] })).toEqual(['default', 'k=1', 'k=5', 'k=120']);
    expect(names({ k: [5] })).toEqual(['default', 'k=5']);
    expect(names({ noRerank: true })).toEqual(['default', 'no-rerank']);
    expect(names({ noExpand: true, k: [5] })).toEqual(['default', 'k=5', 'k=5,no-expand', 'no-expand']);
    expect(names({ candidates: [64] })).toEqual(['default', 'candidates=64,k=15']);
  });

  it('crosses window sizes with k and names k explicitly beside a window', () => {
    expect(names({ window: [128, 512], k: [5] })).toEqual([
      'default',
      'window=128,k=5',
      'window=128,k=15',
      'k=5',
      'window=512,k=5',
      'window=512,k=15',
    ]);
  });

  it('keeps the 32-token overlap for swept windows unless --stride is given', () => {
    const vs = planVariants(base, DEFAULT_POLICY, { ...none, window: [128, 1024] });
    expect(vs.map((v) => [v.window.size, v.window.stride])).toEqual([
      [256, 224],
      [128, 96],
      [1024, 992],
    ]);
    const strided = planVariants(base, DEFAULT_POLICY, { ...none, window: [128, 512], stride: 64 });
    // The reference window keeps its own stride; only the swept sizes take --stride.
    expect(strided.map((v) => v.name)).toEqual(['default', 'window=128,stride=64,k=15', 'window=512,stride=64,k=15']);
    expect(strided.every((v) => v.cfg.chunking.stride === (v.isDefault ? 224 : 64))).toBe(true);
  });

  it('writes each variant value into its config and leaves expansion to the policy when it agrees', () => {
    const vs = planVariants(base, DEFAULT_POLICY, { ...none, k: [5], noRerank: true, noExpand: true });
    const v = vs.find((x) => x.name === 'k=5,no-rerank,no-expand')!;
    expect(v.cfg.retrieval).toMatchObject({ k: 5, rerank: false, candidates: 128 });
    expect(v.cfg.assembly.expand).toBe(false);
    expect(vs.find((x) => x.name === 'k=5')!.cfg.assembly.expand).toBeNull();
    expect(new Set(vs.map((x) => hashOf(x.cfg))).size).toBe(vs.length);
  });

  it('adds no no-expand variants where the policy already shows raw windows', () => {
    expect(names({ noExpand: true }, { ...DEFAULT_POLICY, expandToTurns: false })).toEqual(['default']);
  });

  it('rejects a k deeper than the candidate set, naming the variant', () => {
    expect(() => planVariants(base, DEFAULT_POLICY, { ...none, k: [200] })).toThrow(InputError);
    expect(() => planVariants(base, DEFAULT_POLICY, { ...none, k: [200] })).toThrow(/variant k=200: k must not exceed candidates/);
    expect(() => planVariants(base, DEFAULT_POLICY, { ...none, window: [64], stride: 100 })).toThrow(/stride 100 exceeds window 64/);
  });
});

describe('parsePositiveList', () => {
  it('parses comma lists and rejects anything but positive whole numbers', () => {
    expect(parsePositiveList('1, 5,15', '--k')).toEqual([1, 5, 15]);
    expect(() => parsePositiveList('1,0', '--k')).toThrow(/'0' is not a positive whole number/);
    expect(() => parsePositiveList('1,x', '--k')).toThrow(InputError);
    expect(() => parsePositiveList(',', '--k')).toThrow(/empty list/);
  });
});

describe('planVariants over memory.* values', () => {
  const memBase = RunConfigSchema.parse({ benchmark: 'locomo', system: 'agentic-memory', reader: { model: 'gpt-4o-mini' } });
  const knob = (path: string) => agenticMemory.sweep!.find((k) => k.config.join('.') === `memory.${path}`)!;
  const memory = (m: Partial<Record<'items' | 'tokens' | 'dedupThreshold' | 'weights', unknown[]>>) => ({
    ...none,
    config: Object.entries(m).map(([path, values]) => ({ knob: knob(path), values: values! })),
  });

  it('crosses the memory knobs, names variants by what differs, keeps the reference bit for bit', () => {
    const vs = planVariants(memBase, DEFAULT_POLICY, memory({ items: [3, 10], dedupThreshold: [0.8] }));
    expect(vs.map((v) => v.name)).toEqual(['default', 'items=3,dedup=0.8', 'items=3', 'dedup=0.8', 'items=10,dedup=0.8', 'items=10']);
    expect(hashOf(vs[0]!.cfg)).toBe(hashOf(memBase));
    expect(vs[0]!.cfg.memory).toBeUndefined();
    const v = vs.find((x) => x.name === 'items=10,dedup=0.8')!;
    expect(v.cfg.memory).toMatchObject({
      items: 10,
      dedupThreshold: 0.8,
      tokens: 800,
      weights: { cosine: 0.4, entity: 0.3, recency: 0.2, importance: 0.1 },
    });
    // Everything else stays as in the reference (forgetting defaults included).
    expect((v.cfg.memory as { forgetting: unknown }).forgetting).toEqual(MemorySchema.parse({}).forgetting);
  });

  it('recall weights and the token budget', () => {
    const ws = parseWeightsList('1/0/0/0, 0.4/0.3/0.2/0.1', '-S weights');
    expect(ws).toEqual([
      { cosine: 1, entity: 0, recency: 0, importance: 0 },
      { cosine: 0.4, entity: 0.3, recency: 0.2, importance: 0.1 },
    ]);
    expect(planVariants(memBase, DEFAULT_POLICY, memory({ weights: ws, tokens: [400] })).map((v) => v.name)).toEqual([
      'default',
      'tokens=400',
      'tokens=400,weights=1/0/0/0',
      'weights=1/0/0/0',
    ]);
    expect(sweepsConfig(planVariants(memBase, DEFAULT_POLICY, memory({ tokens: [400] })))).toBe(true);
    expect(sweepsConfig(planVariants(memBase, DEFAULT_POLICY, { ...none, k: [5] }))).toBe(false);
  });

  it('bad lists are input errors naming the flag', () => {
    expect(() => parseWeightsList('1/0/0', '-S weights')).toThrow(/-S weights.*four non-negative weights/);
    expect(() => parseUnitList('0.8,1.5', '-S dedupThreshold')).toThrow(/-S dedupThreshold.*'1.5' is not a number between 0 and 1/);
    expect(parseUnitList('0.8, .95', '-S dedupThreshold')).toEqual([0.8, 0.95]);
  });
});
