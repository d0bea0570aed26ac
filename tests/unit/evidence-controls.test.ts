/**
 * The evidence controls every system shares: the budget (greedy packing, src/retrieval/pack.ts),
 * display-turn dedup (src/retrieval/assemble.ts), the generic cap for evidence a source assembled
 * itself, answer-sufficiency coverage, and the ablation grid over both controls.
 */
import { describe, expect, it } from 'vitest';
import { assemble } from '../../src/retrieval/assemble.js';
import { ingest } from '../../src/retrieval/chunk.js';
import { capEvidence, packGreedy } from '../../src/retrieval/pack.js';
import { countTokens } from '../../src/retrieval/tokenizer.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { answerContained } from '../../src/core/answer-sufficiency.js';
import { checkEvidence } from '../../src/pipeline/evidence-checks.js';
import { baseItem } from '../../src/core/item.js';
import { getBenchmark } from '../../src/benchmarks/registry.js';
import { planVariants } from '../../src/ablate/variants.js';
import { RunConfigSchema } from '../../src/systems/registry.js';
import type { Question } from '../../src/core/schema.js';
import { episodeOf } from '../helpers/episodes.js';

const words = (n: number, w: string) => Array.from({ length: n }, () => w).join(' ');
// Six turns of ~40 tokens each, in windows of 64 with stride 32: every window shares turns with its neighbours.
const ep = ingest(episodeOf(Array.from({ length: 6 }, (_, i) => words(40, `w${i}`))), 6, DEFAULT_POLICY, {
  tokenizer: 'cl100k_base',
  size: 64,
  stride: 32,
});
/** Tokens of these turns as ingest counted them (what evidence_tokens reports). */
const ingestTokens = (ts: number[]) => ts.reduce((s, t) => s + ep.turnTokenStart[t + 1]! - ep.turnTokenStart[t]!, 0);
const hits = ep.chunks.map((c) => ({ chunk: c.index, score: 1 }));

const question = (over: Partial<Question> = {}): Question => ({
  id: 'q',
  episode: 'ep',
  type: 't',
  typeId: null,
  text: 'where?',
  gold: 'Paris',
  acceptable: ['Paris'],
  questionDate: null,
  evidence: [],
  options: null,
  visibleTurns: null,
  ...over,
});

describe('display-turn dedup', () => {
  it('a turn shared by overlapping windows is shown once by default and once per window with dedup off', () => {
    const once = assemble(ep, hits, DEFAULT_POLICY);
    const repeated = assemble(ep, hits, { ...DEFAULT_POLICY, dedupTurns: false });
    expect(new Set(once.turnIds).size).toBe(once.turnIds.length);
    expect(repeated.turnIds.length).toBeGreaterThan(once.turnIds.length);
    expect(new Set(repeated.turnIds)).toEqual(new Set(once.turnIds));
    expect(repeated.tokens).toBeGreaterThan(once.tokens);
    expect(repeated.tokens).toBe(ingestTokens(repeated.turnIndices));
  });
});

