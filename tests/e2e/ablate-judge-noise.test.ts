/**
 * Issue 34, problem 7: ablate's "Δ from unchanged evidence". Answers of evidence a variant leaves
 * unchanged are reused, so their share of a delta is 0 by construction: the table says so instead
 * of reporting it as a measurement, and `--rejudge-unchanged` reads and judges them again past the
 * response cache, so a noisy judge shows in that share (the paper's +0.281 caveat). A variant whose
 * evidence equals the reference's for every question gets a note (also a window sweep on MemoryAgentBench's
 * fact sources, chunked one fact per chunk). Through the CLI, against a
 * loopback API whose judge says WRONG to its first ten requests and CORRECT afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi, defaultChat, isJudgeRequest, readerQuestion, endpointArgs } from '../helpers/fake-api.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const env = {
  OPENAI_API_KEY: 'sk-test-NOISESECRET0123456789',
  RAWRAG_RETRY_BASE_MS: '5',
  OPENAI_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};

describe('rawrag ablate: the share of a delta from unchanged evidence', () => {
  let judged = 0;
  // A judge that says WRONG to its first ten requests and CORRECT after, whatever it is asked: noise, by construction.
  const api = new FakeApi({
    chat: (body) => (readerQuestion(body) !== null ? defaultChat(body) : ++judged <= 10 ? '{"label": "WRONG"}' : '{"label": "CORRECT"}'),
  });
  const cache = tempDir('rawrag-noise-cache-');
  const args = (out: string, ...extra: string[]) => [
    'ablate',
    'locomo',
    '--reader',
    'gpt-4o-mini',
    '--judge-runs',
    '1',
    '--limit',
    '30',
    '--max-evidence-tokens',
    '3000,100000',
    '--no-png',
    '--no-report',
    '--resamples',
    '200',
    '--out',
    out,
    ...endpointArgs(api).slice(0, 4),
    '--cache-dir',
    cache,
    '--no-progress',
    ...extra,
  ];
  const json = (dir: string) => JSON.parse(readFileSync(join(dir, 'ablation.json'), 'utf8'));
  beforeAll(() => api.start());
  afterAll(() => api.close());

  it('reused answers: the table says the share is not measured; an unchanging variant gets a note', async () => {
    const out = join(tempDir(), 'reused');
    const r = await rawragInProcess(args(out), env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/unchanged evidence \(answers reused\)/);
    expect(r.stdout).not.toMatch(/Δ from unchanged/);
    expect(r.stdout).toMatch(
      /note: answers of questions whose evidence did not change were reused, so they move no delta here by construction; rawrag ablate --rejudge-unchanged/,
    );
    expect(r.stdout).toMatch(
      /note: variant max-evidence=100000 showed exactly the evidence of the reference for every question: this sweep changes nothing here/,
    );
    const a = json(out);
    expect(a.rejudged_unchanged).toBe(false);
    const big = a.table.find((x: { variant: string }) => x.variant === 'max-evidence=100000');
    expect(big.identical_to).toBe('default');
    expect(big.unchanged).toBe(30);
    expect(big.delta_unchanged).toBe(0);
  }, 120_000);

  it('--rejudge-unchanged reads and judges them again past the cache: the judge noise shows', async () => {
    const out = join(tempDir(), 'rejudged');
    const before = api.requests.filter(isJudgeRequest).length;
    const r = await rawragInProcess(args(out, '--rejudge-unchanged'), env);
    expect(r.code, r.stderr).toBe(0);
    // The reference's judgements come from the cache of the first sweep (which judged only the reference:
    // the variants reused its answers); each of the two variants now judges every question again.
    expect(api.requests.filter(isJudgeRequest).length - before).toBe(2 * before);
    expect(r.stdout).toMatch(/unchanged evidence \(re-judged\)/);
    expect(r.stdout).toMatch(/Δ from unchanged \(pts, micro\)/);
    const a = json(out);
    expect(a.rejudged_unchanged).toBe(true);
    const big = a.table.find((x: { variant: string }) => x.variant === 'max-evidence=100000');
    expect(big.unchanged).toBe(30);
    // The reference was judged by the noisy start; the variant, asked the same again, is judged CORRECT throughout.
    expect(big.delta_unchanged).toBeGreaterThan(0);
    expect(big.delta_unchanged).toBeCloseTo(big.delta_micro, 12);
  }, 120_000);

  it('a window sweep on MemoryAgentBench fact sources (one chunk per fact) is named as changing nothing', async () => {
    const out = join(tempDir(), 'mab-window');
    const r = await rawragInProcess([
      'ablate',
      'memoryagentbench',
      '--data',
      'tests/fixtures/memoryagentbench/Conflict_Resolution.sample.json',
      '-B',
      'subset=all',
      '--window',
      '512',
      '--no-png',
      '--no-report',
      '--resamples',
      '200',
      '--out',
      out,
      '--no-progress',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /note: variant window=512,k=15 showed exactly the evidence of the reference for every question: this sweep changes nothing here/,
    );
    expect(json(out).table.find((x: { variant: string }) => x.variant === 'window=512,k=15').identical_to).toBe('default');
  }, 120_000);
});
