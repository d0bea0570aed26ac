/**
 * `--epochs N` through the real CLI against a loopback OpenAI-compatible server whose reader answers
 * a question differently each time it is asked (the gold answer every second time): three reader
 * requests per question with distinct cache keys, each answer judged, the item score the mean of
 * the epochs, the per-epoch accuracy in the summary, the between-epoch variance beside the judge
 * variance in `rawrag stats`, a resume that sends nothing, and epochs as part of the run identity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeApi, defaultChat, isJudgeRequest, readerQuestion } from '../helpers/fake-api.js';
import { locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const goldOf = new Map(ds.questions.map((q) => [q.text, q.gold]));
const env = loopbackEnv({ openai: 'sk-test-EPOCHSSECRET0123456789' });

describe('rawrag run --epochs 3', () => {
  const asked = new Map<string, number>();
  // A reader that knows the answer every second time it is asked the same question.
  const api = new FakeApi({
    chat: (body) => {
      const q = readerQuestion(body);
      if (q === null) return defaultChat(body);
      const n = asked.get(q) ?? 0;
      asked.set(q, n + 1);
      return n % 2 === 1 ? String(goldOf.get(q)) : "I don't know";
    },
  });
  const cache = tempDir('rawrag-epochs-cache-');
  const root = tempDir('rawrag-epochs-');
  const out = join(root, 'run');
  const args = (...extra: string[]) => locomoRunArgs({ out, peer: api, chatOnly: true, cache, limit: 6, json: false, extra });
  let first: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    await api.start();
    first = await rawragInProcess(args('--epochs', '3'), env);
  }, 120_000);
  afterAll(() => api.close());

  it('sends three reader requests per question, each answer judged (3 runs), the item score the mean of the epochs', () => {
    expect(first.code, first.stderr).toBe(0);
    const readers = api.requests.filter((r) => r.path === '/v1/chat/completions' && !isJudgeRequest(r));
    expect(readers).toHaveLength(6 * 3);
    for (const q of new Set(readers.map((r) => readerQuestion(r.body))))
      expect(readers.filter((r) => readerQuestion(r.body) === q)).toHaveLength(3);
    const items = readItems(out);
    expect(items).toHaveLength(6);
    for (const it of items) {
      expect(it.details.epochs.map((e: any) => e.epoch)).toEqual([1, 2, 3]);
      expect(it.details.epochs.map((e: any) => e.answer)).toEqual(["I don't know", String(it.gold), "I don't know"]);
      const scores = it.details.epochs.map((e: any) => e.score);
      expect(it.score).toBeCloseTo(scores.reduce((a: number, b: number) => a + b, 0) / 3, 12);
      // The judge's votes per run, averaged over the epochs: their mean is the item score.
      expect(it.details.judge.votes).toHaveLength(3);
      expect(it.details.judge.votes.reduce((a: number, b: number) => a + b, 0) / 3).toBeCloseTo(it.score, 12);
      expect(it.answer).toBe("I don't know");
      expect(it.details.usage.reader.requests).toBe(3);
    }
    // Epochs 1 and 3 gave the same answer: its verdicts come from the cache, so a question has at most 2 x 3 judge requests.
    expect(api.requests.filter(isJudgeRequest).length).toBeLessThanOrEqual(6 * 2 * 3 * 2);
    expect(first.stderr).toContain('note: 3 epochs at reader temperature 0');
  });

  it('the summary reports the accuracy of each epoch', () => {
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(s.overall.epochs.runs).toBe(3);
    expect(s.overall.epochs.accuracy[0]).toBe(0);
    expect(s.overall.epochs.accuracy[2]).toBe(0);
    expect(s.overall.epochs.accuracy[1]).toBeGreaterThan(0);
    expect(s.reader.epochs).toBe(3);
    expect(first.stdout).toMatch(/epochs \(overall accuracy of each of the 3 answers per question\): 0\.00 \/ \d+\.\d\d \/ 0\.00 %/);
  });

  it('the same command again sends nothing; the run without --epochs is another run', async () => {
    api.requests.length = 0;
    const again = await rawragInProcess(args('--epochs', '3'), env);
    expect(again.code, again.stderr).toBe(0);
    expect(api.count()).toBe(0);
    const other = await rawragInProcess(args(), env);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/this run directory holds a different run/);
    expect(other.stderr).toMatch(/epochs/);
  }, 120_000);

  it('rawrag stats reports the between-epoch variance beside the judge variance', async () => {
    const r = await rawragInProcess(['stats', out, '--no-report', '--resamples', '200'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('### Between epochs (--epochs: the reader answered each question several times) beside between judge runs');
    expect(r.stdout).toMatch(/\| RAW-RAG\/local +\| +6 \| +3 \| 0\.00; \d+\.\d\d; 0\.00 +\| +\d+\.\d\d \| +3 \| +0\.00 \|/);
    const json = JSON.parse(readFileSync(join(out, 'stats', 'stats.json'), 'utf8'));
    const row = json.families[0].epochs[0];
    expect(row.epochs).toBe(3);
    expect(row.sd_epochs).toBeGreaterThan(0);
    expect(row.sd_judge_runs).toBe(0);
  }, 120_000);
});
