/**
 * Letta's own V1 server (letta 0.16.8 with its authors' lock, installed by `rawrag systems install
 * letta`), started for you by `rawrag run --system letta`: `letta server` on SQLite under the run's
 * state folder, its OpenAI provider at the loopback API (which answers its embedding calls), LoCoMo
 * through the CLI. Asserts what the server stored (a completed file and its passage per session, in
 * its SQLite database), what its own file search returned, then purges.
 */
import { describe, expect } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { realLibrary } from './real-library.js';

const real = realLibrary('letta');

const get = async (url: string, path: string): Promise<any> => (await fetch(url + path)).json();

describe("letta: Letta's own V1 server (letta 0.16.8)", () => {
  real.test(
    'rawrag run locomo --system letta --limit 20: 0 errors; a file and passage per session in its SQLite store; its file search; purged',
    async () => {
      const run = await real.runLocomo({ limit: 20 });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
      expect(run.items.filter((i) => i.error)).toEqual([]);
      expect(run.manifest.system).toBe('Letta');
      expect(run.manifest.retriever.library).toMatchObject({ name: 'letta', version: '0.16.8' });
      expect(run.result.stderr).toMatch(/started for you: letta 0\.16\.8/);

      // Letta embedded every session file (and each question) through the loopback API, with the folder's model.
      const embeds = real.api.byPath('/v1/embeddings');
      expect(new Set(embeds.map((e) => e.body.model))).toEqual(new Set(['text-embedding-3-large']));
      const inputs = embeds.flatMap((e) => (Array.isArray(e.body.input) ? e.body.input : [e.body.input])) as string[];
      const files = inputs.filter((t) => t.startsWith('Timestamp: '));
      expect(files.length).toBeGreaterThanOrEqual(19);
      expect(files.some((t) => t.includes('\nCaroline: Hey Mel! Good to see you! How have you been?'))).toBe(true);

      // What the server holds, read through its own REST API: the folder, its files completed, one passage per session file.
      const shown = await real.cli(['memory', 'show', run.dir, '--json']);
      const owner = (JSON.parse(shown.stdout) as Array<{ owner: string }>)[0]!.owner;
      const [folders, held, passages, agents, searched] = await real.withStarted(async (url) => {
        const fs = (await get(url, `/v1/folders/?name=${encodeURIComponent(owner)}`)) as Array<{ id: string }>;
        const id = fs[0]!.id;
        const as = (await get(url, `/v1/agents/?name=${encodeURIComponent(owner)}`)) as Array<{ id: string }>;
        const reply = await fetch(`${url}/v1/agents/${as[0]!.id}/tools/semantic_search_files/run`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ args: { query: run.items[0].question, limit: 5 } }),
        });
        return [
          fs,
          (await get(url, `/v1/folders/${id}/files?limit=1000`)) as Array<{ file_name: string; processing_status: string }>,
          (await get(url, `/v1/folders/${id}/passages?limit=100`)) as Array<{ text: string; file_id: string }>,
          as,
          (await reply.json()) as { status: string; func_return: string },
        ] as const;
      });
      expect(folders).toHaveLength(1);
      expect(agents).toHaveLength(1);
      expect(held.length).toBe(19);
      expect(held.every((f) => f.processing_status === 'completed')).toBe(true);
      expect(held.map((f) => f.file_name)).toContain('1-56 pm on 8 May, 2023.txt');
      expect(passages.length).toBe(19);
      expect(passages.every((p) => p.text.startsWith('Timestamp: '))).toBe(true);
      expect(existsSync(join(real.env().RAWRAG_CACHE_DIR, 'sidecars', 'letta', 'letta'))).toBe(true);

      // What it returned: its own file search found passages; the run's evidence came from them, mapped to their sessions' turns.
      expect(searched.status).toBe('success');
      expect(searched.func_return).toMatch(/^Found \d+ semantic matches in \d+ files? for query/);
      expect(searched.func_return).toContain('(passage #1) ===');
      expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBeGreaterThan(15);
      console.log(
        `letta 0.16.8: ${embeds.length} embedding requests (${files.length} session files), held ${held.length} files, ${passages.length} passages`,
      );

      // rawrag memory purge empties it (started again for the purge): the agent and the folder, its files and passages.
      const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
      expect(purge.code, purge.stderr).toBe(0);
      expect(purge.stdout).toMatch(/verified, 0 memories left/);
      const left = await real.withStarted(async (url) => [
        ((await get(url, `/v1/folders/?name=${encodeURIComponent(owner)}`)) as unknown[]).length,
        ((await get(url, `/v1/agents/?name=${encodeURIComponent(owner)}`)) as unknown[]).length,
      ]);
      expect(left).toEqual([0, 0]);
    },
    1_800_000,
  );
});
