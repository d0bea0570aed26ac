/**
 * LangMem's own library (langmem 0.0.30 with langgraph's ReAct agent, InMemoryStore and MemorySaver,
 * installed by `rawrag systems install langmem`), started for you by `rawrag run --system langmem`:
 * LoCoMo through the CLI against the loopback API, whose LangMem responder answers the agents' tool
 * calls as langgraph parses them (tests/helpers/loopback-llm/langmem.ts). Asserts what the agents
 * stored through manage_memory (each memory mapped to its turn), what a search returned in both
 * modes, that the stores were pickled under the sidecar's state folder, then purges.
 */
import { describe, expect } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { realLibrary } from './real-library.js';

const real = realLibrary('langmem');

const call = async (url: string, path: string, body: unknown): Promise<any> =>
  (await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

type Memory = { id: string; memory: string; turn_ids: string[] };

describe('langmem: the real langmem library behind its sidecar', () => {
  real.test(
    'rawrag run locomo --system langmem --limit 20: 0 errors; the agents stored memories through their tools; searched; purged',
    async () => {
      const run = await real.runLocomo({ limit: 20 });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
      expect(run.items.filter((i) => i.error)).toEqual([]);
      expect(run.manifest.system).toBe('LangMem');
      expect(run.manifest.retriever.library).toMatchObject({ name: 'langmem', version: '0.0.30' });
      expect(run.result.stderr).toMatch(/started for you: langmem 0\.0\.30/);

      // The agents' calls reached the API with LangMem's tools bound (the script's gpt-4o-mini), and came back as tool calls.
      const own = real.api.answeredBy('langmem');
      const toolNames = (r: any) => (r.body.tools as any[]).map((t) => t.function.name).sort();
      expect(own.length).toBeGreaterThan(800);
      expect(new Set(own.map((r) => r.body.model))).toEqual(new Set(['gpt-4o-mini']));
      expect(toolNames(own[0]!)).toEqual(['manage_memory', 'search_memory']);
      expect(own[0]!.body.messages[0].content).toMatch(/^You are a helpful assistant\.\n\n## Memories\n<memories>\n/);
      // Each turn as the script sends it, to one agent; the thread grows (the checkpointer keeps it).
      const firstTurn = own.find((r) => r.body.messages.at(-1).role === 'user')!;
      expect(firstTurn.body.messages.at(-1).content).toBe('1:56 pm on 8 May, 2023 | Caroline: Hey Mel! Good to see you! How have you been?');
      expect(Math.max(...own.map((r) => r.body.messages.length))).toBeGreaterThan(200);
      const embeds = real.api.byPath('/v1/embeddings');
      expect(new Set(embeds.map((e) => e.body.model))).toEqual(new Set(['text-embedding-3-small']));

      // What the stores hold, read through the sidecar: one memory per turn (the responder creates one each), mapped to it.
      const shown = await real.cli(['memory', 'show', run.dir, '--json']);
      const owner = (JSON.parse(shown.stdout) as Array<{ owner: string }>)[0]!.owner;
      const [held, searched] = await real.withStarted(async (url) => [
        (await call(url, '/list', { owner })).memories as Memory[],
        (await call(url, '/search', { owner, query: run.items[0].question, limit: 20 })).results as Memory[],
      ]);
      expect(held.length).toBeGreaterThan(400);
      expect(held.every((m) => m.turn_ids.length === 1)).toBe(true);
      expect(held.map((m) => m.memory)).toContain('Caroline: On 1:56 pm on 8 May, 2023, Caroline said: Hey Mel! Good to see you! How have you been?');
      const state = join(real.env().RAWRAG_CACHE_DIR, 'sidecars', 'langmem', 'owners');
      expect(readdirSync(state).some((o) => existsSync(join(state, o, 'lib', 'langmem.pickle')))).toBe(true);

      // What it returned (mode agent): each speaker's agent's final message, built from the memories its search found.
      expect(searched).toHaveLength(2);
      expect(searched.map((m) => m.memory.split(':')[0])).toEqual(['Memories for Caroline', 'Memories for Melanie']);
      expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBeGreaterThan(10);
      console.log(
        `langmem: ${own.length} agent requests (tools bound), ${embeds.length} embeddings; held ${held.length} memories; ` +
          `first answer: ${searched[0]!.memory.slice(0, 120)}`,
      );

      // rawrag memory purge empties it (started again for the purge).
      const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
      expect(purge.code, purge.stderr).toBe(0);
      expect(purge.stdout).toMatch(/verified, 0 memories left/);
      const left = await real.withStarted(async (url) => (await call(url, '/list', { owner })).memories.length);
      expect(left).toBe(0);
    },
    1_800_000,
  );
});
