/**
 * Letta's own V1 server (letta 0.11.7, its last release on SQLite, with its authors' lock,
 * installed by `rawrag systems install letta`), started for you by `rawrag run --system letta`:
 * `letta server` on SQLite under the run's state folder, its OpenAI provider at the loopback API,
 * which answers its embedding calls and its agents' steps (tests/helpers/loopback-llm/letta.ts:
 * the agent's first tool, semantic_search_files, called with the question). LoCoMo through the
 * CLI; asserts what the server stored (a completed file and its passage per session, in its SQLite
 * database), what its own file search returned to the run, then purges.
 */
import { describe, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { realLibrary } from './real-library.js';
import { systemPaths, systemsDir } from '../../src/systems/memory-service/systems-dir.js';

const real = realLibrary('letta');

const get = async (url: string, path: string): Promise<any> => (await fetch(url + path)).json();

describe("letta: Letta's own V1 server (letta 0.11.7)", () => {
  real.test(
    'rawrag run locomo --system letta --limit 20: 0 errors; a file and passage per session in its SQLite store; its own file search per question; purged',
    async () => {
      const run = await real.runLocomo({ limit: 20 });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
      expect(run.items.filter((i) => i.error)).toEqual([]);
      expect(run.manifest.system).toBe('Letta');
      expect(run.manifest.retriever.library).toMatchObject({ name: 'letta', version: '0.11.7' });
      expect(run.result.stderr).toMatch(/started for you: letta 0\.11\.7/);

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
      const [folders, held, passages, agents] = await real.withStarted(async (url) => {
        const fs = ((await get(url, '/v1/folders/')) as Array<{ id: string; name: string }>).filter((f) => f.name === owner);
        const id = fs[0]!.id;
        return [
          fs,
          (await get(url, `/v1/folders/${id}/files?limit=1000`)) as Array<{ file_name: string; processing_status: string }>,
          (await get(url, `/v1/folders/${id}/passages?limit=100`)) as Array<{ text: string; file_id: string }>,
          (await get(url, '/v1/agents/?limit=1000')) as Array<{ name: string }>,
        ] as const;
      });
      expect(folders).toHaveLength(1);
      expect(held.length).toBe(19);
      expect(held.every((f) => f.processing_status === 'completed')).toBe(true);
      expect(held.map((f) => f.file_name)).toContain('1-56 pm on 8 May, 2023.txt');
      expect(passages.length).toBe(19);
      expect(passages.every((p) => p.text.startsWith('Timestamp: '))).toBe(true);
      // Each question's agent was deleted once it answered.
      expect(agents.filter((a) => a.name.startsWith(owner))).toEqual([]);
      expect(existsSync(join(real.env().RAWRAG_CACHE_DIR, 'sidecars', 'letta', 'home', '.letta', 'sqlite.db'))).toBe(true);

      // What it returned: each question's agent called its own semantic_search_files (the loopback LLM's tool call, run by Letta),
      // and the passages Letta's search printed reached the reader, mapped to their sessions' turns.
      const steps = real.api.answeredBy('letta');
      expect(steps.length).toBe(20);
      expect(steps.every((r) => r.body.tools.some((t: any) => t.function.name === 'semantic_search_files'))).toBe(true);
      const hits = run.items.flatMap((i) => i.details.service.owners.flatMap((o: any) => o.hits));
      expect(hits.length).toBeGreaterThan(20);
      const texts = new Set(passages.map((p) => p.text.split('\n').slice(1).join('\n').trim()));
      expect(hits.every((h: any) => texts.has(h.memory))).toBe(true);
      expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBeGreaterThan(15);
      console.log(
        `letta 0.11.7: ${embeds.length} embedding requests (${files.length} session files), ${steps.length} agent steps, held ${held.length} files, ${passages.length} passages, ${hits.length} passages shown`,
      );

      // rawrag memory purge empties it (started again for the purge): the folder, its files and passages.
      const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
      expect(purge.code, purge.stderr).toBe(0);
      expect(purge.stdout).toMatch(/verified, 0 memories left/);
      const left = await real.withStarted(async (url) =>
        ((await get(url, '/v1/folders/')) as Array<{ name: string }>).filter((f) => f.name === owner),
      );
      expect(left).toEqual([]);
    },
    1_800_000,
  );

  // The further modes run with the heavy tier (RAWRAG_REAL_HEAVY=1): CI's light tier keeps to its budget.
  real.heavyTest(
    'rawrag run locomo --system letta -S mode=archival --limit 20: 0 errors; an archival passage per session, dated; its archival search per question, no agent step; purged to 0 passages',
    async () => {
      const t0 = Date.now();
      const mark = real.api.requests.length;
      const run = await real.runLocomo({ limit: 20, out: 'run-archival', args: ['-S', 'mode=archival'] });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
      expect(run.items.filter((i) => i.error)).toEqual([]);
      expect(run.manifest.config.letta.mode).toBe('archival');
      const sent = real.api.requests.slice(mark);

      // Letta embedded each session's passage (and each question) through the loopback API; no agent was asked anything.
      const embeds = sent.filter((r) => r.path === '/v1/embeddings');
      expect(new Set(embeds.map((e) => e.body.model))).toEqual(new Set(['text-embedding-3-large']));
      const inputs = embeds.flatMap((e) => (Array.isArray(e.body.input) ? e.body.input : [e.body.input])) as string[];
      expect(inputs.filter((t) => t.startsWith('Timestamp: ')).length).toBe(19);
      expect(sent.filter((r) => (r as any).responder === 'letta')).toEqual([]);

      // What the server holds, through its own REST API: one agent for the conversation, one archival passage per session, dated.
      const shown = await real.cli(['memory', 'show', run.dir, '--json']);
      const owner = (JSON.parse(shown.stdout) as Array<{ owner: string }>)[0]!.owner;
      const [agents, passages] = await real.withStarted(async (url) => {
        const as = ((await get(url, `/v1/agents/?name=${encodeURIComponent(owner)}`)) as Array<{ id: string; name: string }>).filter(
          (a) => a.name === owner,
        );
        return [as, (await get(url, `/v1/agents/${as[0]!.id}/archival-memory?limit=100`)) as Array<any>] as const;
      });
      expect(agents).toHaveLength(1);
      expect(passages).toHaveLength(19);
      expect(passages.every((p) => p.text.startsWith('Timestamp: ') && /^rawrag:/.test(p.tags?.[0] ?? ''))).toBe(true);
      const first = passages.find((p) => p.text.startsWith('Timestamp: 1:56 pm on 8 May, 2023\n'));
      expect(first?.created_at).toMatch(/^2023-05-08T13:56:00/);

      // Its archival search's passages reached the reader whole, mapped to their sessions' turns.
      const hits = run.items.flatMap((i) => i.details.service.owners.flatMap((o: any) => o.hits));
      expect(hits.length).toBe(100);
      const texts = new Set(passages.map((p) => p.text.split('\n').slice(1).join('\n').trim()));
      expect(hits.every((h: any) => texts.has(h.memory))).toBe(true);
      expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBe(20);
      console.log(
        `letta 0.11.7 mode=archival: ${embeds.length} embedding requests, 0 agent steps, ${passages.length} passages held, ${hits.length} shown, ${run.items.filter((i) => i.coverage === 1).length} items with full coverage, ${((Date.now() - t0) / 60000).toFixed(1)} min`,
      );

      // rawrag memory purge deletes every passage, then the agent: none left in its SQLite store (an agent's archive outlives it).
      const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
      expect(purge.code, purge.stderr).toBe(0);
      expect(purge.stdout).toMatch(/verified, 0 memories left/);
      const left = await real.withStarted(async (url) =>
        ((await get(url, `/v1/agents/?name=${encodeURIComponent(owner)}`)) as Array<{ name: string }>).filter((a) => a.name === owner),
      );
      expect(left).toEqual([]);
      const db = join(real.env().RAWRAG_CACHE_DIR, 'sidecars', 'letta', 'home', '.letta', 'sqlite.db');
      const python = systemPaths('letta', systemsDir({ ...process.env, ...real.env() })).python;
      const count = execFileSync(
        python,
        [
          '-c',
          'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from archival_passages").fetchone()[0])',
          db,
        ],
        {
          encoding: 'utf8',
        },
      );
      expect(count.trim()).toBe('0');
    },
    1_800_000,
  );

  real.heavyTest(
    "rawrag run locomo --system letta -S mode=agent --limit 20: 0 errors; the script's agent searches then answers through answer_question, its answer the item's; no reader call; purged",
    async () => {
      const t0 = Date.now();
      const mark = real.api.requests.length;
      const run = await real.runLocomo({ limit: 20, out: 'run-agent', args: ['-S', 'mode=agent'] });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
      expect(run.items.filter((i) => i.error)).toEqual([]);
      expect(run.manifest.setting).toBe('locomo/gpt-4o-mini');
      expect(run.manifest.skipped.join('\n')).toMatch(/no reader: Letta's own agent \(LLM gpt-4o-mini\) answered each question/);
      const sent = real.api.requests.slice(mark);

      // Each question's agent: a search step, then an answer_question step (the loopback LLM's calls, run by Letta).
      const steps = sent.filter((r) => (r as any).responder === 'letta');
      const toolsOf = (r: any) => r.body.tools.map((t: any) => t.function.name) as string[];
      expect(steps.every((r) => toolsOf(r).includes('semantic_search_files'))).toBe(true);
      expect(steps.filter((r) => toolsOf(r).includes('answer_question')).length).toBeGreaterThanOrEqual(20);
      // No reader request (the LoCoMo reader prompt's marker); the judge's requests only.
      const chats = sent.filter((r) => r.path === '/v1/chat/completions' && (r as any).responder !== 'letta');
      expect(chats.filter((r) => JSON.stringify(r.body.messages).includes('# Question: '))).toEqual([]);

      // The answer is the agent's answer_question return: a line of the conversation the agent found, or its "no information".
      const shown = await real.cli(['memory', 'show', run.dir, '--json']);
      const owner = (JSON.parse(shown.stdout) as Array<{ owner: string }>)[0]!.owner;
      const [passages, tools] = await real.withStarted(async (url) => {
        const fs = ((await get(url, '/v1/folders/')) as Array<{ id: string; name: string }>).filter((f) => f.name === owner);
        return [
          (await get(url, `/v1/folders/${fs[0]!.id}/passages?limit=100`)) as Array<{ text: string }>,
          (await get(url, '/v1/tools/?name=answer_question')) as Array<{ name: string; source_code: string }>,
        ] as const;
      });
      expect(tools.filter((t) => t.name === 'answer_question')).toHaveLength(1);
      const all = passages.map((p) => p.text).join('\n');
      for (const item of run.items) {
        expect(item.details.answer.by).toBe('Letta');
        expect(item.answer === 'No information found.' || all.includes(item.answer)).toBe(true);
        expect(item.score).not.toBeNull();
      }
      const answered = run.items.filter((i) => i.answer !== 'No information found.').length;
      expect(answered).toBeGreaterThan(10);
      expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBeGreaterThan(15);
      console.log(
        `letta 0.11.7 mode=agent: ${steps.length} agent steps (${steps.filter((r) => toolsOf(r).includes('answer_question')).length} with answer_question offered), ${answered} of 20 answered from a passage, ${chats.length} judge requests, ${((Date.now() - t0) / 60000).toFixed(1)} min`,
      );

      const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
      expect(purge.code, purge.stderr).toBe(0);
      expect(purge.stdout).toMatch(/verified, 0 memories left/);
    },
    1_800_000,
  );
});
