/**
 * Mem0's own library (mem0ai, behind integrations/sidecars/mem0.py's REST routes), installed by
 * `rawrag systems install mem0` and started for you by `rawrag run`: LoCoMo through the CLI against
 * the loopback API, Mem0's own extraction prompts answered there as Mem0 parses them, what the
 * library stored and returned checked, then `rawrag memory purge` empties it.
 */
import { describe, expect } from 'vitest';
import { realLibrary } from './real-library.js';

const real = realLibrary('mem0');

describe('mem0: the real mem0ai library', () => {
  real.test('rawrag run locomo --system mem0 --reader gpt-4o-mini --limit 20: 0 errors, stored by Mem0, purged', async () => {
    const run = await real.runLocomo({ limit: 20 });
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(run.manifest.status).toBe('complete');
    expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
    expect(run.items.filter((i) => i.error)).toEqual([]);
    // The run records the library it started: name, version, where it came from.
    expect(run.manifest.retriever.library).toMatchObject({ name: 'mem0ai', version: '2.2.1', source: 'package index (mem0ai==2.2.1)' });
    expect(run.result.stderr).toMatch(/started for you: mem0ai 2\.2\.1/);

    // Mem0's own additive extraction prompt reached the loopback API, asking for JSON.
    const extractions = real.api.answeredBy('mem0');
    expect(extractions.length).toBeGreaterThan(100);
    expect(extractions[0]!.body.response_format).toEqual({ type: 'json_object' });
    expect(extractions[0]!.body.messages[0].content).toContain('You are a Memory Extractor');
    expect(extractions[0]!.body.model).toBe('gpt-4o-mini');
    // Its embedder asked for text-embedding-3-small (no `dimensions`: the library's default).
    const embeds = real.api.byPath('/v1/embeddings');
    expect(embeds.length).toBeGreaterThan(0);
    expect(embeds[0]!.body.model).toBe('text-embedding-3-small');

    // What the library stored: its own get_all, through the REST route, with rawrag's metadata kept.
    const owners: string[] = [...new Set(run.items.map((i) => i.episode as string))];
    expect(owners).toEqual(['conv-26']);
    const shown = await real.cli(['memory', 'show', run.dir, '--json']);
    const ownerIds = (JSON.parse(shown.stdout) as Array<{ owner: string }>).map((o) => o.owner);
    expect(ownerIds).toHaveLength(2);
    const stored = await real.withStarted(async (url) =>
      Promise.all(
        ownerIds.map(
          async (o) => ((await (await fetch(`${url}/memories?user_id=${encodeURIComponent(o)}&top_k=1000`)).json()) as any).results,
        ),
      ),
    );
    for (const memories of stored) {
      expect(memories.length).toBeGreaterThan(300);
      expect(memories[0].metadata.rawrag_add).toMatch(/^conv-26~/);
      expect(memories[0].user_id).toMatch(/conv-26~/);
    }
    const texts = new Set(stored.flat().map((m: any) => m.memory as string));
    expect(texts.has('Caroline: Hey Mel! Good to see you! How have you been?')).toBe(true);

    // What it returned: searches gave memories whose turns are the evidence the reader was shown.
    expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBeGreaterThan(15);
    const readerAsks = real.api.byPath('/v1/chat/completions').filter((r) => JSON.stringify(r.body.messages).includes('# Question'));
    expect(readerAsks.length).toBe(20);
    expect(readerAsks.some((r) => [...texts].some((t) => JSON.stringify(r.body.messages).includes(t.slice(0, 40))))).toBe(true);

    // rawrag memory purge empties the library's store (started again for the purge).
    const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
    expect(purge.code, purge.stderr).toBe(0);
    expect(purge.stdout.match(/verified, 0 memories left/g)).toHaveLength(2);
    const left = await real.withStarted(async (url) =>
      Promise.all(
        ownerIds.map(async (o) => ((await (await fetch(`${url}/memories?user_id=${encodeURIComponent(o)}`)).json()) as any).results.length),
      ),
    );
    expect(left).toEqual([0, 0]);
  });
});
