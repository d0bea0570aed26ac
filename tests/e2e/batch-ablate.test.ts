/**
 * `rawrag ablate --batch` against the loopback Files/Batches peer: every variant's reader and
 * judge requests go out in batch jobs, and each variant's items equal the interactive ablation's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeBatchApi } from '../helpers/fake-batch-api.js';
import { defaultChat, readerQuestion, endpointArgs } from '../helpers/fake-api.js';
import { ROOT, tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';

const LIMIT = 12;
const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const goldOf = new Map(ds.questions.slice(0, LIMIT).map((q) => [q.text, q.gold]));
/** Right exactly when the gold answer is in the evidence shown: variants then differ. */
function evidenceReader(body: any): string {
  const q = readerQuestion(body);
  if (q === null) return defaultChat(body);
  const user = (body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')!.content;
  const gold = goldOf.get(q) ?? '';
  return gold && user.split('# Context:')[1]!.toLowerCase().includes(gold.toLowerCase()) ? gold : "I don't know";
}

const env = {
  OPENAI_API_KEY: 'sk-test-ABL',
  COHERE_API_KEY: 'co-test-ABL',
  RAWRAG_RETRY_BASE_MS: '5',
  RAWRAG_BATCH_POLL_MS: '5',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};
const VARIANTS = ['default', 'k=1', 'k=30'];
const decided = (dir: string) =>
  readFileSync(join(dir, 'items.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((i) => ({ id: i.id, answer: i.answer, score: i.score, votes: i.details.judge?.votes, coverage: i.coverage, error: i.error }));

describe('rawrag ablate --batch', () => {
  const api = new FakeBatchApi({ chat: evidenceReader });
  const batchOut = join(tempDir(), 'abl-batch');
  const liveOut = join(tempDir(), 'abl-live');
  let batch: CliResult;
  let live: CliResult;
  let batches = 0;

  beforeAll(async () => {
    await api.start();
    const common = (out: string) => [
      'ablate',
      'locomo',
      '--retriever',
      'openai',
      '--reader',
      'gpt-4o-mini',
      '--limit',
      String(LIMIT),
      '--k',
      '1,30',
      '--out',
      out,
      '--no-png',
      '--resamples',
      '500',
      '--no-progress',
      ...endpointArgs(api),
    ];
    batch = await rawragInProcess([...common(batchOut), '--cache-dir', tempDir('rawrag-cache-'), '--batch'], env);
    batches = api.batches.size;
    live = await rawragInProcess([...common(liveOut), '--cache-dir', tempDir('rawrag-cache-')], env);
  }, 180_000);
  afterAll(() => api.close());

  it("answers every variant from two batch jobs, with the interactive ablation's items", () => {
    expect(batch.code).toBe(0);
    expect(live.code).toBe(0);
    expect(batches).toBe(2);
    expect(batch.stderr).toMatch(/pass 1: \d+ requests go out as batch jobs \(\d+ reader\)/);
    expect(batch.stderr).toMatch(/replies from batches: cost at batch prices \$0\.\d{4} \(interactive prices: \$0\.\d{4}\)/);
    const interactive = api.chat.requests.filter((r) => r.path === '/v1/chat/completions' && !r.headers['x-fake-batch']).length;
    const inBatches = api.chat.requests.filter((r) => r.headers['x-fake-batch']).length;
    expect(interactive).toBe(inBatches); // the live ablation sent exactly what the batches ran
    for (const v of VARIANTS) expect(decided(join(batchOut, v))).toEqual(decided(join(liveOut, v)));
    // The ablation table too, but for its last column (time per question).
    const table = (dir: string) =>
      readFileSync(join(dir, 'ablation.md'), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('| '))
        .map((l) => l.split('|').slice(1, -2).join('|'));
    expect(table(batchOut).length).toBeGreaterThan(3);
    expect(table(batchOut)).toEqual(table(liveOut));
  });
});
