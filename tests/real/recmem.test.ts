/**
 * RecMem's own code (CaiusDai/RecMem@a84252f6, from a checkout as its authors run it: `rawrag
 * systems install recmem` finds it in RAWRAG_SOURCES/RecMem and installs its requirements.txt; the
 * sidecar imports `recmem` from that checkout) started for you by `rawrag run`: LoCoMo through the
 * CLI against the loopback API, which answers RecMem's own prompts in the JSON RecMem parses
 * (tests/helpers/loopback-llm/recmem.ts). Asserts what the library stored (its three embedded Qdrant
 * layers, as its own list_memories reads them) and returned, then `rawrag memory purge` empties it.
 */
import { describe, expect } from 'vitest';
import { realLibrary } from './real-library.js';
import { standinAnswers, urlSide } from './real-sidecar.js';

const real = realLibrary('recmem');

const call = async (url: string, path: string, body: unknown): Promise<any> =>
  (await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

describe('recmem: the real RecMem library', () => {
  real.test(
    'rawrag run locomo --system recmem --limit 20: 0 errors; raw, episodic and semantic memories from its own prompts; purged',
    async () => {
      const run = await real.runLocomo({ limit: 20 });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
      expect(run.items.filter((i) => i.error)).toEqual([]);
      expect(run.manifest.retriever.library).toMatchObject({ name: 'RecMem', version: 'a84252f6' });
      expect(run.manifest.retriever.library.source).toMatch(/^checkout CaiusDai\/RecMem@a84252f6e558/);

      // RecMem's own prompts reached the API as JSON-mode requests; it embedded with its model at 1536 dimensions.
      const own = real.api.answeredBy('recmem');
      const kind = (marker: string) => own.filter((r) => JSON.stringify(r.body.messages).includes(marker)).length;
      expect(kind('You are an Episodic Memory Constructor')).toBeGreaterThan(0);
      expect(kind('You are a Semantic Memory Extractor')).toBeGreaterThan(0);
      expect(own.every((r) => r.body.response_format?.type === 'json_object' && r.body.model === 'gpt-4.1-mini')).toBe(true);
      const embeds = real.api.byPath('/v1/embeddings');
      expect(embeds.length).toBeGreaterThan(0);
      expect(embeds.every((e) => e.body.model === 'text-embedding-3-small' && e.body.dimensions === 1536)).toBe(true);

      // What the library holds: raw messages as add_memory wrote them (mapped to their turns), and the
      // episodes and facts it parsed from the JSON answers.
      const shown = await real.cli(['memory', 'show', run.dir, '--json']);
      const owner = (JSON.parse(shown.stdout) as Array<{ owner: string }>)[0]!.owner;
      const question = run.items[0].question as string;
      const [held, searched] = await real.withStarted(async (url) => [
        (await call(url, '/list', { owner })).memories as Array<{ id: string; memory: string; turn_ids: string[] }>,
        (await call(url, '/search', { owner, query: question, limit: 25 })).results as Array<{ id: string }>,
      ]);
      const raw = held.filter((m) => m.id.startsWith('raw-'));
      const episodic = held.filter((m) => m.id.startsWith('episodic-'));
      const semantic = held.filter((m) => m.id.startsWith('semantic-'));
      expect(raw.length).toBeGreaterThan(100);
      expect(raw[0]!.memory).toMatch(/^\[Message Timestamp\]: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \[Message\]: \[[A-Z][a-z]+\]: /);
      expect(raw.every((m) => m.turn_ids.length > 0)).toBe(true);
      expect(episodic.length).toBeGreaterThan(0);
      expect(episodic.every((m) => m.memory.startsWith('Episode: '))).toBe(true);
      expect(semantic.length).toBeGreaterThan(0);
      expect(semantic.every((m) => m.memory.startsWith('Fact: '))).toBe(true);
      console.log(
        `recmem (real library): ${own.length} RecMem prompts (${kind('Constructor')} episodic, ${kind('Merger')} merge, ` +
          `${kind('Semantic Memory Extractor')} semantic), ${embeds.length} embeddings; held ${raw.length} raw, ${episodic.length} episodic, ${semantic.length} semantic`,
      );

      // What it returned: a question's search answered from what it holds; the run's evidence came from it.
      expect(searched.length).toBeGreaterThan(0);
      const ids = new Set(held.map((m) => m.id));
      expect(searched.every((m) => ids.has(m.id))).toBe(true);
      expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBeGreaterThan(10);

      // rawrag memory purge empties it (started again for the purge; after deleting, the CLI lists the owner: 0 left).
      const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
      expect(purge.code, purge.stderr).toBe(0);
      expect(purge.stdout).toMatch(/verified, 0 memories left/);
    },
  );

  real.test('the stand-in answers the same calls as RecMem: the same raw messages, mapped to the same turns', async () => {
    // Four messages stay raw (subconscious) memories in both: too few for RecMem to consolidate into episodes.
    const { real: r, standin } = await real.withStarted((url) =>
      standinAnswers({
        system: 'recmem',
        real: urlSide(url),
        env: { OPENAI_API_KEY: real.env().OPENAI_API_KEY, OPENAI_BASE_URL: real.env().OPENAI_BASE_URL },
        pick: (list, search) => ({
          raw: list.filter((m) => m.id.startsWith('raw-')).map((m) => [m.memory, m.turn_ids]),
          searchedTurns: search.length > 0 && search.every((m) => m.turn_ids.length > 0),
        }),
      }),
    );
    expect(r.raw).toHaveLength(4);
    expect(r.searchedTurns).toBe(true);
    expect(standin).toEqual(r);
  });
});
