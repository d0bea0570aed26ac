/**
 * `rawrag stats` pairs a run against the system its manifest names in `pair_with` (a store oracle
 * against the raw-evidence oracle of the same budget), besides every system against the baseline.
 */
import { expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rawragInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/cli.js';

function run(root: string, name: string, manifest: Record<string, unknown>, right: (i: number) => boolean) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ benchmark: 'locomo', setting: 'locomo/gpt-4o-mini', ...manifest }));
  const items = Array.from({ length: 30 }, (_, i) => ({ id: `conv-26:q${i}`, type: 'single-hop', score: right(i) ? 1 : 0 }));
  writeFileSync(join(dir, 'items.jsonl'), items.map((x) => JSON.stringify(x)).join('\n') + '\n');
}

it('a store oracle is paired against the raw-evidence oracle as well as against the baseline', async () => {
  const root = tempDir('rawrag-pair-with-');
  run(root, 'raw-rag', { system: 'RAW-RAG/openai', reference: true }, (i) => i % 3 !== 0);
  run(root, 'raw', { system: 'store-oracle/raw cap=5000', oracle: true }, () => true);
  run(root, 'store', { system: 'store-oracle/mem cap=5000', oracle: true, pair_with: 'store-oracle/raw cap=5000' }, (i) => i % 2 === 0);
  const r = await rawragInProcess(['stats', root, '--json', '--no-report', '--resamples', '500', '--out', join(root, 'stats')]);
  expect(r.code, r.stderr).toBe(0);
  const pairs = JSON.parse(r.stdout).families[0].pairwise.map((p: { system_a: string; system_b: string; delta: number }) => [
    p.system_a,
    p.system_b,
    Math.round(1000 * p.delta) / 10,
  ]);
  expect(pairs).toEqual([
    ['store-oracle/raw cap=5000', 'RAW-RAG/openai', 33.3],
    ['store-oracle/mem cap=5000', 'RAW-RAG/openai', -16.7],
    ['store-oracle/mem cap=5000', 'store-oracle/raw cap=5000', -50],
  ]);
});
