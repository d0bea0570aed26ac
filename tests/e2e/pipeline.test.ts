/**
 * The one pipeline under `run` and `ablate`: a run directory only resumes a run of the same
 * identity (effective retriever, data, version), usage adds up across resumes, questions overlap
 * across episodes, and `ablate` writes what `run` writes. One writer at a time and signals ending a
 * run as `interrupted` (real processes racing and killed): tests/slow/pipeline-writers-signals.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const NO_KEYS = { OPENAI_API_KEY: undefined, COHERE_API_KEY: undefined, OPENAI_BASE_URL: undefined, COHERE_BASE_URL: undefined };

/** LoCoMo reduced to its first conversation (fast runs, a data file the test may edit). */
function oneConversation(): string {
  const data = json(join(ROOT, 'datasets/locomo/locomo10.json'));
  const file = join(tempDir('rawrag-pipe-data-'), 'locomo1.json');
  writeFileSync(file, JSON.stringify([data[0]]));
  return file;
}

describe('resume checks what really ran', () => {
  it('refuses to resume a run whose effective retriever differs (a fallback to local, then keys)', async () => {
    const api = await new FakeApi().start();
    try {
      const out = join(tempDir(), 'run');
      const first = await rawragInProcess(
        ['run', 'locomo', '--retriever', 'openai', '--limit', '3', '--out', out, '--no-progress', '--fallback', 'local'],
        NO_KEYS,
      );
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toMatch(/fell back to the local retriever/);
      expect(json(join(out, 'manifest.json')).system).toBe('RAW-RAG/local');
      const withKeys = await rawragInProcess(
        [
          'run',
          'locomo',
          '--retriever',
          'openai',
          '--limit',
          '3',
          '--out',
          out,
          '--no-progress',
          '--embed-base-url',
          `${api.url}/v1`,
          '--rerank-base-url',
          api.url,
          '--cache-dir',
          tempDir(),
        ],
        { ...NO_KEYS, OPENAI_API_KEY: 'sk-test-x', COHERE_API_KEY: 'co-test-x' },
      );
      expect(withKeys.code).toBe(2);
      expect(withKeys.stderr).toMatch(
        /holds a different run:\n  - system: RAW-RAG\/local \(now RAW-RAG\/openai:text-embedding-3-small\+cohere:rerank-v3\.5\)/,
      );
      expect(withKeys.stderr).toMatch(/--force-resume/);
      // Nothing was sent, and the directory still says what produced its items.
      expect(api.count()).toBe(0);
      const m = json(join(out, 'manifest.json'));
      expect([m.system, m.status]).toEqual(['RAW-RAG/local', 'complete']);
      expect(m.retriever.notes[0]).toMatch(/fell back to the local retriever/);
    } finally {
      await api.close();
    }
  });

  it('refuses to resume after the data file changed, and --force-resume records both identities', async () => {
    const data = oneConversation();
    const out = join(tempDir(), 'run');
    expect((await rawragInProcess(['run', 'locomo', '--data', data, '--limit', '3', '--out', out, '--no-progress'])).code).toBe(0);
    const d = json(data);
    d[0].qa[0].question = 'An edited question?';
    writeFileSync(data, JSON.stringify(d));
    const r = await rawragInProcess(['run', 'locomo', '--data', data, '--limit', '3', '--out', out, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/data file sha256: [0-9a-f]{10} \(now [0-9a-f]{10}\)/);
    const forced = await rawragInProcess([
      'run',
      'locomo',
      '--data',
      data,
      '--limit',
      '3',
      '--out',
      out,
      '--no-progress',
      '--force-resume',
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/resuming a different run \(--force-resume\)/);
    const m = json(join(out, 'manifest.json'));
    expect(m.forced_from).toHaveLength(1);
    expect(m.forced_from[0].data_sha256).not.toBe(m.identity.data_sha256);
  });

  it('a manifest without config_hash is a clear input error, not a crash', async () => {
    const out = tempDir();
    writeFileSync(join(out, 'manifest.json'), JSON.stringify({ format: 'rawrag.run/1' }));
    const r = await rawragInProcess(['run', 'locomo', '--limit', '2', '--out', out, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/manifest\.json: system: .*not a rawrag run manifest/);
  });
});

describe('usage across resumes', () => {
  it('a no-op resume still reports what the run cost in all (usage_cumulative), while usage counts this process only', async () => {
    const api = await new FakeApi().start();
    try {
      const out = join(tempDir(), 'run');
      const args = [
        'run',
        'locomo',
        '--reader',
        'gpt-4o-mini',
        '--limit',
        '3',
        '--out',
        out,
        '--no-progress',
        '--json',
        '--reader-base-url',
        `${api.url}/v1`,
        '--judge-base-url',
        `${api.url}/v1`,
        '--cache-dir',
        tempDir(),
      ];
      const env = { ...NO_KEYS, OPENAI_API_KEY: 'sk-test-x' };
      const first = JSON.parse((await rawragInProcess(args, env)).stdout);
      const again = JSON.parse((await rawragInProcess(args, env)).stdout);
      expect(first.usage_cumulative.reader.requests).toBe(3);
      // 3 answers x 3 runs, and conv-26:q2 (its gold corrected by the LoCoMo errata) x 3 under the other gold.
      expect(first.usage_cumulative.judge.requests).toBe(12);
      expect(again.usage.reader?.requests ?? 0).toBe(0);
      expect(again.usage_cumulative).toEqual(first.usage_cumulative);
      expect(api.count('/v1/chat/completions')).toBe(15);
    } finally {
      await api.close();
    }
  });
});

describe('scheduling across episodes', () => {
  it('--concurrency chat=6 keeps several reader requests in flight on LongMemEval (one question per episode)', async () => {
    const api = await new FakeApi({ delayMs: 300 }).start();
    try {
      const r = await rawragInProcess(
        [
          'run',
          'longmemeval',
          '--data',
          join(ROOT, 'tests/fixtures/longmemeval/longmemeval_oracle.sample.json'),
          '--reader',
          'gpt-4o-mini',
          '--judge-runs',
          '1',
          '--judge',
          'gpt-4o-mini',
          '--out',
          join(tempDir(), 'run'),
          '--no-progress',
          '--concurrency',
          'chat=6',
          '--reader-base-url',
          `${api.url}/v1`,
          '--judge-base-url',
          `${api.url}/v1`,
          '--cache-dir',
          tempDir(),
          '--max-error-rate',
          '1',
        ],
        { ...NO_KEYS, OPENAI_API_KEY: 'sk-test-x' },
      );
      expect(r.code, r.stderr).toBe(0);
      // 7 episodes of one question each: reader requests of different episodes overlap.
      expect(api.maxInFlight).toBeGreaterThanOrEqual(5);
    } finally {
      await api.close();
    }
  });
});

describe('ablate composes the same pipeline', () => {
  it('its reference variant writes the summary `rawrag run` writes (BEAM, with the corrected-rubric option)', async () => {
    const conv = join(ROOT, 'tests/fixtures/beam/100K/5');
    const runOut = join(tempDir(), 'run');
    const abOut = join(tempDir(), 'ab');
    const common = ['beam', '--data', conv, '-B', 'beam-rubric=corrected', '--limit', '6', '--no-progress'];
    expect((await rawragInProcess(['run', ...common, '--out', runOut])).code).toBe(0);
    const ab = await rawragInProcess(['ablate', ...common, '--k', '5', '--out', abOut]);
    expect(ab.code, ab.stderr).toBe(0);
    const a = json(join(runOut, 'summary.json'));
    const b = json(join(abOut, 'default', 'summary.json'));
    expect(b.benchmark_summary.scoring).toEqual(a.benchmark_summary.scoring);
    expect(b.benchmark_summary.scoring.variant).toBe('corrected');
    const eff = (s: any) => s.benchmark_summary.efficiency.conversations.map((c: any) => [c.messages, c.questions]);
    expect(eff(b)).toEqual(eff(a));
    expect(b.overall.coverage).toEqual(a.overall.coverage);
    expect(json(join(abOut, 'default', 'manifest.json')).identity.data_sha256).toBe(
      json(join(runOut, 'manifest.json')).identity.data_sha256,
    );
  });

  it('its reference variant writes the items `rawrag run` writes (PersonaMem)', async () => {
    const data = join(ROOT, 'tests/fixtures/personamem/benchmark/text/benchmark.csv');
    const runOut = join(tempDir(), 'run');
    const abOut = join(tempDir(), 'ab');
    const common = ['personamem', '--data', data, '--no-progress'];
    const r = await rawragInProcess(['run', ...common, '--out', runOut]);
    expect(r.code, r.stderr).toBe(0);
    expect((await rawragInProcess(['ablate', ...common, '--k', '5', '--out', abOut])).code).toBe(0);
    const strip = (i: any) => ({ ...i, timings: {}, retrieved: i.retrieved.map((x: any) => x.chunk) });
    const byId = (f: string) =>
      lines(f)
        .map(strip)
        .sort((x: any, y: any) => x.id.localeCompare(y.id));
    expect(byId(join(abOut, 'default', 'items.jsonl')).map((i: any) => [i.id, i.evidence_turns, i.coverage])).toEqual(
      byId(join(runOut, 'items.jsonl')).map((i: any) => [i.id, i.evidence_turns, i.coverage]),
    );
    expect(json(join(abOut, 'default', 'summary.json')).benchmark_summary).toEqual(json(join(runOut, 'summary.json')).benchmark_summary);
  });

  it('an episode whose index fails makes item errors instead of aborting the ablation', async () => {
    const api = await new FakeApi().start();
    try {
      api.inject({ kind: 'status', status: 400, times: Infinity, match: (x) => x.path === '/v1/embeddings' });
      const out = join(tempDir(), 'ab');
      const r = await rawragInProcess(
        [
          'ablate',
          'locomo',
          '--retriever',
          'openai',
          '--limit',
          '3',
          '--k',
          '5',
          '--out',
          out,
          '--no-progress',
          '--max-retries',
          '0',
          '--embed-base-url',
          `${api.url}/v1`,
          '--rerank-base-url',
          api.url,
          '--cache-dir',
          tempDir(),
        ],
        { ...NO_KEYS, OPENAI_API_KEY: 'sk-test-x', COHERE_API_KEY: 'co-test-x' },
      );
      expect(r.stderr).not.toMatch(/internal error/);
      for (const v of ['default', 'k=5']) {
        const items = lines(join(out, v, 'items.jsonl'));
        expect(items).toHaveLength(3);
        expect(items.every((i) => i.error?.stage === 'retrieve')).toBe(true);
      }
    } finally {
      await api.close();
    }
  });

  it('--dry-run writes nothing, not even the repair of a torn last line', async () => {
    const out = join(tempDir(), 'ab');
    const args = ['ablate', 'locomo', '--limit', '3', '--k', '5', '--out', out, '--no-progress'];
    expect((await rawragInProcess(args)).code).toBe(0);
    const file = join(out, 'default', 'items.jsonl');
    appendFileSync(file, '{"id": "torn');
    const before = readFileSync(file);
    const r = await rawragInProcess([...args, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    // Not silent while it ranks and counts: one line per variant's estimate.
    expect(r.stderr).toMatch(/estimating the calls of variant 2 of 2 \(k=5\)/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses an --out folder that holds something else', async () => {
    const out = tempDir();
    mkdirSync(join(out, 'thesis'));
    writeFileSync(join(out, 'notes.txt'), 'mine');
    const r = await rawragInProcess(['ablate', 'locomo', '--limit', '2', '--k', '5', '--out', out, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/holds other files/);
    cpSync(out, out + '-copy', { recursive: true });
  });
});
