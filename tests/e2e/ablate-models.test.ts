/**
 * `rawrag ablate` with real provider protocols: the CLI talks to a loopback server (embeddings,
 * Cohere rerank, chat) and the requests it receives are counted. Proves the sweep's economy:
 * one rerank call per question for every k, the same embedding requests as a single run, and
 * reader/judge calls only for evidence sets not seen before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, defaultChat, isJudgeRequest, readerQuestion, endpointArgs } from '../helpers/fake-api.js';
import { ROOT, tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import type { ItemRecord } from '../../src/core/item.js';

const OPENAI_KEY = 'sk-test-ABLATESECRET0123456789';
const COHERE_KEY = 'co-test-ABLATECOHERE987654321';
const LIMIT = 30; // questions of conv-26 only
const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const goldOf = new Map(ds.questions.slice(0, LIMIT).map((q) => [q.text, q.gold]));

/** A reader that answers right exactly when the gold answer is in the evidence it was shown. */
function evidenceReader(body: any): string {
  const q = readerQuestion(body);
  if (q === null) return defaultChat(body);
  const user = (body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
  const gold = goldOf.get(q) ?? '';
  return gold && user.split('# Context:')[1]!.toLowerCase().includes(gold.toLowerCase()) ? gold : "I don't know";
}

const env = {
  OPENAI_API_KEY: OPENAI_KEY,
  COHERE_API_KEY: COHERE_KEY,
  RAWRAG_RETRY_BASE_MS: '5',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};
const providerArgs = (api: FakeApi, cacheDir: string) => [...endpointArgs(api), '--cache-dir', cacheDir, '--no-progress'];
const VARIANTS = ['default', 'k=1', 'k=30', 'k=60', 'window=2048,k=1', 'window=2048,k=15', 'window=2048,k=30', 'window=2048,k=60'];
const itemsOf = (dir: string): ItemRecord[] =>
  readFileSync(join(dir, 'items.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('rawrag ablate --retriever openai --reader gpt-4o-mini through a loopback API', () => {
  const api = new FakeApi({ chat: evidenceReader });
  const out = join(tempDir(), 'ablation');
  const runOut = join(tempDir(), 'run');
  let abl: CliResult;
  let run: CliResult;
  let ablRequests: typeof api.requests;
  let runRequests: typeof api.requests;

  beforeAll(async () => {
    await api.start();
    const common = ['--retriever', 'openai', '--reader', 'gpt-4o-mini', '--limit', String(LIMIT)];
    abl = await rawragInProcess(
      [
        'ablate',
        'locomo',
        ...common,
        '--k',
        '1,30,60',
        '--window',
        '2048',
        '--out',
        out,
        '--no-png',
        '--resamples',
        '1000',
        ...providerArgs(api, tempDir('rawrag-cache-')),
      ],
      env,
    );
    ablRequests = [...api.requests];
    run = await rawragInProcess(['run', 'locomo', ...common, '--out', runOut, ...providerArgs(api, tempDir('rawrag-cache-'))], env);
    runRequests = api.requests.slice(ablRequests.length);
  }, 180_000);
  afterAll(() => api.close());

  it('runs every variant with the real retriever, reader and judge', () => {
    expect(abl.stderr).not.toMatch(/error|fell back/i);
    expect(abl.code).toBe(0);
    expect(run.code).toBe(0);
    expect(abl.stderr).toContain(`ablation: 8 variants: ${VARIANTS.join(' | ')}`);
    const record = JSON.parse(readFileSync(join(out, 'ablation.json'), 'utf8'));
    expect(record.metric).toBe('accuracy');
    expect(record.retriever).toBe('openai:text-embedding-3-small+cohere:rerank-v3.5');
    for (const v of VARIANTS) {
      const s = JSON.parse(readFileSync(join(out, v, 'summary.json'), 'utf8'));
      expect([s.n, s.errors, s.overall.scored]).toEqual([LIMIT, 0, LIMIT]);
    }
    expect(abl.stdout).toMatch(/\| variant\s+\|\s+n \| coverage % \| accuracy % \| Δ accuracy \(pts\) \|/);
    // The evidence-aware reader is right more often with more evidence: k=1 loses accuracy.
    const k1 = record.table.find((r: { variant: string }) => r.variant === 'k=1');
    expect(k1.delta).toBeLessThan(0);
  });

  it('sends one rerank request per question and window size for the whole k sweep, as deep as the deepest k', () => {
    const reranks = ablRequests.filter((r) => r.path === '/v2/rerank');
    expect(reranks).toHaveLength(2 * LIMIT);
    for (const r of reranks) expect(r.body.top_n).toBe(Math.min(60, r.body.documents.length));
    // conv-26 has fewer than 128 windows of 256 tokens and 11 of 2048: every window is a candidate.
    const sizes = reranks.map((r) => r.body.documents.length);
    expect(new Set(sizes).size).toBe(2);
    expect(sizes.filter((n) => n === 11)).toHaveLength(LIMIT);
    // A single run of the reference reranks the same questions once each, at top_n = k.
    expect(runRequests.filter((r) => r.path === '/v2/rerank').map((r) => r.body.top_n)).toEqual(Array(LIMIT).fill(15));
  });

  it('embeds each window once per window size and each question once', () => {
    const embedded = (reqs: typeof api.requests) =>
      reqs.filter((r) => r.path === '/v1/embeddings').flatMap((r) => r.body.input as string[]);
    const abl = embedded(ablRequests);
    expect(new Set(abl).size).toBe(abl.length);
    const single = embedded(runRequests);
    // Everything the single run embedded, the ablation embedded once (plus the 2048-token windows).
    expect(single.every((t) => abl.includes(t))).toBe(true);
    expect(abl.length).toBeGreaterThan(single.length);
  });

  it('calls the reader once per distinct evidence set of a question and reuses the answer otherwise', () => {
    const byVariant = new Map(VARIANTS.map((v) => [v, itemsOf(join(out, v))]));
    const distinct = new Map<string, Set<string>>();
    for (const items of byVariant.values()) {
      for (const i of items) {
        if (!distinct.has(i.id)) distinct.set(i.id, new Set());
        distinct.get(i.id)!.add(JSON.stringify(i.evidence_turns));
      }
    }
    const sets = [...distinct.values()].reduce((s, d) => s + d.size, 0);
    const readerCalls = ablRequests.filter((r) => r.path === '/v1/chat/completions' && !isJudgeRequest(r));
    expect(readerCalls).toHaveLength(sets);
    // 2048-token windows: conv-26 has fewer than 15 of them, so k = 15, 30 and 60 show the same evidence.
    expect(sets).toBeLessThanOrEqual(LIMIT * (VARIANTS.length - 2));
    const reused = byVariant.get('window=2048,k=60')!.filter((i) => i.details.ablate_reused_from === 'window=2048,k=15');
    expect(reused).toHaveLength(LIMIT);
    const source = new Map(byVariant.get('window=2048,k=15')!.map((i) => [i.id, i]));
    for (const i of reused) expect([i.answer, i.score]).toEqual([source.get(i.id)!.answer, source.get(i.id)!.score]);
    // Judge requests: at most 3 per reader call (identical verdict requests are cache hits).
    expect(ablRequests.filter(isJudgeRequest).length).toBeLessThanOrEqual(3 * sets);
    // Each variant's summary reports the reader calls that variant itself made.
    const perVariant = VARIANTS.map((v) => JSON.parse(readFileSync(join(out, v, 'summary.json'), 'utf8')).usage?.reader?.requests ?? 0);
    expect(perVariant.reduce((a, b) => a + b, 0)).toBe(sets);
  });

  it('gives the reference variant the ranking, evidence and answers of a single run (up to exact score ties)', () => {
    const a = new Map(itemsOf(join(out, 'default')).map((i) => [i.id, i]));
    const deep = new Map(itemsOf(join(out, 'k=60')).map((i) => [i.id, i.retrieved.map((r) => r.score)]));
    const b = itemsOf(runOut);
    expect(b).toHaveLength(LIMIT);
    let identical = 0;
    for (const i of b) {
      const j = a.get(i.id)!;
      // The same scores rank by rank. Where two windows tie exactly, the server's top_n cut (by
      // document position) and the client's re-sort (by chunk index) may pick different ones.
      expect(j.retrieved.map((r) => r.score)).toEqual(i.retrieved.map((r) => r.score));
      i.retrieved.forEach((r, n) => {
        if (deep.get(i.id)!.filter((x) => x === r.score).length === 1) expect(j.retrieved[n]!.chunk).toBe(r.chunk);
      });
      if (JSON.stringify(j.evidence_turns) === JSON.stringify(i.evidence_turns)) {
        identical++;
        expect([j.answer, j.score]).toEqual([i.answer, i.score]);
      }
    }
    expect(identical).toBeGreaterThan(LIMIT / 2);
  });

  it('never writes a key anywhere', () => {
    const all = [
      abl.stdout,
      abl.stderr,
      ...VARIANTS.flatMap((v) => ['manifest.json', 'items.jsonl', 'summary.json'].map((f) => readFileSync(join(out, v, f), 'utf8'))),
    ];
    for (const text of all) {
      expect(text).not.toContain(OPENAI_KEY);
      expect(text).not.toContain(COHERE_KEY);
    }
  });
});
