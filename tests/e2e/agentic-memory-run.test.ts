/**
 * `rawrag run locomo --system agentic-memory` through the real CLI against a loopback
 * OpenAI-compatible server that also plays the extractor (tests/helpers/fake-extractor.ts): every
 * question answered and judged, a second identical run sends nothing, a SIGKILL during extraction
 * loses nothing stored and the resume re-extracts none of it, and `rawrag stats` puts the memory
 * system beside RAW-RAG with coverage and pollution for each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { defaultChat } from '../helpers/fake-api.js';
import { BIN, ROOT, rawragAsync, tempDir } from '../helpers/cli.js';
import { FakeExtractor, isExtractionRequest, segmentOf } from '../helpers/fake-extractor.js';
import { locomo } from '../../src/datasets/locomo/index.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const goldOf = new Map(ds.questions.map((q) => [q.text, q.gold]));

/** A reader that answers with the gold answer exactly when its context holds it; a containment judge. */
function evidenceReader(body: any): string {
  const user: string = (body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')?.content ?? '';
  const m = /# Question: \n([\s\S]*?)\n\n# Context: \n([\s\S]*)$/.exec(user);
  if (!m) return defaultChat(body);
  const gold = goldOf.get(m[1]!) ?? '';
  return gold.trim() !== '' && m[2]!.toLowerCase().includes(gold.toLowerCase()) ? gold : "I don't know";
}

const env = {
  OPENAI_API_KEY: 'sk-test-MEMORYSECRET0123456789',
  COHERE_API_KEY: 'co-test-COHERESECRET987654321',
  RAWRAG_RETRY_BASE_MS: '5',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};

function providerArgs(url: string, cacheDir: string): string[] {
  return [
    '--reader-base-url',
    `${url}/v1`,
    '--judge-base-url',
    `${url}/v1`,
    '--embed-base-url',
    `${url}/v1`,
    '--rerank-base-url',
    url,
    '--cache-dir',
    cacheDir,
    '--no-progress',
  ];
}

const readItems = (dir: string) =>
  readFileSync(join(dir, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

function okBatches(dir: string): string[] {
  const file = join(dir, 'memory.sqlite');
  if (!existsSync(file)) return [];
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (
        db.prepare("SELECT owner_id || ' ' || batch_key AS k FROM extractions WHERE status = 'ok'").all() as Array<{ k: string }>
      ).map((r) => r.k);
    } finally {
      db.close();
    }
  } catch {
    return [];
  }
}

describe('rawrag run locomo --system agentic-memory against a loopback extractor', () => {
  const fake = new FakeExtractor({ chat: evidenceReader });
  const cache = tempDir('rawrag-mem-cache-');
  const root = tempDir('rawrag-mem-runs-');
  const memOut = join(root, 'memory');
  const args = (out: string, ...extra: string[]) => [
    'run',
    'locomo',
    '--system',
    'agentic-memory',
    '--reader',
    'gpt-4o-mini',
    '--retriever',
    'openai',
    '--json',
    '--out',
    out,
    ...providerArgs(fake.url, cache),
    ...extra,
  ];
  let first: { code: number; stdout: string; stderr: string };
  let firstRequests = 0;

  beforeAll(async () => {
    await fake.start();
    first = await rawragAsync(args(memOut), env);
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
    const again = await rawragAsync(args(join(root, 'memory-again')), env);
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
    const resumed = await rawragAsync(
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
    const cmd = [
      'run',
      'locomo',
      '--system',
      'agentic-memory',
      '--reader',
      'gpt-4o-mini',
      '--retriever',
      'openai',
      '--json',
      '--limit',
      '152',
      '--concurrency-chat',
      '1',
      '--out',
      out,
      ...providerArgs(fake.url, killCache),
    ];
    const child = spawn(process.execPath, [BIN, ...cmd], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', ...env } as NodeJS.ProcessEnv,
      stdio: 'ignore',
    });
    const exited = new Promise<NodeJS.Signals | number | null>((r) => child.on('exit', (code, signal) => r(signal ?? code)));
    const deadline = Date.now() + 60_000;
    while (okBatches(out).length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const stored = new Set(okBatches(out));
    expect(stored.size).toBeGreaterThanOrEqual(4);
    expect(stored.size).toBeLessThan(19);
    fake.api.faults = [];
    fake.api.requests.length = 0;
    const resumed = await rawragAsync(cmd, env);
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
    const raw = await rawragAsync(
      ['run', 'locomo', '--reader', 'gpt-4o-mini', '--retriever', 'openai', '--json', '--out', rawOut, ...providerArgs(fake.url, cache)],
      env,
    );
    expect(raw.code, raw.stderr).toBe(0);
    const stats = await rawragAsync(['stats', rawOut, memOut, '--resamples', '2000', '--out', join(root, 'stats')]);
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
