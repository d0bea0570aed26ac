/**
 * The real-library tier: EMem (KevinSRR/EMem@f83c0b9a, installed by `rawrag systems install emem
 * --source DIR`) behind its sidecar, SUPPORT_JSON_SCHEMA=true and text-embedding-3-small as the
 * authors' run script sets them, its LLM calls (EDU extraction, event extraction, query NER) answered
 * by the loopback API as JSON of the schema each asks for, its embeddings from the loopback API:
 * `rawrag run locomo --system emem --limit 20` ends with 0 errors, /list right after indexing shows
 * the EDUs EMem saved (before its first retrieval creates structuring_results_dict), and a purge
 * leaves nothing.
 * Heavy (PyTorch): `RAWRAG_REAL_HEAVY=1 RAWRAG_SYSTEMS_DIR=... RAWRAG_SOURCES=... npm run test:real -- tests/real/emem.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT } from '../helpers/cli.js';
import { loopbackResponders } from '../helpers/loopback-llm/index.js';
import { evidenceReader } from '../helpers/loopback-run.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import { locomoThroughRealSidecar, probeAdds, RealSidecar, standinAnswers, whyNotRun } from './real-sidecar.js';

const skip = whyNotRun('emem', 'EMem');
const KEY = 'sk-test-REALEMEM0123456789';

describe.skipIf(skip !== null)(`EMem, the real library${skip ? ` (not run: ${skip})` : ''}`, () => {
  let api: FakeApi;
  let real: RealSidecar;
  beforeAll(async () => {
    const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    api = new FakeApi({ chat: evidenceReader(ds.questions), responders: await loopbackResponders(), nativeDims: true });
    await api.start();
    // SUPPORT_JSON_SCHEMA left unset: the sidecar sets it as the authors' script does.
    real = await new RealSidecar('emem', [], { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${api.url}/v1` }).start();
  }, 600_000);
  afterAll(async () => {
    await real?.close();
    await api?.close();
  });

  it('/list and /delete right after indexing, before any retrieval, show and remove the EDUs EMem saved', async () => {
    const owner = 'probe-list';
    await real.feed(owner, probeAdds(owner));
    const { memories } = await real.post('/list', { owner });
    expect(memories.length).toBeGreaterThan(0);
    expect(memories[0].memory).toMatch(/^\[Source conversation date: .* - Source speakers: .*\] "/);
    expect((await real.post('/delete', { owner })).deleted).toBe(memories.length);
    expect(api.byPath('/v1/embeddings').every((q) => q.body.model === 'text-embedding-3-small')).toBe(true);
  }, 3_600_000);

  it('rawrag run locomo --limit 20 ends with 0 errors; purge empties it', async () => {
    await locomoThroughRealSidecar({ system: 'emem', real, api, key: KEY, stored: (m) => expect(m.length).toBeGreaterThan(0) });
  }, 3_600_000);

  it("the stand-in answers the same calls as EMem: EDUs in the library's QA layout, covering the same turns", async () => {
    const LAYOUT = /^\[Source conversation date: .* - Source speakers: .*\] "/;
    const { real: r, standin } = await standinAnswers({
      system: 'emem',
      real,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${api.url}/v1` },
      pick: (list, search) => ({
        layout: list.length > 0 && [...list, ...search].every((m) => LAYOUT.test(m.memory)),
        turns: [...new Set(list.flatMap((m) => m.turn_ids))].sort(),
      }),
    });
    expect(r.layout).toBe(true);
    expect(standin).toEqual(r);
  }, 600_000);
});
