/**
 * `rawrag ablate --system agentic-memory` sweeping the memory system's own knobs (injection
 * budget, de-duplication threshold, recall weights) through the real CLI against the loopback
 * extractor: every variant is a plain run directory, the extraction requests are sent once (the
 * reference's), later variants get them from the response cache, and the table is the paired one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeExtractor } from '../helpers/fake-extractor.js';
import { locomoRunArgs, loopbackEnv } from '../helpers/loopback-run.js';

const env = loopbackEnv({ openai: 'sk-test-ABLATEMEMORY0123456789', cohere: 'co-test-ABLATEMEMORY987654321' });

describe('rawrag ablate over memory.* values', () => {
  const fake = new FakeExtractor({});
  const cache = tempDir('rawrag-abmem-cache-');
  const out = join(tempDir('rawrag-abmem-'), 'ablation');
  const args = (...extra: string[]) =>
    locomoRunArgs({ command: 'ablate', system: 'agentic-memory', retriever: 'openai', limit: 12, out, peer: fake, cache, extra });
  const sweep = ['-S', 'items=2,8', '-S', 'tokens=300', '-S', 'dedupThreshold=0.5', '-S', 'weights=1/0/0/0'];
  let res: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    await fake.start();
    res = await rawragInProcess(args(...sweep), env);
  }, 300_000);
  afterAll(() => fake.close());

  const summaryOf = (variant: string) => JSON.parse(readFileSync(join(out, variant, 'summary.json'), 'utf8'));
  const itemsOf = (variant: string) =>
    readFileSync(join(out, variant, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));

  it('one run directory per variant, the reference first, named after what differs', () => {
    expect(res.code, res.stderr).toBe(0);
    const ab = JSON.parse(readFileSync(join(out, 'ablation.json'), 'utf8'));
    expect(ab.system).toBe('agentic-memory/gpt-4o-mini');
    const names = ab.variants.map((v: { name: string }) => v.name);
    // 3 item counts x 2 budgets x 2 thresholds x 2 weightings, the reference first.
    expect(names).toHaveLength(24);
    expect(names[0]).toBe('default');
    expect(new Set(names).size).toBe(24);
    for (const n of ['items=2', 'items=8', 'tokens=300', 'dedup=0.5', 'weights=1/0/0/0', 'items=8,tokens=300,dedup=0.5,weights=1/0/0/0'])
      expect(names).toContain(n);
    const manifest = JSON.parse(readFileSync(join(out, 'items=2', 'manifest.json'), 'utf8'));
    expect(manifest.system).toBe('agentic-memory/gpt-4o-mini items=2');
    expect(manifest.config.memory.items).toBe(2);
    // The reference is the base config bit for bit: no memory section was added to it.
    expect(JSON.parse(readFileSync(join(out, 'default', 'manifest.json'), 'utf8')).config.memory).toBeUndefined();
  });

  it('extraction is sent once: the reference pays it, every other variant gets it from the response cache', () => {
    const ref = summaryOf('default');
    expect(ref.memory.this_run.requests).toBeGreaterThan(0);
    expect(fake.extractionRequests()).toHaveLength(ref.memory.this_run.requests);
    const bodies = fake.extractionRequests().map((r) => JSON.stringify(r.body.messages));
    expect(new Set(bodies).size).toBe(bodies.length);
    for (const v of ['items=2', 'dedup=0.5', 'tokens=300,weights=1/0/0/0', 'items=8,tokens=300,dedup=0.5,weights=1/0/0/0']) {
      const s = summaryOf(v);
      expect(s.memory.this_run.requests, v).toBe(0);
      expect(s.memory.this_run.cache_hits, v).toBe(ref.memory.this_run.requests);
      // Its store's cost is what was sent for it: nothing (cache answers are neither calls nor dollars).
      expect(s.memory.ingest.extraction_calls, v).toBe(0);
      expect(s.memory.ingest.cost_usd, v).toBe(0);
      expect(s.memory.ingest.cache_hits, v).toBe(ref.memory.ingest.extraction_calls);
    }
    expect(res.stdout).toMatch(/items=2: extraction requests sent 0, answered by the cache \d+/);
  });

  it('each variant recalls under its own budget and threshold', () => {
    expect(Math.max(...itemsOf('items=2').map((i) => i.recalled.length))).toBe(2);
    expect(Math.max(...itemsOf('items=8').map((i) => i.recalled.length))).toBeGreaterThan(5);
    expect(Math.max(...itemsOf('tokens=300').map((i) => i.evidence_tokens))).toBeLessThanOrEqual(300);
    // Cosine alone: each recalled score is its cosine part.
    for (const i of itemsOf('weights=1/0/0/0')) for (const r of i.recalled) expect(r.score).toBeCloseTo(r.parts.cos, 5);
    // A lower de-duplication threshold merges more of the scripted items.
    expect(summaryOf('dedup=0.5').memory.items.merged).toBeGreaterThanOrEqual(summaryOf('default').memory.items.merged);
  });

  it("the paired table comes from rawrag stats's machinery, the reference as baseline", () => {
    const ab = JSON.parse(readFileSync(join(out, 'ablation.json'), 'utf8'));
    expect(ab.metric).toBe('accuracy');
    const rows = ab.table as Array<{ variant: string; paired: number; delta: number | null; questions: number }>;
    expect(rows[0]).toMatchObject({ variant: 'default', paired: 0, delta: null });
    for (const r of rows.slice(1)) {
      expect(r.questions).toBe(12);
      expect(r.paired).toBe(12);
      expect(r.delta).not.toBeNull();
    }
    expect(res.stdout).toMatch(/agentic-memory\/gpt-4o-mini ablation on locomo — 24 variants, 12 questions each/);
  });

  it('a second identical ablation sends nothing', async () => {
    const before = fake.api.count();
    const again = await rawragInProcess(args(...sweep), env);
    expect(again.code, again.stderr).toBe(0);
    expect(fake.api.count()).toBe(before);
  }, 300_000);

  it('a memory sweep on a system without those options is refused (exit 1, a usage error like any bad -S)', async () => {
    const r = await rawragInProcess(
      ['ablate', 'locomo', '--retriever', 'local', '-S', 'items=3', '--out', join(tempDir('rawrag-abmem-x-'), 'a'), '--no-progress'],
      env,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/-S: system 'raw-rag' has no options/);
  });
});
