/**
 * Nemori's own code (nemori-ai/nemori@d2a6dff6, `rawrag systems install nemori` from its checkout in
 * RAWRAG_SOURCES/nemori, `pip install -e .`) started for you by `rawrag run`, on the sidecar's private
 * PostgreSQL (the machine's postgresql-15, initdb under the state folder) and Qdrant in local mode:
 * LoCoMo through the CLI against the loopback API, which answers Nemori's own prompts in the JSON its
 * generators parse (tests/helpers/loopback-llm/nemori.ts). Asserts what the library stored (episodes
 * and semantic memories in PostgreSQL, vectors in Qdrant's folder) and returned, then purges.
 */
import { describe, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { realLibrary } from './real-library.js';
import { standinAnswers, urlSide } from './real-sidecar.js';

const real = realLibrary('nemori');
const postgres = existsSync('/usr/lib/postgresql') || spawnSync('pg_ctl', ['--version']).status === 0;

const call = async (url: string, path: string, body: unknown): Promise<any> =>
  (await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

describe('nemori: the real Nemori library', () => {
  real.test(
    'rawrag run locomo --system nemori --limit 20: 0 errors; episodes and semantic memories from its own prompts; purged',
    async () => {
      expect(postgres, 'PostgreSQL (initdb, pg_ctl) must be installed: apt-get install postgresql-15').toBe(true);
      // Under root the private cluster runs as the `postgres` user, who must reach the state folder.
      const cache = real.env().RAWRAG_CACHE_DIR;
      chmodSync(cache, 0o755);
      const run = await real.runLocomo({ limit: 20 });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
      expect(run.items.filter((i) => i.error)).toEqual([]);
      expect(run.manifest.retriever.library).toMatchObject({ name: 'nemori', version: '0.2.0 (d2a6dff6)' });

      // Nemori's own prompts reached the API with the script's model; the facade probed and used the script's embedding model.
      const own = real.api.answeredBy('nemori');
      const kind = (marker: string) => own.filter((r) => JSON.stringify(r.body.messages).includes(marker)).length;
      expect(kind('Boundary detection reason:')).toBeGreaterThan(0);
      expect(kind('knowledge-based episode prediction system') + kind('Extract HIGH-VALUE, PERSISTENT')).toBeGreaterThan(0);
      expect(new Set(own.map((r) => r.body.model))).toEqual(new Set(['openai/gpt-4.1-mini']));
      const embeds = real.api.byPath('/v1/embeddings');
      expect(new Set(embeds.map((e) => e.body.model))).toEqual(new Set(['google/gemini-embedding-001']));

      // What the library holds, read through its PostgreSQL stores: episodes it parsed (not its
      // fallback), each mapped to the turns of its source messages, and semantic memories.
      const shown = await real.cli(['memory', 'show', run.dir, '--json']);
      const owner = (JSON.parse(shown.stdout) as Array<{ owner: string }>)[0]!.owner;
      const [held, searched] = await real.withStarted(async (url) => [
        (await call(url, '/list', { owner })).memories as Array<{ id: string; memory: string; turn_ids: string[] }>,
        (await call(url, '/search', { owner, query: run.items[0].question, limit: 30 })).results as Array<{ id: string }>,
      ]);
      const episodes = held.filter((m) => m.memory.startsWith('Episode: '));
      const semantic = held.filter((m) => m.memory.startsWith('Statement: '));
      expect(episodes.length).toBeGreaterThan(0);
      expect(episodes.length + semantic.length).toBe(held.length);
      expect(episodes.every((m) => m.turn_ids.length > 0)).toBe(true);
      expect(semantic.length).toBeGreaterThan(0);
      const state = join(cache, 'sidecars', 'nemori');
      expect(existsSync(join(state, 'qdrant', 'collection', 'nemori_episodes'))).toBe(true);
      expect(existsSync(join(state, 'postgres', 'data', 'PG_VERSION'))).toBe(true);
      console.log(
        `nemori (real library): ${own.length} Nemori prompts (${kind('segmentation expert')} segmentation, ${kind('Boundary detection reason:')} episode, ` +
          `${kind('prediction system')} prediction, ${kind('comparing original')} extraction, ${kind('merge decision')} merge decision), ` +
          `${embeds.length} embeddings; held ${episodes.length} episodes, ${semantic.length} semantic memories`,
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

  real.test("the stand-in answers the same calls as Nemori: every turn in an episode, episodes mapped to their source messages' turns", async () => {
    expect(postgres, 'PostgreSQL (initdb, pg_ctl) must be installed: apt-get install postgresql-15').toBe(true);
    chmodSync(real.env().RAWRAG_CACHE_DIR, 0o755);
    // Episodes' text is the LLM's in the real library and the messages in the stand-in: compared by the turns they cover.
    const turnsOf = (list: Array<{ memory: string; turn_ids: string[] }>) =>
      [...new Set(list.filter((m) => m.memory.startsWith('Episode: ')).flatMap((m) => m.turn_ids))].sort();
    const { real: r, standin } = await real.withStarted((url) =>
      standinAnswers({
        system: 'nemori',
        real: urlSide(url),
        // The stand-in keeps its episodes in a file: a DSN never connected to, so its sidecar starts no PostgreSQL.
        env: {
          OPENAI_API_KEY: real.env().OPENAI_API_KEY,
          OPENAI_BASE_URL: real.env().OPENAI_BASE_URL,
          DATABASE_URL: 'postgresql://nemori@127.0.0.1:9/standin',
        },
        pick: (list, search) => ({ episodeTurns: turnsOf(list), searched: search.length > 0 }),
      }),
    );
    expect(r).toEqual({ episodeTurns: ['D1:1', 'D1:2', 'D2:1', 'D2:2'], searched: true });
    expect(standin).toEqual(r);
  });
});
