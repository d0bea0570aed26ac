import { describe, expect, it } from 'vitest';
import { batchCosts } from '../../../src/providers/batch/estimate.js';
import { loadRegistry, pricesFor, resolveModel } from '../../../src/providers/models.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers/cli.js';

describe('batch prices', () => {
  const reg = loadRegistry();
  const model = (name: string, role: string) => resolveModel(reg, name, role === 'embed' ? 'embed' : role === 'rerank' ? 'rerank' : 'chat');

  it('the registry gives OpenAI chat and embedding models batch prices at half the listed ones', () => {
    for (const name of ['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4o', 'gpt-4o-2024-08-06', 'gpt-4.1', 'text-embedding-3-small']) {
      const m = reg.models[name]!;
      expect(m.batchPrices, name).toBeDefined();
      expect(m.batchPrices!.input).toBeCloseTo(m.prices.input! / 2, 10);
      if (m.prices.output !== undefined) expect(m.batchPrices!.output).toBeCloseTo(m.prices.output / 2, 10);
      expect(pricesFor(m, true)).toBe(m.batchPrices);
      expect(pricesFor(m, false)).toBe(m.prices);
    }
    expect(reg.models['deepseek-chat']!.batchPrices).toBeUndefined();
  });

  it('--dry-run --batch: reader and judge at batch prices, retrieval unchanged, models without a batch API unknown', () => {
    const roles = [
      { role: 'embed' as const, model: 'text-embedding-3-small', input_tokens: 1e6, output_tokens: 0, search_units: 0, cost_usd: 0.02 },
      { role: 'rerank' as const, model: 'rerank-v3.5', input_tokens: 0, output_tokens: 0, search_units: 1000, cost_usd: 2 },
      { role: 'reader' as const, model: 'gpt-4o-mini', input_tokens: 2e6, output_tokens: 1e6, search_units: 0, cost_usd: 0.9 },
      { role: 'judge' as const, model: 'gpt-4o', input_tokens: 1e6, output_tokens: 0, search_units: 0, cost_usd: 2.5 },
    ];
    const b = batchCosts(roles, model);
    expect(b.perRole[0]).toBe(0.02);
    expect(b.perRole[1]).toBe(2);
    expect(b.perRole[2]).toBeCloseTo(0.45, 10);
    expect(b.perRole[3]).toBeCloseTo(1.25, 10);
    expect(b.total).toBeCloseTo(0.02 + 2 + 0.45 + 1.25, 10);
    const ds = batchCosts([{ ...roles[2]!, model: 'deepseek-chat' }], model);
    expect(ds.total).toBeNull();
    expect(ds.notes[0]).toMatch(/deepseek-chat' has no batch prices/);
  });

  it('batchPrices and batchLimits are schema-checked with the file and place named', () => {
    const f = join(tempDir(), 'models.yaml');
    writeFileSync(f, 'models:\n  m:\n    kind: chat\n    protocol: openai\n    provider: p\n    batchPrices: { input: -1 }\n');
    expect(() => loadRegistry(f)).toThrow(/models\.m\.batchPrices\.input/);
    writeFileSync(f, 'models:\n  m:\n    kind: chat\n    protocol: openai\n    provider: p\n    batchLimits: { requests: 10 }\n');
    expect(loadRegistry(f).models.m!.batchLimits).toEqual({ requests: 10, bytes: 200 * 1024 * 1024 });
  });
});
