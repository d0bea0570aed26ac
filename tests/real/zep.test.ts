/**
 * Graphiti, Zep's open-source engine (graphiti-core 0.31.2 on an embedded Kuzu database, installed
 * by `rawrag systems install zep`), started for you by `rawrag run --system zep -S api=graphiti`:
 * LoCoMo through the CLI against the loopback API, which answers Graphiti's own extraction prompts
 * in the structured form it parses (tests/helpers/loopback-llm/zep.ts) and its cross-encoder's
 * True/False with logprobs. Asserts what the library stored (facts and entities in Kuzu, facts
 * mapped back to their messages) and returned, then purges.
 */
import { describe, expect } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { realLibrary } from './real-library.js';

const real = realLibrary('zep');

const call = async (url: string, path: string, body: unknown): Promise<any> =>
  (await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

describe('zep: the real graphiti-core library on Kuzu', () => {
  real.test(
    'rawrag run locomo --system zep -S api=graphiti --limit 20: 0 errors; facts and entities from its own prompts in Kuzu; purged',
    async () => {
      const run = await real.runLocomo({ limit: 20, args: ['-S', 'api=graphiti'] });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
      expect(run.items.filter((i) => i.error)).toEqual([]);
      expect(run.manifest.system).toBe("Graphiti (Zep's open-source engine)");
      expect(run.manifest.retriever.library).toMatchObject({ name: 'graphiti-core', version: '0.31.2' });
      expect(run.result.stderr).toMatch(/started for you: graphiti-core 0\.31\.2/);

      // Graphiti's own prompts reached the API as json_schema requests named after its models, with the client's default model.
      const own = real.api.answeredBy('graphiti');
      const schema = (name: string) => own.filter((r) => r.body.response_format?.json_schema?.name === name);
      expect(schema('ExtractedEntities').length).toBeGreaterThan(400);
      expect(schema('ExtractedEdges').length).toBeGreaterThan(400);
      expect(schema('ExtractedEntities')[0]!.body.messages[0].content).toContain(
        'You are an entity extraction specialist for conversational messages',
      );
      expect(new Set(own.map((r) => r.body.model))).toEqual(new Set(['gpt-4.1-mini']));
      // Its cross-encoder asked for logprobs, one request per candidate fact, for every question.
      const reranks = own.filter((r) => r.body.logprobs === true);
      expect(reranks.length).toBeGreaterThanOrEqual(20);
      expect(reranks[0]!.body).toMatchObject({ max_tokens: 1, top_logprobs: 2 });
      const embeds = real.api.byPath('/v1/embeddings');
      expect(new Set(embeds.map((e) => e.body.model))).toEqual(new Set(['text-embedding-3-small']));

      // What the library holds, read through the sidecar from Kuzu: facts paraphrasing the messages, each mapped to its turn, and entities.
      const shown = await real.cli(['memory', 'show', run.dir, '--json']);
      const owner = (JSON.parse(shown.stdout) as Array<{ owner: string }>)[0]!.owner;
      const [held, searched] = await real.withStarted(async (url) => [
        (await call(url, '/list', { owner })).memories as Array<{ id: string; memory: string; turn_ids: string[] }>,
        (await call(url, '/search', { owner, query: run.items[0].question, limit: 40 })).results as Array<{ id: string }>,
      ]);
      const facts = held.filter((m) => m.id.startsWith('edge:'));
      const entities = held.filter((m) => m.id.startsWith('node:'));
      expect(facts.length).toBeGreaterThan(400);
      expect(entities.length).toBeGreaterThan(2);
      expect(facts.every((f) => f.turn_ids.length > 0)).toBe(true);
      expect(facts.map((f) => f.memory)).toContain('Caroline said: Hey Mel! Good to see you! How have you been?');
      const state = join(real.env().RAWRAG_CACHE_DIR, 'sidecars', 'zep', 'owners');
      expect(readdirSync(state).some((o) => existsSync(join(state, o, 'lib', 'graph.kuzu')))).toBe(true);
      console.log(
        `zep (graphiti-core on Kuzu): ${own.length} Graphiti requests (${schema('ExtractedEntities').length} entity extractions, ` +
          `${schema('ExtractedEdges').length} fact extractions, ${reranks.length} cross-encoder), ${embeds.length} embeddings; ` +
          `held ${facts.length} facts, ${entities.length} entities`,
      );

      // What it returned: a question's search from what it holds; the run's evidence came from it.
      expect(searched.length).toBeGreaterThan(0);
      const ids = new Set(held.map((m) => m.id));
      expect(searched.every((m) => ids.has(m.id))).toBe(true);
      expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBeGreaterThan(10);

      // rawrag memory purge empties it (started again for the purge).
      const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
      expect(purge.code, purge.stderr).toBe(0);
      expect(purge.stdout).toMatch(/verified, 0 memories left/);
      const left = await real.withStarted(async (url) => (await call(url, '/list', { owner })).memories.length);
      expect(left).toBe(0);
    },
    // Graphiti extracts per message (several LLM calls and Kuzu queries each): 419 episodes took 32 minutes on a loaded two-core machine.
    5_400_000,
  );
});
