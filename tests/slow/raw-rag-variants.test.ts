/**
 * RAW-RAG's memory-management variants (raw-rag-facts, raw-rag-summaries, raw-rag-graph) through
 * the real CLI against a loopback server that scripts their ingest LLM (tests/helpers/fake-ingest.ts),
 * reads and judges: each completes LoCoMo (--limit 20: one conversation, 19 sessions), a second
 * identical run sends nothing, a kill -9 during extraction loses nothing stored and the resume asks
 * for none of it again, and `rawrag stats` pairs all four RAW-RAG variants.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { ingestKind, isIngestRequest, withIngest } from '../helpers/fake-ingest.js';
import { segmentOf } from '../helpers/fake-extractor.js';
import { killMidRun, locomoRunArgs, loopbackEnv, readItems, sqliteKeys } from '../helpers/loopback-run.js';
import { efficiencyRow } from '../../src/stats/efficiency.js';

const env = loopbackEnv({ openai: 'sk-test-VARIANTSECRET0123456789', cohere: 'co-test-COHERESECRET987654321' });
const SYSTEMS = ['raw-rag-facts', 'raw-rag-summaries', 'raw-rag-graph'] as const;
const SESSIONS = 19; // conv-26, the conversation of LoCoMo's first 20 questions

const storedBatches = (dir: string) => sqliteKeys(join(dir, 'ingest.sqlite'), 'SELECT batch_key AS k FROM steps');

describe('RAW-RAG memory-management variants against a loopback ingest LLM', () => {
  const api = new FakeApi({ chat: withIngest() });
  const cache = tempDir('rawrag-variants-cache-');
  const root = tempDir('rawrag-variants-');
  const args = (system: string, out: string, cacheDir = cache, ...extra: string[]) =>
    locomoRunArgs({ system, out, peer: api, cache: cacheDir, limit: 20, judgeRuns: 1, extra });
  const first = new Map<string, CliResult>();
  const ingestRequests = new Map<string, number>();

  beforeAll(async () => {
    await api.start();
    first.set('raw-rag', await rawragInProcess(args('raw-rag', join(root, 'raw-rag')), env));
    for (const s of SYSTEMS) {
      const before = api.requests.filter(isIngestRequest).length;
      first.set(s, await rawragInProcess(args(s, join(root, s)), env));
      ingestRequests.set(s, api.requests.filter(isIngestRequest).length - before);
    }
  }, 300_000);
  afterAll(() => api.close());

  it.each(SYSTEMS)('%s answers and judges every question; one structured-output ingest call per session', (system) => {
    const r = first.get(system)!;
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.n).toBe(20);
    expect(s.errors).toBe(0);
    expect(s.overall.scored).toBe(20);
    expect(s.ingest_llm.whole_index.calls).toBe(SESSIONS);
    expect(s.ingest_llm.this_run.requests).toBe(SESSIONS);
    expect(s.ingest_llm.whole_index.prompt_tokens).toBeGreaterThan(0);
    expect(s.ingest_llm.whole_index.cost_usd).toBeGreaterThan(0);
    expect(ingestRequests.get(system)).toBe(SESSIONS);
    const req = api.requests.find((x) => isIngestRequest(x) && ingestKind(x.body) === system.slice('raw-rag-'.length))!;
    expect(req.body.response_format.type).toBe('json_schema');
    expect(req.body.response_format.json_schema.strict).toBe(true);
    expect(req.body.response_format.json_schema.schema.additionalProperties).toBe(false);
  });

  it('facts replace the windows: every retrieved unit is a fact with its own source turn, and coverage counts those turns', () => {
    const items = readItems(join(root, 'raw-rag-facts'));
    const it0 = items.find((i) => i.id === 'conv-26:q0');
    expect(it0.retrieved.length).toBe(15);
    expect(it0.retrieved.every((h: any) => /#f\d+$/.test(h.chunk) && h.turns.length === 1)).toBe(true);
    expect(new Set(it0.evidence_turns)).toEqual(new Set(it0.retrieved.flatMap((h: any) => h.turns)));
    expect(items.filter((i) => i.coverage?.all === true).length).toBeGreaterThan(5);
  });

  it('summaries sit beside the windows; graph expansion adds neighbour turns after reranking', () => {
    const sums = readItems(join(root, 'raw-rag-summaries'));
    const units = sums.flatMap((i) => i.retrieved.map((h: any) => h.chunk));
    expect(units.some((c: string) => /#s\d+$/.test(c))).toBe(true);
    expect(units.some((c: string) => /#\d+$/.test(c))).toBe(true);
    const graph = readItems(join(root, 'raw-rag-graph'));
    const expanded = graph.filter((i) => i.details.expansion?.added_turns.length > 0);
    expect(expanded.length).toBeGreaterThan(0);
    const e = expanded[0];
    expect(e.evidence_turns).toEqual(expect.arrayContaining(e.details.expansion.added_turns));
    const raw = readItems(join(root, 'raw-rag')).find((i) => i.id === e.id);
    expect(e.evidence_tokens).toBeGreaterThan(raw.evidence_tokens);
    expect(e.evidence_tokens - raw.evidence_tokens).toBeLessThanOrEqual(1024);
  });

  it('prints the ingest LLM cost beside RAW-RAG in the summary', async () => {
    const r = await rawragInProcess(
      args('raw-rag-facts', join(root, 'raw-rag-facts')).filter((a) => a !== '--json'),
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    // Issue 34, problem 6: tokens and dollars of the same calls, sent and cache-answered apart; the time is
    // the wall time of building indexes, the summed call latency named as such.
    expect(r.stdout).toMatch(
      /Ingest LLM \(atomic_facts, gpt-4o-mini, structured outputs; whole index\): 19 calls sent: \d+ tokens \(\d+ prompt \+ \d+ completion\), \$\d\.\d{4} paid; 0 answered by the cache: 0 tokens \(0 prompt \+ 0 completion\), \$0\.0000 not paid/,
    );
    expect(r.stdout).toMatch(
      /ingest time: \d+\.\d s wall time building indexes in this process; summed call latency \d+\.\d s \(calls overlap, cache hits included: not a time\)/,
    );
    expect(r.stdout).not.toMatch(/s of calls/);
    expect(r.stdout).toContain('RAW-RAG ingest: 0 LLM calls, 0 tokens, $0 (embedding only)');
  });

  it('a second identical run (fresh run directory, same cache) sends nothing', async () => {
    for (const s of SYSTEMS) {
      api.requests.length = 0;
      const again = await rawragInProcess(args(s, join(root, `${s}-again`)), env);
      expect(again.code, again.stderr).toBe(0);
      expect(api.count(), s).toBe(0);
      expect(JSON.parse(again.stdout).ingest_llm.this_run.cache_hits).toBe(SESSIONS);
      // Issue 34, problem 6: the efficiency table's tokens and dollars come from the same calls. Every call here was
      // answered by the cache: nothing sent, nothing paid; the cached tokens and what they would have cost apart.
      const row = efficiencyRow(join(root, `${s}-again`))!;
      const whole = JSON.parse(again.stdout).ingest_llm.whole_index;
      expect(row.ingest_llm_tokens, s).toBe(0);
      expect(row.ingest_cost_usd, s).toBe(0);
      expect(row.ingest_llm_tokens_cached, s).toBe(whole.prompt_tokens + whole.completion_tokens);
      expect(row.ingest_cost_usd_cached, s).toBeCloseTo(whole.cost_usd, 9);
      const paid = efficiencyRow(join(root, s))!;
      expect(paid.ingest_llm_tokens, s).toBe(whole.prompt_tokens + whole.completion_tokens);
      expect(paid.ingest_cost_usd, s).toBeCloseTo(whole.cost_usd, 9);
      expect(paid.add_wall_s, s).toBeGreaterThan(0);
    }
  }, 120_000);

  // Issue 34, problem 7: an ingest LLM that returns nothing builds an empty index without any error; the run says so, loudly.
  it('a loud warning when the ingest LLM returns nothing for most batches', async () => {
    const empty = new FakeApi({ chat: (b) => (ingestKind(b) === 'facts' ? JSON.stringify({ facts: [] }) : withIngest()(b)) });
    await empty.start();
    try {
      const r = await rawragInProcess(
        locomoRunArgs({
          system: 'raw-rag-facts',
          out: join(root, 'empty'),
          peer: empty,
          cache: tempDir('rawrag-empty-cache-'),
          limit: 20,
          judgeRuns: 1,
          json: false,
        }),
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        /WARNING: RAW-RAG\+facts: 19 of 19 atomic_facts replies \(100\.0 %\) held nothing: the index has no derived units, so coverage and accuracy measure an empty memory/,
      );
    } finally {
      await empty.close();
    }
  }, 120_000);

  it('rawrag ablate -S mode=replace,add: both variants from the stored extraction (no ingest request), paired table', async () => {
    api.requests.length = 0;
    const r = await rawragInProcess(
      locomoRunArgs({
        command: 'ablate',
        system: 'raw-rag-facts',
        limit: 20,
        judgeRuns: 1,
        out: join(root, 'ablate-facts'),
        peer: api,
        cache,
        extra: ['-S', 'mode=replace,add', '--resamples', '200'],
      }),
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(api.requests.filter(isIngestRequest)).toHaveLength(0);
    expect(r.stdout).toMatch(/\| default \(reference\) +\| +20 \|/);
    expect(r.stdout).toMatch(/\| facts=add +\| +20 \|/);
  }, 120_000);

  it('kill -9 during extraction, then the same command: nothing stored is asked for again', async () => {
    const out = join(root, 'killed');
    const killCache = tempDir('rawrag-variants-kill-cache-');
    api.inject({ kind: 'slow', delayMs: 200, times: Infinity, match: isIngestRequest });
    const cmd = args('raw-rag-facts', out, killCache, '--concurrency', 'chat=1');
    expect(await killMidRun(cmd, env, () => storedBatches(out).length >= 3)).toBe('SIGKILL');
    const stored = new Set(storedBatches(out));
    expect(stored.size).toBeGreaterThanOrEqual(3);
    expect(stored.size).toBeLessThan(SESSIONS);
    api.faults = [];
    api.requests.length = 0;
    const resumed = await rawragInProcess(cmd, env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const asked = api.requests.filter(isIngestRequest).map((r) => segmentOf(r.body).turnIds[0]);
    expect(asked.length).toBe(SESSIONS - stored.size);
    expect(storedBatches(out)).toHaveLength(SESSIONS);
    expect(JSON.parse(resumed.stdout).ingest_llm.whole_index.calls).toBe(SESSIONS);
  }, 120_000);

  it('rawrag stats pairs all four RAW-RAG variants', async () => {
    const dirs = ['raw-rag', ...SYSTEMS].map((s) => join(root, s));
    const stats = await rawragInProcess(['stats', ...dirs, '--resamples', '500', '--out', join(root, 'stats')]);
    expect(stats.code, stats.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(root, 'stats', 'stats.json'), 'utf8'));
    const fam = report.families[0];
    expect(fam.pairwise).toHaveLength(3);
    expect(fam.pairwise.every((p: any) => p.n === 20)).toBe(true);
    for (const s of ['RAW-RAG/local', 'RAW-RAG+facts/local', 'RAW-RAG+summaries/local', 'RAW-RAG+graph/local'])
      expect(stats.stdout).toContain(s);
  }, 60_000);
});
