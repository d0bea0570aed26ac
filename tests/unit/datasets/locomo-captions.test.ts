/**
 * Issue 40, item 6: 316 LoCoMo turns have a `blip_caption` but no `img_url`. RAW-RAG keeps every
 * caption, as the paper does; EverMemOS, memU's evaluators, SimpleMem, A-MEM and EMem caption a turn
 * only where `img_url` is present, and their plug-ins declare it (`about.captions: 'with-image'`,
 * data, not a name test), so the shared memory-service layer feeds them as their loaders do.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT } from '../../helpers/cli.js';
import { locomo } from '../../../src/benchmarks/locomo/index.js';
import { ingest } from '../../../src/retrieval/chunk.js';
import { DEFAULT_POLICY } from '../../../src/core/policy.js';
import { planEpisode } from '../../../src/systems/memory-service/plan.js';
import { getSystem, listSystems } from '../../../src/systems/registry.js';

const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
const turns = ds.episodes.flatMap((e) => e.turns);
// The paper's five whose vendor loaders add a caption only with img_url, and Letta's leaderboard script (locomo_benchmark.py: `[Image: caption]` only for a turn with an image).
const WITH_IMAGE = ['evermemos', 'memu', 'simplemem', 'a-mem', 'emem', 'letta'];

describe('LoCoMo captions without their image', () => {
  it('the real locomo10.json: 1,226 captioned turns, 316 of them without img_url, marked and still captioned', () => {
    expect(turns.filter((t) => t.captions.length > 0)).toHaveLength(1226);
    const marked = turns.filter((t) => t.captionWithoutImage);
    expect(marked).toHaveLength(316);
    expect(marked.every((t) => t.captions.length === 1)).toBe(true);
  });

  it("a 'with-image' system gets no caption on those 316 turns, and every other caption; 'all' (RAW-RAG's rule) keeps all", () => {
    const policy = { ...DEFAULT_POLICY, chunking: 'turn' as const, serialisation: 'plain' as const };
    let stripped = 0;
    let kept = 0;
    for (const episode of ds.episodes) {
      const ep = ingest(episode, episode.turns.length, policy, { tokenizer: 'cl100k_base', size: 256, stride: 224 });
      const byId = new Map(episode.turns.map((t) => [t.id, t]));
      const sent = (captions: 'all' | 'with-image') =>
        planEpisode(ep, 'run', { owners: 'per-episode', batch: 'session' }, captions).owners[0]!.calls.flatMap((c) => c.messages);
      for (const m of sent('with-image')) {
        const t = byId.get(m.turnId)!;
        if (t.captionWithoutImage) {
          expect(m.captions).toEqual([]);
          expect(m.content).not.toContain('shared an image');
          stripped++;
        } else {
          expect(m.captions).toEqual(t.captions);
          if (t.captions.length) kept++;
        }
      }
      for (const m of sent('all')) expect(m.captions).toEqual(byId.get(m.turnId)!.captions);
    }
    expect(stripped).toBe(316);
    expect(kept).toBe(1226 - 316);
  });

  it('the plug-ins whose vendor loaders need img_url declare it; RAW-RAG and the rest keep every caption', () => {
    for (const name of WITH_IMAGE) expect(getSystem(name).about?.captions, name).toBe('with-image');
    const others = listSystems().filter((s) => !WITH_IMAGE.includes(s.name));
    expect(others.length).toBeGreaterThan(0);
    for (const s of others) expect(s.about?.captions ?? 'all', s.name).toBe('all');
    expect(getSystem('raw-rag').about?.captions ?? 'all').toBe('all');
  });
});
