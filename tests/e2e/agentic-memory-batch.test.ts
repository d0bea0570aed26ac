import { endpointArgs } from '../helpers/fake-api.js';
/**
 * `rawrag run --system agentic-memory --batch`: extraction requests go into a provider batch job
 * like the reader's and judge's (the episode waits for them, no batch is counted as failed), and
 * the run completes with no chat request sent interactively.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FakeBatchApi } from '../helpers/fake-batch-api.js';
import { FakeExtractor, isExtractionRequest } from '../helpers/fake-extractor.js';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const env = {
  OPENAI_API_KEY: 'sk-test-BATCHMEM',
  COHERE_API_KEY: 'co-test-BATCHMEM',
  RAWRAG_RETRY_BASE_MS: '5',
  RAWRAG_BATCH_POLL_MS: '5',
  OPENAI_BASE_URL: undefined,
  COHERE_BASE_URL: undefined,
  RAWRAG_CACHE_DIR: undefined,
};

describe('rawrag run --system agentic-memory --batch', () => {
  const api = new FakeBatchApi({ chat: new FakeExtractor().chat });
  const out = join(tempDir(), 'batch');
  let r: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    await api.start();
    r = await rawragInProcess(
      [
        'run',
        'locomo',
        '--system',
        'agentic-memory',
        '--retriever',
        'openai',
        '--reader',
        'gpt-4o-mini',
        '--limit',
        '20',
        '--batch',
        ...endpointArgs(api),
        '--cache-dir',
        tempDir('rawrag-cache-'),
        '--out',
        out,
        '--no-progress',
        '--json',
      ],
      env,
    );
  }, 300_000);
  afterAll(() => api.close());

  it('extracts, reads and judges through batch jobs: every item answered, no extraction batch failed, no chat sent interactively', () => {
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.n).toBe(20);
    expect(s.errors).toBe(0);
    expect(api.interactiveChats()).toBe(0);
    // conv-26's 19 sessions were extracted inside a batch job, each once.
    const extractions = api.chat.requests.filter((q) => isExtractionRequest(q));
    expect(extractions).toHaveLength(19);
    const db = new Database(join(out, 'memory.sqlite'), { readonly: true });
    expect(db.prepare('SELECT status, COUNT(*) AS n FROM extractions GROUP BY status').all()).toEqual([{ status: 'ok', n: 19 }]);
    db.close();
    const items = readFileSync(join(out, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(items.every((i: any) => i.recalled.length > 0 && i.details.reader)).toBe(true);
  });
});
