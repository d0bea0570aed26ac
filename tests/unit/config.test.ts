import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { mergeLayers, readConfigFile, resolveConfig } from '../../src/config/load.js';
import { runIdFor } from '../../src/pipeline/plan.js';
import { ROOT } from '../helpers/cli.js';

describe('run configuration', () => {
  it("defaults are the paper's", () => {
    const cfg = resolveConfig({ benchmark: 'locomo' }, 'test');
    expect(cfg.chunking).toEqual({ tokenizer: 'cl100k_base', size: 256, stride: 224 });
    expect(cfg.retrieval).toEqual({ retriever: 'local', candidates: 128, k: 15, rerank: true });
    expect(cfg.judge).toMatchObject({ model: 'gpt-4o-mini', runs: 3, temperature: 0 });
    expect(cfg.reader.temperature).toBe(0);
    expect(cfg.seed).toBe(0);
  });

  it('configs/paper.yaml is valid and spells out exactly the defaults (same run id)', () => {
    const file = readConfigFile(join(ROOT, 'configs/paper.yaml'));
    const fromFile = resolveConfig(file, 'configs/paper.yaml');
    const defaults = resolveConfig({ benchmark: 'locomo' }, 'test');
    expect(fromFile).toEqual(defaults);
    expect(runIdFor(fromFile)).toBe(runIdFor(defaults));
  });

  it('a window size without a stride keeps the 32-token overlap, from a config file as from flags', () => {
    expect(resolveConfig({ benchmark: 'locomo', chunking: { size: 512 } }, 'c.yaml').chunking).toMatchObject({ size: 512, stride: 480 });
    expect(resolveConfig({ benchmark: 'locomo', chunking: { size: 512, stride: 512 } }, 'c.yaml').chunking).toMatchObject({ size: 512, stride: 512 });
  });

  it('retriever and system are closed lists, named in the error', () => {
    expect(() => resolveConfig({ benchmark: 'locomo', retrieval: { retriever: 'bm99' } }, 'c.yaml')).toThrow(/c\.yaml: retrieval\.retriever: unknown retriever 'bm99' \(known: local, local-lexical, openai, qwen3, full-context\)/);
    expect(() => resolveConfig({ benchmark: 'locomo', system: 'mem0' }, 'c.yaml')).toThrow(/c\.yaml: system: unknown system 'mem0'/);
    expect(resolveConfig({ benchmark: 'locomo' }, 'x').system).toBe('raw-rag');
  });

  it('later layers win, objects merge key by key', () => {
    const merged = mergeLayers({ benchmark: 'locomo', retrieval: { k: 5, candidates: 64 } }, { retrieval: { k: 10 } });
    expect(resolveConfig(merged, 'x').retrieval).toMatchObject({ k: 10, candidates: 64 });
  });

  it('the run id changes with any semantic setting and is stable otherwise', () => {
    const a = resolveConfig({ benchmark: 'locomo' }, 'x');
    const b = resolveConfig({ benchmark: 'locomo', retrieval: { k: 5 } }, 'x');
    expect(runIdFor(a)).toBe(runIdFor(resolveConfig({ benchmark: 'locomo' }, 'y')));
    expect(runIdFor(a)).not.toBe(runIdFor(b));
    expect(runIdFor(a)).toMatch(/^locomo-local-retrieval-[0-9a-f]{10}$/);
  });

  it('rejects unknown keys and impossible values, naming the key', () => {
    expect(() => resolveConfig({ benchmark: 'locomo', chunking: { size: 10, stride: 20 } }, 'c.yaml')).toThrow(/c\.yaml: chunking\.stride/);
    expect(() => resolveConfig({ benchmark: 'locomo', retrieval: { k: 0 } }, 'c.yaml')).toThrow(/retrieval\.k/);
    expect(() => resolveConfig({ benchmark: 'locomo', bogus: 1 }, 'c.yaml')).toThrow(/bogus/);
  });
});
