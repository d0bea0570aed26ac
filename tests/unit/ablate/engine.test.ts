/**
 * The ablation engine in process, with an instrumented retriever: the local first stage plus a
 * deterministic reranker, both counting their calls through the Retriever interfaces. (The
 * loopback-server version of the rerank count is in tests/e2e/ablate-models.test.ts.)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { RunConfig } from '../../../src/config/schema.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { DEFAULT_POLICY } from '../../../src/core/policy.js';
import { createLocalRetriever } from '../../../src/retrieval/local/index.js';
import type { Retriever } from '../../../src/core/retriever.js';
import { executeRun } from '../../../src/pipeline/run.js';
import { RunDir } from '../../../src/run-files/run-dir.js';
import type { ItemRecord } from '../../../src/core/item.js';
import { rawRagSource } from '../../../src/systems/raw-rag/source.js';
import { runAblation } from '../../../src/ablate/engine.js';
import type { AblationOutcome } from '../../../src/ablate/types.js';
import { planVariants, type SweepRequest } from '../../../src/ablate/variants.js';
import { tempDir } from '../../helpers/cli.js';

const LIMIT = 24; // questions of conv-26 only: one episode, one index per window size
const quiet = { log() {} };

interface Counts {
  prepare: number;
  search: number;
  rerank: number;
  topN: number[];
  candidates: number[];
}

/** Local first stage + a reranker that prefers later windows (deterministic, independent of topN). */
function instrumented(counts: Counts): Retriever {
  const local = createLocalRetriever();
  return {
    name: 'instrumented',
    notes: [],
    cheapDeepRanking: false,
    firstStage: {
      name: 'counted',
      async prepare(ep) {
        counts.prepare++;
        const index = await local.firstStage.prepare(ep);
        return {
          async search(q, k) {
            counts.search++;
            return index.search(q, k);
          },
        };
      },
    },
    reranker: {
      name: 'recency',
      async rerank(_q, candidates, _ep, topN) {
        counts.rerank++;
        counts.topN.push(topN);
        counts.candidates.push(candidates.length);
        return [...candidates]
          .sort((a, b) => b.chunk - a.chunk)
          .slice(0, topN)
          .map((h) => ({ chunk: h.chunk, score: h.chunk }));
      },
    },
  };
}

const base = RunConfigSchema.parse({ benchmark: 'locomo', limit: LIMIT });
const none: SweepRequest = { k: [], window: [], stride: null, candidates: [], noRerank: false, noExpand: false };

function byVariant(o: AblationOutcome): Map<string, Map<string, ItemRecord>> {
  // Full items (with their retrieval lists) as written to disk.
  return new Map(o.variants.map((v) => [v.variant.name, new Map(new RunDir(v.dir).readItems().map((i) => [i.id, i]))]));
}

