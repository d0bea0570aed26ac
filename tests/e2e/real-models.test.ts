/**
 * The whole LoCoMo pipeline against real HTTP: the CLI talks to a loopback server speaking the
 * OpenAI, Cohere and vLLM protocols (tests/helpers/fake-api.ts). Proves the request shapes, the
 * 3x judge, the cache (a rerun sends nothing), key hygiene and dry-run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, defaultChat, isJudgeRequest, readerQuestion, endpointArgs } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const OPENAI_KEY = 'sk-test-OPENAISECRET0123456789';
const COHERE_KEY = 'co-test-COHERESECRET987654321';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const LIMIT = 160; // all 152 questions of conv-26 and the first 8 of conv-30
/** Answers judged: every question, plus the 15 of them whose gold the LoCoMo errata correct (judged under both golds). */
const JUDGED = LIMIT + 15;
const selected = ds.questions.slice(0, LIMIT);
const goldByQuestion = new Map(selected.map((q) => [q.text, q.gold]));
// The reader knows the gold answer of every other question (by position), so accuracy is known in advance.
const knows = new Set(selected.filter((_, i) => i % 2 === 0).map((q) => q.text));
const expectedAccuracy = selected.filter((q) => knows.has(q.text) && q.gold.trim() !== '').length / LIMIT;

function oracleChat(body: any): string {
  const q = readerQuestion(body);
  if (q !== null) return knows.has(q) ? goldByQuestion.get(q)! : "I don't know";
  return defaultChat(body);
}

export function providerArgs(api: FakeApi, cacheDir: string): string[] {
  return [...endpointArgs(api), '--cache-dir', cacheDir, '--no-progress'];
}

