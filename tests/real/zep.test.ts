/**
 * Graphiti, Zep's open-source engine (graphiti-core 0.31.2 on an embedded Kuzu database, installed
 * by `rawrag systems install zep`), started for you by `rawrag run --system zep -S api=graphiti`:
 * LoCoMo through the CLI against the loopback API, which answers Graphiti's own extraction prompts
 * in the structured form it parses (tests/helpers/loopback-llm/zep.ts) and its cross-encoder's
 * True/False with logprobs. Asserts what the library stored (facts and entities in Kuzu, facts
 * mapped back to their messages) and returned, pairs the run with RAW-RAG in `rawrag stats`, then purges.
 *
 * The data: conv-26 cut to the sessions that hold the evidence of its first 20 questions (8 of its
 * 19 sessions, 164 of its 419 messages), built here from the bundled copy, those questions with
 * their ids unchanged. Graphiti makes one episode per message, several LLM calls and Kuzu queries
 * each, slower as the graph grows: the whole conversation took ~30 minutes on a loaded two-core
 * machine, this cut 2.7 (5.6 with the whole conversation's run alongside).
 */
import { describe, expect } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { realLibrary } from './real-library.js';
import { tempDir } from '../helpers/cli.js';
import { statsPairs } from '../helpers/loopback-run.js';
import { locomoEvidenceCut } from '../helpers/locomo-cut.js';

const real = realLibrary('zep');
const QUESTIONS = 20;