describe('evidence budget', () => {
  it('packs windows in rank order, skipping what does not fit; no window is cut', () => {
    const full = assemble(ep, hits, DEFAULT_POLICY);
    for (const budget of [50, 100, 150, full.tokens - 1]) {
      const e = assemble(ep, hits, { ...DEFAULT_POLICY, maxEvidenceTokens: budget });
      expect(e.tokens).toBeLessThanOrEqual(budget);
      expect(e.tokens).toBe(ingestTokens(e.turnIndices));
    }
    expect(assemble(ep, hits, { ...DEFAULT_POLICY, maxEvidenceTokens: 0 })).toEqual(full);
    expect(packGreedy([5, 9, 3, 4], 12, (x) => x)).toEqual([5, 3, 4]);
    expect(packGreedy([5, 9], null, (x) => x)).toEqual([5, 9]);
  });

  it('caps evidence a source assembled itself: whole blocks while they fit, a memory block cut at the budget', () => {
    const texts = ['alpha beta gamma', words(30, 'x'), 'delta'];
    const blocks = texts.map((text, t) => ({ text, turns: [t], kind: 'history' as const }));
    const e = { turnIndices: [0, 1, 2], turnIds: ['a', 'b', 'c'], blocks, tokens: texts.reduce((s, b) => s + countTokens(b), 0) };
    const capped = capEvidence(e, 10);
    expect(capped.blocks.map((b) => b.text)).toEqual(['alpha beta gamma', 'delta']);
    expect(capped.turnIds).toEqual(['a', 'c']);
    const memory = words(50, 'memory');
    const r = capEvidence(
      { turnIndices: [], turnIds: [], blocks: [{ text: memory, turns: [3], kind: 'memory' }], tokens: countTokens(memory) },
      20,
    );
    expect(r.tokens).toBeLessThanOrEqual(20);
    expect(r.blocks).toHaveLength(1);
    expect(r.blocks[0]!.kind).toBe('memory');
    expect(memory.startsWith(r.blocks[0]!.text)).toBe(true);
    expect(capEvidence(e, undefined)).toBe(e);
  });

  it('the pipeline check records the cap and recomputes coverage on what is left', () => {
    const texts = [words(30, 'x'), 'Paris'];
    const blocks = texts.map((text, t) => ({ text, turns: [t], kind: 'history' as const }));
    const q = question({ evidence: ['D1:1'] });
    const item = baseItem(q, 'locomo');
    const e = { turnIndices: [0, 1], turnIds: ['D1:1', 'D1:2'], blocks, tokens: texts.reduce((s, b) => s + countTokens(b), 0) };
    const out = checkEvidence(q, item, e, { benchmark: getBenchmark('locomo'), policy: { ...DEFAULT_POLICY, maxEvidenceTokens: 5 }, ep });
    expect(out.turnIds).toEqual(['D1:2']);
    expect(item.evidence_turns).toEqual(['D1:2']);
    expect(item.coverage).toEqual({ all: false, any: false });
    expect(item.details.evidence_cap).toEqual({ budget: 5, tokens_before: e.tokens });
  });
});

describe('answer-sufficiency coverage', () => {
  it('whole normalised tokens of any accepted answer, never inside another token', () => {
    expect(answerContained(question(), ['She moved to PARIS, France.'])).toBe(1);
    expect(answerContained(question({ gold: '43', acceptable: ['43'] }), ['room 143'])).toBe(0);
    expect(answerContained(question({ gold: 'The Louvre', acceptable: ['The Louvre'] }), ['we saw louvre'])).toBe(1);
    expect(answerContained(question({ gold: '', acceptable: [] }), ['x'])).toBeNull();
  });

  it('fills coverage where a MemoryAgentBench question has no gold turns, and leaves LoCoMo (no rule) unknown', () => {
    const q = question();
    const mab = baseItem(q, 'memoryagentbench');
    checkEvidence(
      q,
      mab,
      { turnIndices: [], turnIds: [], blocks: [{ text: '1. The capital is Paris.', turns: [], kind: 'history' }], tokens: 6 },
      { benchmark: getBenchmark('memoryagentbench'), policy: DEFAULT_POLICY, ep },
    );
    expect(mab.coverage).toEqual({ all: true, any: true });
    expect(mab.details.coverage_rule).toBe('answer-in-evidence');
    const loc = baseItem(q, 'locomo');
    checkEvidence(
      q,
      loc,
      { turnIndices: [], turnIds: [], blocks: [{ text: 'Paris', turns: [], kind: 'history' }], tokens: 1 },
      { benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY, ep },
    );
    expect(loc.coverage).toBeNull();
  });
});

describe('ablation grid over the evidence controls', () => {
  it('budgets and the other display are variants of their own; the reference keeps the base config bit for bit', () => {
    // The default display is the paper's (a shared turn repeated): the other display is dedup.
    const base = RunConfigSchema.parse({ benchmark: 'locomo' });
    const vs = planVariants(base, DEFAULT_POLICY, {
      k: [],
      window: [],
      stride: null,
      candidates: [],
      noRerank: false,
      noExpand: false,
      maxEvidenceTokens: [5000],
      noDedup: true,
    });
    expect(vs.map((v) => v.name)).toEqual(['default', 'dedup', 'max-evidence=5000', 'max-evidence=5000,dedup']);
    const once = planVariants(RunConfigSchema.parse({ benchmark: 'locomo', assembly: { dedup: true } }), DEFAULT_POLICY, {
      k: [],
      window: [],
      stride: null,
      candidates: [],
      noRerank: false,
      noExpand: false,
      noDedup: true,
    });
    expect(once.map((v) => v.name)).toEqual(['default', 'no-dedup']);
    expect(vs[0]!.cfg).toEqual(base);
    expect(vs.find((v) => v.name === 'max-evidence=5000,dedup')!.cfg.assembly).toMatchObject({ maxEvidenceTokens: 5000, dedup: true });
  });
});