const env = {
  OPENAI_API_KEY: OPENAI_KEY,
  COHERE_API_KEY: COHERE_KEY,
  RAWRAG_RETRY_BASE_MS: '5',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

describe('rawrag run locomo --retriever openai --reader gpt-4o-mini through a loopback API', () => {
  const api = new FakeApi({ chat: oracleChat });
  const cache = tempDir('rawrag-cache-');
  const outA = join(tempDir(), 'a');
  const outB = join(tempDir(), 'b');
  let first: { code: number; stdout: string; stderr: string };
  let firstCount = 0;
  let second: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    await api.start();
    const args = [
      'run',
      'locomo',
      '--retriever',
      'openai',
      '--reader',
      'gpt-4o-mini',
      '--limit',
      String(LIMIT),
      '--json',
      ...providerArgs(api, cache),
    ];
    first = await rawragInProcess([...args, '--out', outA], env);
    firstCount = api.count();
    second = await rawragInProcess([...args, '--out', outB], env);
  }, 120_000);
  afterAll(() => api.close());

  it('runs the whole pipeline and scores every question', () => {
    expect(first.stderr).not.toMatch(/error/i);
    expect(first.code).toBe(0);
    const s = JSON.parse(first.stdout);
    expect(s.n).toBe(LIMIT);
    expect(s.errors).toBe(0);
    expect(s.overall.scored).toBe(LIMIT);
    expect(s.overall.accuracy).toBeCloseTo(expectedAccuracy, 10);
    // The loopback judge is deterministic: its three runs agree exactly.
    expect(s.overall.judge_runs.runs).toBe(3);
    for (const a of s.overall.judge_runs.accuracy) expect(a).toBeCloseTo(expectedAccuracy, 10);
    expect(s.overall.judge_runs.sd).toBe(0);
    expect(s.system).toBe('RAW-RAG/openai:text-embedding-3-small+cohere:rerank-v3.5');
    expect(s.overall.metrics.f1).toBeGreaterThan(0.3);
    expect(s.usage.reader.requests).toBe(LIMIT);
    expect(s.usage.judge.requests).toBe(3 * JUDGED);
    expect(s.usage.rerank.requests).toBe(LIMIT);
    expect(s.usage.reader.cost_usd_spent).toBeGreaterThan(0);
  });

  it('keeps every judge verdict and raw text; item score = mean of 3 votes', () => {
    const items = readFileSync(join(outA, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const known = items.find((i) => knows.has(i.question));
    expect(known.answer).toBe(known.gold);
    expect(known.details.judge.votes).toEqual([1, 1, 1]);
    expect(known.details.judge.runs[0].raw).toBe('{"label":"CORRECT"}');
    expect(known.score).toBe(1);
    expect(known.metrics.f1).toBe(1);
    const unknown = items.find((i) => !knows.has(i.question));
    expect(unknown.details.judge.votes).toEqual([0, 0, 0]);
    expect(unknown.score).toBe(0);
    expect(unknown.details.reader.raw).toBe("I don't know");
    expect(unknown.details.reader.prompt_tokens_cl100k).toBeGreaterThan(unknown.evidence_tokens);
  });

  it('sends temperature 0, json_object judges, float embeddings, top_n 15 over all candidates', () => {
    const chats = api.byPath('/v1/chat/completions');
    expect(chats.length).toBe(LIMIT + 3 * JUDGED);
    for (const c of chats) expect(c.body.temperature).toBe(0);
    const judges = chats.filter(isJudgeRequest);
    expect(judges).toHaveLength(3 * JUDGED);
    for (const j of judges) expect(j.body.response_format).toEqual({ type: 'json_object' });
    // Mem0 sends no max_tokens, to the reader (rag.py) or the judge (llm_judge.py): the key is absent.
    for (const c of chats) expect('max_tokens' in c.body).toBe(false);
    const embeds = api.byPath('/v1/embeddings');
    for (const e of embeds) expect(e.body.encoding_format).toBe('float');
    // Each distinct text once: the two episodes' chunks plus the distinct question texts.
    const inputs = embeds.flatMap((e) => e.body.input as string[]);
    expect(new Set(inputs).size).toBe(inputs.length);
    // One request for all question texts first; then the episodes' windows (episodes indexed in
    // the same tick go out together, so at most one request per episode).
    expect(embeds.length).toBeGreaterThanOrEqual(2);
    expect(embeds.length).toBeLessThanOrEqual(3);
    expect(embeds[0]!.body.input).toHaveLength(new Set(selected.map((q) => q.text)).size);
    const reranks = api.byPath('/v2/rerank');
    expect(reranks).toHaveLength(LIMIT);
    for (const r of reranks) {
      expect(r.body.top_n).toBe(15);
      expect(r.body.model).toBe('rerank-v3.5');
    }
    // conv-26 has 98 windows, conv-30 78: fewer than 128, so every window is a candidate.
    expect(new Set(reranks.map((r) => r.body.documents.length))).toEqual(new Set([98, 78]));
  });

  it('judge replicates are distinct requests with identical content', () => {
    const judges = api.byPath('/v1/chat/completions').filter(isJudgeRequest);
    const byBody = new Map<string, number>();
    for (const j of judges) byBody.set(JSON.stringify(j.body), (byBody.get(JSON.stringify(j.body)) ?? 0) + 1);
    expect([...byBody.values()].every((n) => n === 3)).toBe(true);
  });

  it('a second identical run is all cache hits: zero requests', () => {
    expect(second.code).toBe(0);
    expect(api.count()).toBe(firstCount);
    const s = JSON.parse(second.stdout);
    expect(s.overall.accuracy).toBeCloseTo(expectedAccuracy, 10);
    expect(s.usage.all.requests).toBe(0);
    expect(s.cache.by_role.judge).toEqual({ hits: 3 * JUDGED, misses: 0 });
    expect(s.cache.by_role.reader.misses).toBe(0);
    expect(s.cache.by_role.embed.misses).toBe(0);
    expect(readFileSync(join(outB, 'items.jsonl'), 'utf8').split('\n').length).toBe(LIMIT + 1);
  });

  it('uses the keys but never writes or prints them', () => {
    const auth = api.byPath('/v1/chat/completions')[0]!.headers.authorization;
    expect(auth).toBe(`Bearer ${OPENAI_KEY}`);
    expect(api.byPath('/v2/rerank')[0]!.headers.authorization).toBe(`Bearer ${COHERE_KEY}`);
    const texts = [first.stdout, first.stderr, second.stdout, second.stderr];
    for (const f of [...filesUnder(outA), ...filesUnder(outB), ...filesUnder(cache)]) texts.push(readFileSync(f).toString('latin1'));
    expect(texts.length).toBeGreaterThan(6);
    for (const t of texts) {
      expect(t).not.toContain(OPENAI_KEY);
      expect(t).not.toContain(COHERE_KEY);
      expect(t).not.toContain('OPENAISECRET');
    }
  });

  it('--dry-run prints calls and cost, sends nothing and writes no run directory', async () => {
    const before = api.count();
    const out = join(tempDir(), 'dry');
    const r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--retriever',
        'openai',
        '--reader',
        'gpt-4o-mini',
        '--limit',
        '20',
        '--dry-run',
        '--out',
        out,
        ...providerArgs(api, tempDir()),
      ],
      env,
    );
    expect(r.code).toBe(0);
    // 20 answers and 2 of them again under the corrected gold (conv-26:q2, q5), x3.
    expect(r.stdout).toMatch(/\| judge\s*\|\s*gpt-4o-mini \|\s*66 \|/);
    expect(r.stdout).toMatch(/\| reader\s*\|\s*gpt-4o-mini \|\s*20 \|/);
    expect(r.stdout).toContain('estimated total: $');
    expect(api.count()).toBe(before);
    expect(existsSync(out)).toBe(false);
  });
});
