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
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { loopbackResponders } from '../helpers/loopback-llm/index.js';
import { evidenceReader, ingestLog, locomoRunArgs, loopbackEnv, readItems } from '../helpers/loopback-run.js';
import { STANDINS } from '../helpers/sidecar-peer.js';
import { locomo } from '../../src/datasets/locomo/index.js';
import { probeAdds, RealSidecar, SOURCES, whyNotRun } from './real-sidecar.js';

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
    const root = tempDir('rawrag-real-amem-');
    const out = join(root, 'run');
    const env = loopbackEnv({ openai: KEY });
    const r = await rawragInProcess(
      locomoRunArgs({
        system: 'a-mem',
        out,
        peer: api,
        chatOnly: true,
        cache: join(root, 'cache'),
        limit: 20,
        extra: ['-S', `url=${real.url}`],
      }),
      env,
    );
    expect(r.code, r.stderr + real.stderr.slice(-3000)).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.errors).toBe(0);
    expect(summary.n).toBe(20);
    const owners = new Map<string, string>(ingestLog(out).map((e: { owner: string; episode: string }) => [e.episode, e.owner]));
    expect(owners.size).toBeGreaterThan(0);
    // memory_layer's own calls reached the API: one analysis per note, one evolution prompt per note, one keyword prompt per question.
    const prompts = api.byPath('/v1/chat/completions').map((q) => JSON.stringify(q.body.messages));
    const analyses = prompts.filter((p) => p.includes('Content for analysis:')).length;
    expect(analyses).toBeGreaterThan(0);
    expect(prompts.filter((p) => p.includes('You are an AI memory evolution agent')).length).toBe(analyses);
    expect(prompts.filter((p) => p.includes("using 'cosmos' as the separator")).length).toBe(20);
    for (const owner of owners.values()) {
      const { memories } = await real.post('/list', { owner });
      expect(memories.length).toBeGreaterThan(0);
      for (const m of memories) {
        expect(m.memory).toMatch(LINE);
        expect(m.memory).toContain('memory context: Conversation: ');
        expect(m.memory).toMatch(/memory tags: \['conversation', 'personal'/);
        expect(m.turn_ids).toHaveLength(1);
      }
    }
    const answered = readItems(out).filter((i) => (i.retrieved ?? i.memories ?? []).length > 0 || i.context_tokens > 0);
    expect(answered.length).toBeGreaterThan(0);
    for (const [episode, owner] of owners) {
      const p = await rawragInProcess(['memory', 'purge', out, '--owner', episode], env);
      expect(p.code, p.stderr).toBe(0);
      expect((await real.post('/list', { owner })).memories).toEqual([]);
    }
  }, 3_600_000);

  it('the stand-in answers the same calls as memory_layer.py does: the same notes, the same line layout, each mapped to its turn', async () => {
    const standin = await new RealSidecar(
      'a-mem',
      [],
      { PYTHONPATH: STANDINS, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${api.url}/v1` },
      'python3',
    ).start();
    try {
      const owner = 'probe-compare';
      const lists = [];
      const searches = [];
      for (const side of [real, standin]) {
        await side.feed(owner, probeAdds(owner));
        lists.push((await side.post('/list', { owner })).memories);
        searches.push((await side.post('/search', { owner, query: 'What did Melanie paint?', limit: 10 })).results);
        await side.post('/delete', { owner });
      }
      const contentOf = (m: { memory: string }) => /memory content: (.*?)memory context:/.exec(m.memory)?.[1];
      expect(lists[1].map(contentOf)).toEqual(lists[0].map(contentOf));
      expect(lists[1].map((m: { turn_ids: string[] }) => m.turn_ids)).toEqual(lists[0].map((m: { turn_ids: string[] }) => m.turn_ids));
      for (const results of searches) {
        expect(results.length).toBeGreaterThan(0);
        for (const m of results) expect(m.memory).toMatch(LINE);
      }
    } finally {
      await standin.close();
    }
  }, 600_000);
});
