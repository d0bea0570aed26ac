/**
 * `rawrag run locomo --system agentic-memory` through the real CLI against a loopback
 * OpenAI-compatible server that also plays the extractor (tests/helpers/fake-extractor.ts): every
 * question answered and judged, a second identical run sends nothing, a SIGKILL during extraction
 * loses nothing stored and the resume re-extracts none of it, and `rawrag stats` puts the memory
 * system beside RAW-RAG with coverage and pollution for each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeExtractor, isExtractionRequest, segmentOf } from '../helpers/fake-extractor.js';
import { evidenceReader, killMidRun, locomoRunArgs, loopbackEnv, readItems, sqliteKeys } from '../helpers/loopback-run.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });

const env = loopbackEnv({ openai: 'sk-test-MEMORYSECRET0123456789', cohere: 'co-test-COHERESECRET987654321' });

/** The extraction batches the run's store holds, as `<owner> <batch key>`. */
const okBatches = (dir: string) =>
  sqliteKeys(join(dir, 'memory.sqlite'), "SELECT owner_id || ' ' || batch_key AS k FROM extractions WHERE status = 'ok'");

describe('rawrag run locomo --system agentic-memory against a loopback extractor', () => {
  const fake = new FakeExtractor({ chat: evidenceReader(ds.questions) });
  const cache = tempDir('rawrag-mem-cache-');
  const root = tempDir('rawrag-mem-runs-');
  const memOut = join(root, 'memory');
  const args = (out: string, ...extra: string[]) =>
    locomoRunArgs({ system: 'agentic-memory', retriever: 'openai', out, peer: fake, cache, extra });
  let first: { code: number; stdout: string; stderr: string };
  let firstRequests = 0;

  beforeAll(async () => {
    await fake.start();
    first = await rawragInProcess(args(memOut), env);
    firstRequests = fake.api.count();
  }, 600_000);
  afterAll(() => fake.close());

  it('answers and judges all 1,540 questions with the recalled block in the LoCoMo reader prompt', () => {
    expect(first.code, first.stderr).toBe(0);
    const s = JSON.parse(first.stdout);
    expect(s.n).toBe(1540);
    expect(s.errors).toBe(0);
    expect(s.overall.scored).toBe(1540);
    expect(s.system).toBe('agentic-memory/gpt-4o-mini');
    // One extraction per LoCoMo session (272), every one stored; the fallback script returns one item per turn.
    expect(s.memory.ingest.extraction_calls).toBe(272);
    expect(s.memory.ingest.failed_batches).toBe(0);
    expect(s.memory.this_run.requests).toBe(272);
    expect(s.memory.items.events).toBe(5882);
    expect(s.memory.ingest.cost_usd).toBeGreaterThan(0);
    expect(fake.extractionRequests()).toHaveLength(272);
    const manifest = JSON.parse(readFileSync(join(memOut, 'manifest.json'), 'utf8'));
    expect(manifest.system).toBe('agentic-memory/gpt-4o-mini');
    const items = readItems(memOut);
    const it0 = items.find((i: any) => i.id === 'conv-26:q0');
    expect(it0.retrieved).toEqual([]);
    expect(it0.recalled.length).toBeGreaterThan(0);
    expect(it0.recalled.length).toBeLessThanOrEqual(5);
    expect(it0.evidence_tokens).toBeLessThanOrEqual(800);
    expect(it0.evidence_turns).toEqual(
      [...new Set(it0.recalled.flatMap((r: any) => r.turns))].sort((a: any, b: any) =>
        String(a).localeCompare(String(b), 'en', { numeric: true }),
      ),
    );
    const reader = fake.api.requests.find((r) => !isExtractionRequest(r) && JSON.stringify(r.body?.messages ?? '').includes(it0.question));
    expect(reader!.body.messages[1].content).toContain(
      'Recalled background (from memory; where it conflicts with the current conversation, the conversation wins):',
    );
    expect(items.filter((i: any) => i.coverage !== null).every((i: any) => typeof i.metrics.pollution === 'number')).toBe(true);
  });

  it('a second identical run (fresh run directory, same cache) sends no request at all', async () => {
    fake.api.requests.length = 0;
    const again = await rawragInProcess(args(join(root, 'memory-again')), env);
    expect(again.code, again.stderr).toBe(0);
    expect(fake.api.count()).toBe(0);
    const s = JSON.parse(again.stdout);
    expect(s.memory.this_run.requests).toBe(0);
    expect(s.memory.this_run.cache_hits).toBe(272);
    // Its store cost nothing: cache answers are neither calls nor dollars.
    expect(s.memory.ingest).toMatchObject({ extraction_calls: 0, cache_hits: 272, cost_usd: 0 });
    expect(s.usage.extract).toMatchObject({ requests: 0, cache_hits: 272 });
    expect(s.usage.reader.requests + s.usage.reader.cache_hits).toBe(1540);
    // Items finish in any order; by question, both runs agree exactly.
    const byId = (dir: string) =>
      readItems(dir)
        .map((i: any) => [i.id, i.score, i.recalled.map((r: any) => r.memory_id)])
        .sort((a: any, b: any) => (a[0] < b[0] ? -1 : 1));
    expect(byId(join(root, 'memory-again'))).toEqual(byId(memOut));
    expect(firstRequests).toBeGreaterThan(272);
    // Resuming the finished directory: nothing to do, and the summary still reports the store.
    const resumed = await rawragInProcess(
      args(memOut).filter((a) => a !== '--json'),
      env,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(fake.api.count()).toBe(0);
    expect(resumed.stdout).toMatch(
      /Agentic memory ingest \(gpt-4o-mini, whole store\): 272 extraction requests sent, \d+ prompt \+ \d+ completion tokens, \$\d+\.\d{4}; items: \d+ stored \(\d+ active, 0 superseded, 0 forgotten: 0 decayed, 0 evicted, 0 over the write cap\), \d+ merged, 0 dropped, from 5882 events/,
    );
    expect(resumed.stdout).toContain(`memory store: ${join(memOut, 'memory.sqlite')}`);
  }, 600_000);

  it('kill -9 during extraction, then the same command: nothing stored is lost or extracted again', async () => {
    const out = join(root, 'killed');
    // A fresh cache and slow extraction replies, one at a time, so the kill lands mid-ingest.
    const killCache = tempDir('rawrag-mem-kill-cache-');
    fake.api.inject({ kind: 'slow', delayMs: 250, times: Infinity, match: isExtractionRequest });
    const cmd = locomoRunArgs({
      system: 'agentic-memory',
      retriever: 'openai',
      limit: 152,
      out,
      peer: fake,
      cache: killCache,
      extra: ['--concurrency', 'chat=1'],
    });
    expect(await killMidRun(cmd, env, () => okBatches(out).length >= 4)).toBe('SIGKILL');
    const stored = new Set(okBatches(out));
    expect(stored.size).toBeGreaterThanOrEqual(4);
    expect(stored.size).toBeLessThan(19);
    fake.api.faults = [];
    fake.api.requests.length = 0;
    const resumed = await rawragInProcess(cmd, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const turns = ds.episodes.find((e) => e.id === 'conv-26')!.turns;
    for (const r of fake.extractionRequests()) {
      const first = turns.findIndex((t) => t.id === segmentOf(r.body).turnIds[0]);
      const last = turns.findIndex((t) => t.id === segmentOf(r.body).turnIds.at(-1));
      expect(stored.has(`conv-26 t${first}-${last}`), `batch t${first}-${last} was stored before the kill and extracted again`).toBe(false);
    }
    expect(okBatches(out)).toHaveLength(19);
    expect(JSON.parse(resumed.stdout).n).toBe(152);
  }, 600_000);

  it('rawrag stats: RAW-RAG and agentic memory side by side, paired, with coverage and pollution', async () => {
    const rawOut = join(root, 'raw-rag');
    const raw = await rawragInProcess(locomoRunArgs({ retriever: 'openai', out: rawOut, peer: fake, cache }), env);
    expect(raw.code, raw.stderr).toBe(0);
    const stats = await rawragInProcess(['stats', rawOut, memOut, '--resamples', '2000', '--out', join(root, 'stats')]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toMatch(/\| +1 \| RAW-RAG\/openai:text-embedding-3-sm/);
    expect(stats.stdout).toMatch(/\| +\d \| agentic-memory\/gpt-4o-mini/);
    expect(stats.stdout).toContain('McNemar');
    expect(stats.stdout).toContain('### Coverage × utilization');
    expect(stats.stdout).toMatch(/memory pollution \(agentic-memory\/gpt-4o-mini\): \d+\.\d\d% of injected items/);
    const report = JSON.parse(readFileSync(join(root, 'stats', 'stats.json'), 'utf8'));
    const fam = report.families[0];
    expect(fam.pairwise).toHaveLength(1);
    expect(fam.pairwise[0].n).toBe(1540);
    expect(fam.coverage.map((c: any) => c.system).sort()).toEqual([
      'RAW-RAG/openai:text-embedding-3-small+cohere:rerank-v3.5',
      'agentic-memory/gpt-4o-mini',
    ]);
  }, 600_000);
});
