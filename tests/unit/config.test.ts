import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { mergeLayers, readConfigFile, resolveConfig } from '../../src/config/load.js';
import { runIdFor } from '../../src/pipeline/plan.js';
import { ROOT } from '../helpers/cli.js';
import { readdirSync } from 'node:fs';
import { withOfficialJudge } from '../../src/cli/options.js';
import { PAPER_ROWS, paperRow } from '../../src/benchmarks/paper-rows.js';
import { RunConfigSchema } from '../../src/systems/registry.js';

const resolveWith = (merged: Parameters<typeof resolveConfig>[0], source: string) => resolveConfig(merged, source, RunConfigSchema);

describe('run configuration', () => {
  it("defaults are the paper's", () => {
    const cfg = resolveWith({ benchmark: 'locomo' }, 'test');
    expect(cfg.chunking).toEqual({ tokenizer: 'cl100k_base', size: 256, stride: 224 });
    expect(cfg.retrieval).toEqual({ retriever: 'local', candidates: 128, k: 15, rerank: true });
    // null = the benchmark's official judge / reader budget, resolved per benchmark.
    expect(cfg.judge).toEqual({ model: null, runs: 3, temperature: 0 });
    expect(cfg.reader).toEqual({ model: null, temperature: 0, maxTokens: null });
    expect(cfg.seed).toBe(0);
  });

  it('configs/paper.yaml is valid and spells out exactly the defaults (same run id)', () => {
    const file = readConfigFile(join(ROOT, 'configs/paper.yaml'));
    const fromFile = resolveWith(file, 'configs/paper.yaml');
    const defaults = resolveWith({ benchmark: 'locomo' }, 'test');
    expect(fromFile).toEqual(defaults);
    expect(runIdFor(fromFile)).toBe(runIdFor(defaults));
  });

  it('a window size without a stride keeps the 32-token overlap, from a config file as from flags', () => {
    expect(resolveWith({ benchmark: 'locomo', chunking: { size: 512 } }, 'c.yaml').chunking).toMatchObject({ size: 512, stride: 480 });
    expect(resolveWith({ benchmark: 'locomo', chunking: { size: 512, stride: 512 } }, 'c.yaml').chunking).toMatchObject({
      size: 512,
      stride: 512,
    });
  });

  it('retriever and system are closed lists, named in the error', () => {
    expect(() => resolveWith({ benchmark: 'locomo', retrieval: { retriever: 'bm99' } }, 'c.yaml')).toThrow(
      /c\.yaml: retrieval\.retriever: unknown retriever 'bm99' \(known: local, local-lexical, local-dense, openai, qwen3, full-context\)/,
    );
    expect(() => resolveWith({ benchmark: 'locomo', system: 'no-such-memory' }, 'c.yaml')).toThrow(
      /c\.yaml: system: unknown system 'no-such-memory' \(known: raw-rag, /,
    );
    expect(resolveWith({ benchmark: 'locomo' }, 'x').system).toBe('raw-rag');
  });

  it("configs/paper.yaml never replaces a benchmark's official judge (a value equal to a default changes nothing)", () => {
    const file = readConfigFile(join(ROOT, 'configs/paper.yaml'));
    const official: Record<string, string> = {
      locomo: 'gpt-4o-mini',
      longmemeval: 'gpt-4o-2024-08-06',
      meme: 'gpt-4o',
      memoryagentbench: 'gpt-4o',
      personamem: 'gpt-4o-mini',
      beam: 'gpt-4.1-mini',
    };
    for (const [benchmark, judge] of Object.entries(official)) {
      const fromFile = withOfficialJudge(resolveWith({ ...file, benchmark }, 'configs/paper.yaml'));
      const defaults = withOfficialJudge(resolveWith({ benchmark }, 'test'));
      expect(fromFile, benchmark).toEqual(defaults);
      expect(fromFile.judge.model, benchmark).toBe(judge);
    }
    // A judge named in a file still wins.
    expect(withOfficialJudge(resolveWith({ benchmark: 'longmemeval', judge: { model: 'gpt-4o-mini' } }, 'x')).judge.model).toBe(
      'gpt-4o-mini',
    );
  });

  it('reader.maxTokens: null (official), a positive number, or none (never sent)', () => {
    expect(resolveWith({ benchmark: 'locomo', reader: { maxTokens: 'none' } }, 'x').reader.maxTokens).toBe('none');
    expect(resolveWith({ benchmark: 'locomo', reader: { maxTokens: 300 } }, 'x').reader.maxTokens).toBe(300);
    expect(() => resolveWith({ benchmark: 'locomo', reader: { maxTokens: 0 } }, 'c.yaml')).toThrow(/c\.yaml: reader\.maxTokens/);
    expect(() => resolveWith({ benchmark: 'locomo', reader: { maxTokens: 'all' } }, 'c.yaml')).toThrow(/reader\.maxTokens/);
  });

  it('configs/paper/ holds one config per paper row, each resolving to its row', () => {
    const files = readdirSync(join(ROOT, 'configs/paper'))
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    const matched = files.map((f) => {
      const cfg = resolveWith(readConfigFile(join(ROOT, 'configs/paper', f)), f);
      const row = paperRow(cfg.benchmark, cfg.reader.model, cfg.retrieval.retriever);
      expect(row, f).toBeDefined();
      // Everything else is the paper's default.
      expect(cfg.chunking, f).toEqual({ tokenizer: 'cl100k_base', size: 256, stride: 224 });
      expect({ ...cfg.retrieval, retriever: 'x' }, f).toEqual({ retriever: 'x', candidates: 128, k: 15, rerank: true });
      expect(cfg.judge, f).toEqual({ model: null, runs: 3, temperature: 0 });
      return row!;
    });
    expect(new Set(matched).size).toBe(files.length);
    expect([...matched].sort((a, b) => PAPER_ROWS.indexOf(a) - PAPER_ROWS.indexOf(b))).toEqual([...PAPER_ROWS]);
  });

  // Issue 34, problem 5: the paper's display (a turn shared by overlapping windows repeated) is the
  // default and every paper config's; dedup is an option and a control.
  it("the paper's display is the default and every paper config's (assembly.dedup false)", () => {
    expect(resolveWith({ benchmark: 'locomo' }, 'x').assembly.dedup).toBe(false);
    expect(resolveWith(readConfigFile(join(ROOT, 'configs/paper.yaml')), 'configs/paper.yaml').assembly.dedup).toBe(false);
    for (const f of readdirSync(join(ROOT, 'configs/paper')).filter((x) => x.endsWith('.yaml'))) {
      const file = readConfigFile(join(ROOT, 'configs/paper', f)) as { assembly?: { dedup?: boolean } };
      expect(file.assembly?.dedup, f).toBe(false);
      expect(resolveWith(file, f).assembly.dedup, f).toBe(false);
    }
    expect(resolveWith({ benchmark: 'locomo', assembly: { dedup: true } }, 'x').assembly.dedup).toBe(true);
  });

  it('later layers win, objects merge key by key', () => {
    const merged = mergeLayers({ benchmark: 'locomo', retrieval: { k: 5, candidates: 64 } }, { retrieval: { k: 10 } });
    expect(resolveWith(merged, 'x').retrieval).toMatchObject({ k: 10, candidates: 64 });
  });

  it('the run id changes with any semantic setting and is stable otherwise', () => {
    const a = resolveWith({ benchmark: 'locomo' }, 'x');
    const b = resolveWith({ benchmark: 'locomo', retrieval: { k: 5 } }, 'x');
    expect(runIdFor(a)).toBe(runIdFor(resolveWith({ benchmark: 'locomo' }, 'y')));
    expect(runIdFor(a)).not.toBe(runIdFor(b));
    expect(runIdFor(a)).toMatch(/^locomo-local-retrieval-[0-9a-f]{10}$/);
  });

  it('rejects unknown keys and impossible values, naming the key', () => {
    expect(() => resolveWith({ benchmark: 'locomo', chunking: { size: 10, stride: 20 } }, 'c.yaml')).toThrow(/c\.yaml: chunking\.stride/);
    expect(() => resolveWith({ benchmark: 'locomo', retrieval: { k: 0 } }, 'c.yaml')).toThrow(/retrieval\.k/);
    expect(() => resolveWith({ benchmark: 'locomo', bogus: 1 }, 'c.yaml')).toThrow(/bogus/);
  });
});