describe('a k sweep with reranking on and off', () => {
  const counts: Counts = { prepare: 0, search: 0, rerank: 0, topN: [], candidates: [] };
  const out = join(tempDir(), 'abl');
  const variants = planVariants(base, DEFAULT_POLICY, { ...none, k: [1, 5, 30], noRerank: true });
  let outcome: AblationOutcome;
  let items: Map<string, Map<string, ItemRecord>>;

  beforeAll(async () => {
    outcome = await runAblation({ base, variants, out }, quiet, { source: rawRagSource(instrumented(counts)) });
    items = byVariant(outcome);
  });

  it('builds one index, searches once and reranks once per question for the whole sweep', () => {
    expect(variants.map((v) => v.name)).toEqual([
      'default',
      'k=1',
      'k=5',
      'k=30',
      'k=1,no-rerank',
      'k=5,no-rerank',
      'no-rerank',
      'k=30,no-rerank',
    ]);
    expect(counts.prepare).toBe(1);
    expect(counts.search).toBe(LIMIT);
    expect(counts.rerank).toBe(LIMIT);
    // Each rerank call is as deep as the deepest k of the sweep, over the full candidate set.
    expect(new Set(counts.topN)).toEqual(new Set([30]));
    expect(Math.max(...counts.candidates)).toBeLessThanOrEqual(128);
    expect(outcome.work).toMatchObject({ indexBuilds: 1, searches: LIMIT, rerankCalls: LIMIT, windowSizes: 1 });
  });

  it('derives every k as a prefix of the same ranking', () => {
    const deep = items.get('k=30')!;
    for (const name of ['k=1', 'k=5', 'default']) {
      const k = name === 'default' ? 15 : Number(name.slice(2));
      for (const [id, item] of items.get(name)!) {
        expect(item.retrieved.map((r) => r.chunk)).toEqual(
          deep
            .get(id)!
            .retrieved.slice(0, k)
            .map((r) => r.chunk),
        );
      }
    }
  });

  it('gives no-rerank variants the first-stage order from the same search', () => {
    for (const item of items.get('no-rerank')!.values()) {
      expect(item.retrieved.map((r) => r.first_stage_rank)).toEqual(item.retrieved.map((_, i) => i + 1));
    }
    // ... and reranked variants really were reordered (the recency reranker disagrees with BM25).
    const reordered = [...items.get('default')!.values()].filter((i) => i.retrieved.some((r, j) => r.first_stage_rank !== j + 1));
    expect(reordered.length).toBeGreaterThan(LIMIT / 2);
  });

  it('never loses coverage as k grows when expansion and ordering are fixed', () => {
    for (const family of [
      ['k=1', 'k=5', 'default', 'k=30'],
      ['k=1,no-rerank', 'k=5,no-rerank', 'no-rerank', 'k=30,no-rerank'],
    ]) {
      for (const id of items.get('default')!.keys()) {
        const chain = family.map((n) => items.get(n)!.get(id)!);
        for (let i = 1; i < chain.length; i++) {
          const [small, big] = [chain[i - 1]!, chain[i]!];
          expect(new Set(big.evidence_turns)).toEqual(new Set([...big.evidence_turns, ...small.evidence_turns]));
          if (small.coverage === null) continue;
          expect(Number(big.coverage!.all)).toBeGreaterThanOrEqual(Number(small.coverage.all));
          expect(Number(big.coverage!.any)).toBeGreaterThanOrEqual(Number(small.coverage.any));
        }
      }
    }
  });

  it('writes each variant as a complete run directory whose system names the variant', () => {
    for (const v of outcome.variants) {
      const m = new RunDir(v.dir).readManifest();
      expect(m.status).toBe('complete');
      expect(m.system).toBe(v.variant.isDefault ? 'RAW-RAG/instrumented' : `RAW-RAG/instrumented ${v.variant.name}`);
      expect(m.setting).toBe('locomo/no-reader');
      expect(m.config.retrieval.k).toBe(v.variant.k);
      expect(m.questions).toMatchObject({ selected: LIMIT, done: LIMIT });
      expect(v.summary.n).toBe(LIMIT);
    }
  });

  it('resumes: a second identical ablation searches and reranks nothing', async () => {
    const again: Counts = { prepare: 0, search: 0, rerank: 0, topN: [], candidates: [] };
    const second = await runAblation({ base, variants, out }, quiet, { source: rawRagSource(instrumented(again)) });
    expect([again.prepare, again.search, again.rerank]).toEqual([0, 0, 0]);
    expect(second.variants.map((v) => v.summary.overall.coverage)).toEqual(outcome.variants.map((v) => v.summary.overall.coverage));
  });
});

describe('window sizes', () => {
  it('ingests and indexes once per window size, searching once per question and size', async () => {
    const counts: Counts = { prepare: 0, search: 0, rerank: 0, topN: [], candidates: [] };
    const variants = planVariants(base, DEFAULT_POLICY, { ...none, k: [5], window: [128, 512] });
    const o = await runAblation({ base, variants, out: join(tempDir(), 'w') }, quiet, { source: rawRagSource(instrumented(counts)) });
    expect(counts.prepare).toBe(3);
    expect(counts.search).toBe(3 * LIMIT);
    expect(counts.rerank).toBe(3 * LIMIT);
    const w128 = o.variants.find((v) => v.variant.name === 'window=128,k=5')!;
    expect(w128.manifest.config.chunking).toMatchObject({ size: 128, stride: 96 });
    // Smaller windows at the same k show fewer tokens.
    const tokens = (name: string) => o.variants.find((v) => v.variant.name === name)!.summary.evidence_tokens_mean!;
    expect(tokens('window=128,k=5')).toBeLessThan(tokens('k=5'));
    expect(tokens('k=5')).toBeLessThan(tokens('window=512,k=5'));
  });
});

describe('fidelity to rawrag run', () => {
  it('writes the reference variant exactly as `rawrag run` writes the same config', async () => {
    const cfg: RunConfig = base;
    const variants = planVariants(cfg, DEFAULT_POLICY, { ...none, k: [5, 60] });
    const abl = await runAblation({ base: cfg, variants, out: join(tempDir(), 'f') }, quiet);
    const run = await executeRun({ cfg, out: join(tempDir(), 'run') }, quiet);
    const strip = (i: ItemRecord) => ({ ...i, timings: {} });
    const fromRun = new RunDir(run.dir).readItems().map(strip);
    const fromAbl = new RunDir(abl.variants[0]!.dir).readItems().map(strip);
    expect(fromAbl).toEqual(fromRun);
    const m = abl.variants[0]!.manifest;
    expect([m.run_id, m.config_hash, m.system]).toEqual([run.manifest.run_id, run.manifest.config_hash, run.manifest.system]);
    const { run_id: _a, ...sumAbl } = abl.variants[0]!.summary;
    const { run_id: _b, ...sumRun } = run.summary;
    expect(sumAbl).toEqual(sumRun);
  });
});
