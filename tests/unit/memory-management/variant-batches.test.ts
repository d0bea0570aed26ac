/**
 * RAW-RAG's memory-management variants cut their ingest requests like the agentic memory does: a
 * MemoryAgentBench source is one 455-turn "session", which no model could read and answer in one
 * call; requests hold at most as many turns as the reply budget allows and fit the context window,
 * and the dry run says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FakeExtractor } from '../../helpers/fake-extractor.js';
import { isIngestRequest, withIngest } from '../../helpers/fake-ingest.js';
import { segmentOf } from '../../helpers/fake-extractor.js';
import { ROOT, tempDir } from '../../helpers/cli.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { dryRun } from '../../../src/pipeline/estimate.js';
import { executeRun } from '../../../src/pipeline/run.js';
import { countTokens } from '../../../src/retrieval/tokenizer.js';

const DATA = join(ROOT, 'tests/fixtures/memoryagentbench/Conflict_Resolution.sample.json');
const cfgOf = (system: string, extra: Record<string, unknown> = {}) =>
  RunConfigSchema.parse({
    benchmark: 'memoryagentbench',
    data: DATA,
    options: { subset: 'all' },
    system,
    reader: { model: 'gpt-4o-mini' },
    ...extra,
  });
let server: FakeExtractor;
beforeAll(async () => {
  server = await new FakeExtractor({ chat: withIngest() }).start();
});
afterAll(() => server.close());

describe('ingest batches of the RAW-RAG variants', () => {
  it('the dry run cuts the one-session source into requests of at most 68 turns (30 reply tokens per turn, 2,048 budget)', async () => {
    const text = await dryRun(cfgOf('raw-rag-facts'), { env: {} });
    expect(text).toMatch(/raw-rag-facts ingest \(atomic_facts, gpt-4o-mini\): 7 calls \(7 batches,/);
    expect(text).toMatch(
      /raw-rag-facts: ingest batches cut by tokens to fit gpt-4o-mini's 128,000-token context and the 2048-token reply budget: at most 68 turns \(30 reply tokens per turn\).*1 sessions cut into 7 requests/,
    );
  });

  it.each(['raw-rag-facts', 'raw-rag-summaries', 'raw-rag-graph'])(
    '%s: every request within the limits, every turn read once',
    async (system) => {
      const root = tempDir('rawrag-variant-batches-');
      const before = server.api.requests.filter(isIngestRequest).length;
      const run = await executeRun(
        {
          cfg: cfgOf(system, { limit: 2 }),
          out: join(root, 'run'),
          transport: {
            cacheDir: join(root, 'cache'),
            env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${server.url}/v1`, RAWRAG_RETRY_BASE_MS: '1' },
          },
        },
        { log: () => {} },
      );
      expect(run.manifest.status).toBe('complete');
      const sent = server.api.requests.filter(isIngestRequest).slice(before);
      const sizes = sent.map((r) => segmentOf(r.body).turnIds.length);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(455);
      expect(sizes.length).toBeGreaterThan(1);
      for (const r of sent) {
        const prompt = r.body.messages.map((m: { content: string }) => m.content).join('\n');
        expect(countTokens(prompt) + r.body.max_tokens).toBeLessThanOrEqual(128_000);
      }
    },
  );
});