const call = async (url: string, path: string, body: unknown): Promise<any> =>
  (await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

/** conv-26 with only the sessions holding its first `n` questions' evidence, and those questions (ids unchanged). */
async function evidenceCut(n: number) {
  const cut = await locomoEvidenceCut([{ episode: 'conv-26', questions: n }]);
  return { ...cut, sessions: cut.sessions.get('conv-26')! };
}

describe('zep: the real graphiti-core library on Kuzu', () => {
  real.test(
    'rawrag run locomo --system zep -S api=graphiti --limit 20 (conv-26, its evidence sessions): 0 errors; facts and entities from its own prompts in Kuzu; paired with RAW-RAG; purged',
    async () => {
      const cut = await evidenceCut(QUESTIONS);
      expect(cut.sessions.size).toBeLessThan(19);
      const run = await real.runLocomo({ limit: QUESTIONS, args: ['-S', 'api=graphiti', '--data', cut.file] });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(run.manifest.questions).toMatchObject({ selected: QUESTIONS, done: QUESTIONS, errors: 0 });
      expect(run.items.filter((i) => i.error)).toEqual([]);
      expect(run.items.map((i) => i.id as string).sort()).toEqual([...cut.asked].sort());
      expect(run.manifest.system).toBe("Graphiti (Zep's open-source engine)");
      expect(run.manifest.retriever.library).toMatchObject({ name: 'graphiti-core', version: '0.31.2' });
      expect(run.result.stderr).toMatch(/started for you: graphiti-core 0\.31\.2/);

      // Graphiti's own prompts reached the API as json_schema requests named after its models, with the client's default
      // model: one entity extraction and one fact extraction per episode, i.e. per message.
      const own = real.api.answeredBy('graphiti');
      const schema = (name: string) => own.filter((r) => r.body.response_format?.json_schema?.name === name);
      expect(schema('ExtractedEntities')).toHaveLength(cut.turns.length);
      expect(schema('ExtractedEdges')).toHaveLength(cut.turns.length);
      expect(schema('ExtractedEntities')[0]!.body.messages[0].content).toContain(
        'You are an entity extraction specialist for conversational messages',
      );
      expect(new Set(own.map((r) => r.body.model))).toEqual(new Set(['gpt-4.1-mini']));
      // Its cross-encoder asked for logprobs, one request per candidate fact, for every question.
      const reranks = own.filter((r) => r.body.logprobs === true);
      expect(reranks.length).toBeGreaterThanOrEqual(QUESTIONS);
      expect(reranks[0]!.body).toMatchObject({ max_tokens: 1, top_logprobs: 2 });
      const embeds = real.api.byPath('/v1/embeddings');
      expect(new Set(embeds.map((e) => e.body.model))).toEqual(new Set(['text-embedding-3-small']));

      // What the library holds, read through the sidecar from Kuzu: facts paraphrasing the messages, each mapped to its
      // message (every message of the cut is the source of a fact), and entities (the speakers among them).
      const shown = await real.cli(['memory', 'show', run.dir, '--json']);
      const owner = (JSON.parse(shown.stdout) as Array<{ owner: string }>)[0]!.owner;
      const [held, searched] = await real.withStarted(async (url) => [
        (await call(url, '/list', { owner })).memories as Array<{ id: string; memory: string; turn_ids: string[] }>,
        (await call(url, '/search', { owner, query: run.items[0].question, limit: 40 })).results as Array<{ id: string }>,
      ]);
      const facts = held.filter((m) => m.id.startsWith('edge:'));
      const entities = held.filter((m) => m.id.startsWith('node:'));
      const byId = new Map(cut.turns.map((t) => [t.id, t]));
      expect(
        facts.every((f) => f.turn_ids.length > 0 && f.turn_ids.every((id) => f.memory.startsWith(`${byId.get(id)?.speaker} said: `))),
      ).toBe(true);
      expect(new Set(facts.flatMap((f) => f.turn_ids))).toEqual(new Set(byId.keys()));
      expect(facts.map((f) => f.memory)).toContain('Caroline said: Hey Mel! Good to see you! How have you been?');
      expect(entities.map((e) => e.memory.split(':')[0])).toEqual(expect.arrayContaining(['Caroline', 'Melanie']));
      const state = join(real.env().RAWRAG_CACHE_DIR, 'sidecars', 'zep', 'owners');
      expect(readdirSync(state).some((o) => existsSync(join(state, o, 'lib', 'graph.kuzu')))).toBe(true);
      console.log(
        `zep (graphiti-core on Kuzu): ${cut.turns.length} messages of ${cut.sessions.size} sessions; ${own.length} Graphiti requests ` +
          `(${schema('ExtractedEntities').length} entity extractions, ${schema('ExtractedEdges').length} fact extractions, ` +
          `${reranks.length} cross-encoder), ${embeds.length} embeddings; held ${facts.length} facts, ${entities.length} entities`,
      );

      // What it returned: a question's search from what it holds; the run's evidence came from it.
      expect(searched.length).toBeGreaterThan(0);
      const ids = new Set(held.map((m) => m.id));
      expect(searched.every((m) => ids.has(m.id))).toBe(true);
      expect(run.items.filter((i) => i.evidence_turns.length > 0).length).toBeGreaterThan(QUESTIONS / 2);
      expect(run.items.every((i) => i.evidence_turns.every((id: string) => byId.has(id)))).toBe(true);

      // rawrag stats pairs it with RAW-RAG over the same questions of the same file, with its coverage row.
      const baseline = join(tempDir('rawrag-real-zep-baseline-'), 'raw-rag');
      const v1 = real.env().OPENAI_BASE_URL;
      const base = await real.cli([
        'run',
        'locomo',
        '--reader',
        'gpt-4o-mini',
        '--limit',
        String(QUESTIONS),
        '--data',
        cut.file,
        '--reader-base-url',
        v1,
        '--judge-base-url',
        v1,
        '--out',
        baseline,
        '--no-progress',
      ]);
      expect(base.code, base.stderr).toBe(0);
      const statsDir = join(tempDir('rawrag-real-zep-stats-'), 'stats');
      const st = await real.cli(['stats', baseline, run.dir, '--out', statsDir]);
      expect(st.code, st.stderr).toBe(0);
      const pair = statsPairs(join(statsDir, 'stats.json')).find(
        (p) => p.system_a === run.manifest.system && p.system_b === 'RAW-RAG/local',
      );
      expect(pair).toMatchObject({ n: QUESTIONS, excluded: 0 });
      expect(st.stdout).toMatch(/\| Graphiti \(Zep's open-source engine\) +\| +\d+ \| +\d+\.\d+ \| +[\d.–]+ W \| +\d+ \|/);

      // rawrag memory purge empties it (started again for the purge).
      const purge = await real.cli(['memory', 'purge', run.dir, '--owner', 'conv-26']);
      expect(purge.code, purge.stderr).toBe(0);
      expect(purge.stdout).toMatch(/verified, 0 memories left/);
      const left = await real.withStarted(async (url) => (await call(url, '/list', { owner })).memories.length);
      expect(left).toBe(0);
    },
    // 2.7 minutes here (164 episodes), 5.6 with another Graphiti run alongside on two cores.
    1_800_000,
  );
});
