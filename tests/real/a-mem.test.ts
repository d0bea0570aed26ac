/**
 * The real-library tier: the paper's A-MEM (WujiangXu/AgenticMemory@7f716dc5 memory_layer.py,
 * installed by `rawrag systems install a-mem --source DIR`) behind its sidecar, its LLM calls
 * (note analysis, evolution, query keywords) answered by the loopback API in the form
 * memory_layer parses, its embeddings all-MiniLM-L6-v2 from the installed package (no download).
 * - `rawrag run locomo --system a-mem --reader gpt-4o-mini --limit 20` ends with 0 errors, the
 *   library stored each turn as a note with the keywords, context and tags its LLM wrote, searches
 *   returned memory_layer's lines, and a purge leaves nothing;
 * - the stand-in (tests/fixtures/sidecars/memory_layer.py) answers the same calls in the same form:
 *   the same notes, the same line layout.
 * Heavy (PyTorch): runs on demand, `RAWRAG_REAL_HEAVY=1 RAWRAG_SYSTEMS_DIR=... RAWRAG_SOURCES=... npm run test:real -- tests/real/a-mem.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FakeApi } from '../helpers/fake-api.js';
import { ROOT } from '../helpers/cli.js';
import { loopbackResponders } from '../helpers/loopback-llm/index.js';
import { evidenceReader } from '../helpers/loopback-run.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import { locomoThroughRealSidecar, RealSidecar, SOURCES, standinAnswers, whyNotRun } from './real-sidecar.js';

const skip = whyNotRun('a-mem', 'AgenticMemory');
const KEY = 'sk-test-REALAMEM0123456789';
const LINE = /^talk start time:.*memory content: Speaker \S+says : .*memory context: .*memory keywords: \[.*\]memory tags: \[.*\]$/;

describe.skipIf(skip !== null)(`A-MEM, the real memory_layer.py${skip ? ` (not run: ${skip})` : ''}`, () => {
  let api: FakeApi;
  let real: RealSidecar;
  beforeAll(async () => {
    const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    api = new FakeApi({ chat: evidenceReader(ds.questions), responders: await loopbackResponders(), nativeDims: true });
    await api.start();
    real = await new RealSidecar('a-mem', ['--source', join(SOURCES!, 'AgenticMemory')], {
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: `${api.url}/v1`,
    }).start();
  }, 600_000);
  afterAll(async () => {
    await real?.close();
    await api?.close();
  });

  it('rawrag run locomo --limit 20 ends with 0 errors; each turn is a note with LLM-written keywords, context and tags; purge empties it', async () => {
    const { items } = await locomoThroughRealSidecar({
      system: 'a-mem',
      real,
      api,
      key: KEY,
      stored: (memories) => {
        expect(memories.length).toBeGreaterThan(0);
        for (const m of memories) {
          expect(m.memory).toMatch(LINE);
          expect(m.memory).toContain('memory context: Conversation: ');
          // Tags from the note's analysis, or, once memory_layer's evolution step strengthens the note,
          // the evolution reply's tags_to_update (its first content words: 'Speaker', ...): both LLM-written.
          expect(m.memory).toMatch(/memory tags: \[('conversation', 'personal'|'Speaker', ')/);
          expect(m.turn_ids).toHaveLength(1);
        }
      },
    });
    // memory_layer's own calls reached the API: one analysis per note, one evolution prompt per note, one keyword prompt per question.
    const prompts = api.byPath('/v1/chat/completions').map((q) => JSON.stringify(q.body.messages));
    const analyses = prompts.filter((p) => p.includes('Content for analysis:')).length;
    expect(analyses).toBeGreaterThan(0);
    expect(prompts.filter((p) => p.includes('You are an AI memory evolution agent')).length).toBe(analyses);
    expect(prompts.filter((p) => p.includes("using 'cosmos' as the separator")).length).toBe(20);
    // A service's memories reach the reader as evidence (its turns, its tokens); `retrieved` is RAW-RAG's windows, empty here.
    expect(items.filter((i) => i.evidence_turns.length > 0 && i.evidence_tokens > 0)).toHaveLength(20);
  }, 3_600_000);

  it('the stand-in answers the same calls as memory_layer.py does: the same notes, the same line layout, each mapped to its turn', async () => {
    const contentOf = (m: { memory: string }) => /memory content: (.*?)memory context:/.exec(m.memory)?.[1];
    const { real: r, standin } = await standinAnswers({
      system: 'a-mem',
      real,
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${api.url}/v1` },
      pick: (list, search) => ({
        notes: list.map((m) => [contentOf(m), m.turn_ids]),
        layout: search.length > 0 && search.every((m) => LINE.test(m.memory)),
      }),
    });
    expect(r.layout).toBe(true);
    expect(standin).toEqual(r);
  }, 600_000);
});
