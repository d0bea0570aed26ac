/**
 * The agentic memory system on every benchmark rawrag loads (the small fixtures), through the real
 * CLI and a loopback extractor: ingest and recall work whatever the benchmark's chunking and
 * serialisation; MEME's questions recall only items built from the turns visible when they are
 * asked; and every benchmark's own reader prompt shows the recalled block in place of the history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getBenchmark } from '../../src/benchmarks/registry.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeExtractor } from '../helpers/fake-extractor.js';
import { memoryBlock, turnBlocks } from '../helpers/evidence.js';

const FIX = join(ROOT, 'tests/fixtures');
const beamRoot = tempDir('rawrag-mem-beam-');
mkdirSync(join(beamRoot, 'chats', '100K', '5'), { recursive: true });
cpSync(join(FIX, 'beam/100K/5'), join(beamRoot, 'chats', '100K', '5'), { recursive: true });

const CASES: Array<{ name: string; data: string; args: string[]; options: Record<string, string> }> = [
  { name: 'meme', data: join(FIX, 'meme/meme_fixture.json'), args: [], options: {} },
  { name: 'longmemeval', data: join(FIX, 'longmemeval/longmemeval_oracle.sample.json'), args: [], options: {} },
  {
    name: 'memoryagentbench',
    data: join(FIX, 'memoryagentbench/Conflict_Resolution.sample.json'),
    args: ['-B', 'subset=all'],
    options: { subset: 'all' },
  },
  { name: 'personamem', data: join(FIX, 'personamem'), args: [], options: {} },
  { name: 'beam', data: beamRoot, args: ['-B', 'size=100K'], options: { size: '100K' } },
];

const env = {
  OPENAI_API_KEY: 'sk-test-MEMORYSECRET0123456789',
  RAWRAG_RETRY_BASE_MS: '5',
  OPENAI_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};

describe('agentic memory on every benchmark', () => {
  const fake = new FakeExtractor();
  const cache = tempDir('rawrag-mem-bench-cache-');
  beforeAll(() => fake.start());
  afterAll(() => fake.close());

  it.each(CASES)(
    '$name: every question recalls from the memory built of its visible turns',
    async ({ name, data, args, options }) => {
      const out = join(tempDir(), 'run');
      // No reader: extraction and recall only (coverage and pollution), with the extractor on the loopback.
      const r = await rawragInProcess(
        [
          'run',
          name,
          '--data',
          data,
          ...args,
          '--system',
          'agentic-memory',
          '-S',
          'extractor=gpt-4o-mini',
          '--retriever',
          'openai',
          '--reader-base-url',
          `${fake.url}/v1`,
          '--embed-base-url',
          `${fake.url}/v1`,
          '--cache-dir',
          cache,
          '--out',
          out,
          '--no-progress',
          '--json',
        ],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s.errors).toBe(0);
      expect(s.memory.ingest.extraction_calls).toBeGreaterThan(0);
      const ds = await getBenchmark(name).load({ path: data, options });
      const items = readFileSync(join(out, 'items.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(items).toHaveLength(s.n);
      let recalledAny = false;
      for (const item of items) {
        expect(Array.isArray(item.recalled)).toBe(true);
        recalledAny ||= item.recalled.length > 0;
        const q = ds.questions.find((x) => x.id === item.id)!;
        const turns = ds.episodes.find((e) => e.id === q.episode)!.turns;
        const visible = q.visibleTurns ?? turns.length;
        for (const m of item.recalled) {
          expect(m.memory_id.startsWith(`${q.episode}@${visible}/`)).toBe(true);
          for (const t of m.turns)
            expect(
              turns.findIndex((x) => x.id === t),
              `${item.id} recalled turn ${t}`,
            ).toBeLessThan(visible);
        }
      }
      expect(recalledAny).toBe(true);
      // MEME asks at several horizons: the check above is not vacuous there.
      if (name === 'meme') {
        const partial = ds.questions.filter(
          (q) => q.visibleTurns !== null && q.visibleTurns < ds.episodes.find((e) => e.id === q.episode)!.turns.length,
        );
        expect(partial.length).toBeGreaterThan(0);
        expect(new Set(items.flatMap((i: any) => i.recalled.map((m: any) => m.memory_id.split('/')[0]))).size).toBeGreaterThan(1);
      }
    },
    300_000,
  );

  it.each(CASES)(
    "$name: the benchmark's reader prompt shows the recalled block instead of the history",
    async ({ name, data, options }) => {
      const benchmark = getBenchmark(name);
      const ds = await benchmark.load({ path: data, options });
      const q = ds.questions[0]!;
      const ep = ds.episodes.find((e) => e.id === q.episode)!;
      const turns = ep.turns.slice(0, 2);
      const raw = benchmark.scoring!.reader.render(q, turnBlocks(turns));
      const recalled = benchmark.scoring!.reader.render(q, { blocks: [memoryBlock('Recalled background (test): - RECALLED-ITEM')] });
      const text = (m: Array<{ content: string }>) => m.map((x) => x.content).join('\n');
      expect(text(raw)).not.toContain('RECALLED-ITEM');
      expect(text(recalled)).toContain('RECALLED-ITEM');
      // The history the raw prompt showed is gone (only the question's own text may repeat it).
      const shown = turns.map((t) => t.text).filter((t) => t.length > 20 && !text(recalled.slice(-1)).includes(t) && !q.text.includes(t));
      for (const t of shown) expect(text(recalled)).not.toContain(t);
    },
  );
});
