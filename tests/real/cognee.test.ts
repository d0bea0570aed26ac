/**
 * Cognee's own library (cognee 1.6.5 from the package index, with its turso extra, installed by
 * `rawrag systems install cognee`), started for you by `rawrag run --system cognee`: LoCoMo through
 * the CLI against the loopback API, which answers Cognee's graph-extraction and chunk-summary prompts
 * in the structured form it validates (tests/helpers/loopback-llm/cognee.ts). Asserts what cognify
 * stored (chunks mapped back to every turn, summaries, entities; the dataset's Ladybug graph and
 * LanceDB databases, Cognee's defaults) and what CHUNKS search returned, then purges.
 */
import { describe, expect } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { realLibrary } from './real-library.js';

const real = realLibrary('cognee');

const call = async (url: string, path: string, body: unknown): Promise<any> =>
  (await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

/** Every file under `dir`, as paths relative to it. */
const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? (readdirSync(dir, { recursive: true, withFileTypes: true }) as any[])
        .filter((f) => f.isFile())
        .map((f) => join(f.parentPath ?? f.path, f.name))
    : [];

describe('cognee: the real cognee library (its default Ladybug graph, LanceDB, SQLite)', () => {
  real.test(
    'rawrag run locomo --system cognee --limit 20: 0 errors; chunks, summaries and entities from its own prompts; CHUNKS search; purged',
    async () => {
      const run = await real.runLocomo({ limit: 20 });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(run.manifest.questions).toMatchObject({ selected: 20, done: 20, errors: 0 });
      expect(run.items.filter((i) => i.error)).toEqual([]);
      expect(run.manifest.system).toBe('Cognee');
      expect(run.manifest.retriever.library).toMatchObject({
        name: 'cognee',
        version: '1.6.5',
        source: 'package index (cognee[turso]==1.6.5)',
      });
      expect(run.result.stderr).toMatch(/started for you: cognee 1\.6\.5/);

      // Cognee's own cognify prompts reached the API as strict json_schema requests named after its pydantic models.
      const own = real.api.answeredBy('cognee');
      const schema = (name: string) => own.filter((r) => r.body.response_format?.json_schema?.name === name);
      const graphs = schema('KnowledgeGraph');
      const summaries = schema('SummarizedContent');
      expect(graphs.length).toBeGreaterThanOrEqual(19); // conv-26 has 19 sessions: one chunk (at least) each
      expect(summaries.length).toBe(graphs.length);
      expect(graphs[0]!.body.response_format.json_schema.strict).toBe(true);
      expect(graphs[0]!.body.messages[0].content).toContain(
        'You are a top-tier algorithm designed for extracting information in structured formats',
      );
      expect(summaries[0]!.body.messages[0].content).toMatch(/^Summarize the chunk for retrieval\./);
      expect(graphs.some((g) => g.body.messages[1].content.includes('Caroline: Hey Mel! Good to see you! How have you been?'))).toBe(true);
      // The library's own default models (no LLM_MODEL / EMBEDDING_MODEL set), on the configured endpoint.
      const models = new Set(own.map((r) => r.body.model));
      expect(models.size).toBe(1);
      expect(models.has('gpt-4o-mini')).toBe(false);
      const embeds = real.api.byPath('/v1/embeddings');
      expect(new Set(embeds.map((e) => e.body.model))).toEqual(new Set(['text-embedding-3-large']));

      // What cognify stored, read through the sidecar from Cognee's graph database.
      const shown = await real.cli(['memory', 'show', run.dir, '--json']);
      const owner = (JSON.parse(shown.stdout) as Array<{ owner: string }>)[0]!.owner;
      const question = run.items[0].question as string;
      const [held, searched] = await real.withStarted(async (url) => [
        (await call(url, '/list', { owner })).memories as Array<{ id: string; memory: string; turn_ids: string[]; date: string | null }>,
        (await call(url, '/search', { owner, query: question, limit: 15 })).results as Array<{ id: string; turn_ids: string[] }>,
      ]);
      const chunks = held.filter((m) => m.id.startsWith('chunk:'));
      const summaryNodes = held.filter((m) => m.id.startsWith('summary:'));
      const entities = held.filter((m) => m.id.startsWith('entity:'));
      expect(chunks.length).toBe(graphs.length);
      expect(summaryNodes.length).toBe(chunks.length);
      expect(entities.length).toBeGreaterThan(10);
      expect(entities.map((e) => e.memory)).toContain('caroline: Caroline, a participant of the conversation');
      // Every turn of conv-26 is in exactly one chunk, and every chunk names its session's date.
      const covered = chunks.flatMap((c) => c.turn_ids);
      expect(new Set(covered).size).toBe(covered.length);
      expect(covered.length).toBe(419);
      expect(chunks.every((c) => c.date !== null && c.memory.startsWith('Conversation session '))).toBe(true);
      expect(summaryNodes.every((s) => s.turn_ids.length > 0)).toBe(true);
      const state = join(real.env().RAWRAG_CACHE_DIR, 'sidecars', 'cognee', 'cognee', 'system', 'databases');
      const files = filesUnder(state);
      // The dataset's own databases: its Ladybug graph (Cognee's default graph store) and its LanceDB tables.
      expect(files.some((f) => f.endsWith('.lbug'))).toBe(true);
      expect(files.some((f) => f.includes('.lance.db') && f.includes('DocumentChunk_text.lance'))).toBe(true);
      console.log(
        `cognee 1.6.5: ${own.length} Cognee requests (${graphs.length} graph extractions, ${summaries.length} summaries), ` +
          `${embeds.length} embedding requests; held ${chunks.length} chunks, ${summaryNodes.length} summaries, ${entities.length} entities; ` +
          `${files.length} database files`,
      );

      // What it returned: chunks it holds, for the question; the run's evidence came from them.
      expect(searched.length).toBeGreaterThan(0);
      expect(searched.length).toBeLessThanOrEqual(15);
      const ids = new Set(chunks.map((c) => c.id));
      expect(searched.every((m) => ids.has(m.id) && m.turn_ids.length > 0)).toBe(true);
      expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBe(20);

      // rawrag memory purge empties it (started again for the purge): the dataset's graph and vector databases go with it.
      const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
      expect(purge.code, purge.stderr).toBe(0);
      expect(purge.stdout).toMatch(/verified, 0 memories left/);
      const left = await real.withStarted(async (url) => (await call(url, '/list', { owner })).memories.length);
      expect(left).toBe(0);
      expect(filesUnder(state).filter((f) => f.endsWith('.lbug') || f.includes('.lance.db'))).toEqual([]);
    },
    3_600_000,
  );
});
