/**
 * The ingest LLM step against the loopback server (real SDK, real HTTP): structured outputs
 * (strict json_schema) for a model whose registry entry has `structuredOutputs: true`, a plain
 * JSON reply (fence tolerated) for one without, a malformed reply an error that is never cached;
 * and how derived units are assembled and counted for coverage.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProviderSession } from '../../../src/providers/session.js';
import { IngestLlm, IngestReplyError, segmentMessages, type JsonStep } from '../../../src/ingest-llm/llm-step.js';
import { batchesOf } from '../../../src/ingest-llm/batches.js';
import { assemble, coveredTurnIds } from '../../../src/retrieval/assemble.js';
import { withUnits } from '../../../src/systems/raw-rag/augmented.js';
import { FakeApi } from '../../helpers/fake-api.js';
import { tempDir } from '../../helpers/cli.js';
import { perTurn } from '../../helpers/episodes.js';

const ENV = { OPENAI_API_KEY: 'sk-unit-0123456789', DEEPSEEK_API_KEY: 'ds-unit-0123456789' };
const Step: JsonStep<{ facts: Array<{ fact: string; source_turns: string[] }> }> = {
  name: 'atomic_facts',
  prompt: 'raw-rag-facts',
  schema: z.object({ facts: z.array(z.object({ fact: z.string().min(1), source_turns: z.array(z.string()) }).strict()) }).strict(),
};
const ep = perTurn(['I adopted a cat named Luna', 'the weather was fine', 'Luna likes tuna', 'we went hiking']);

let api: FakeApi;
let reply: string;
beforeEach(async () => {
  reply = JSON.stringify({ facts: [{ fact: 'Luna is a cat.', source_turns: [ep.episode.turns[0]!.id] }] });
  api = await new FakeApi({ chat: () => reply }).start();
});
afterEach(() => api.close());

function session(): ProviderSession {
  return new ProviderSession({
    cacheDir: tempDir(),
    baseUrls: { reader: `${api.url}/v1` },
    env: ENV,
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
  });
}

describe('ingest LLM step', () => {
  const messages = () => segmentMessages(Step.prompt, ep.episode.turns, batchesOf(ep.episode.turns, ep.visibleTurns, 2)[0]!);

  it('sends the reply schema as strict json_schema to a model that supports it; the reply is parsed and cached', async () => {
    const llm = new IngestLlm(session(), 'gpt-4o-mini', { system: 'x', flag: '--x' });
    const r = await llm.call(Step, messages(), 512);
    expect(r.value.facts[0]!.fact).toBe('Luna is a cat.');
    const body = api.requests[0]!.body;
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'atomic_facts', strict: true } });
    expect(body.response_format.json_schema.schema.required).toEqual(['facts']);
    expect(body.response_format.json_schema.schema.additionalProperties).toBe(false);
    expect(body.messages[1].content).toContain(`(${ep.episode.turns[1]!.id})`);
    expect((await llm.call(Step, messages(), 512)).figures.cached).toBe(true);
    expect(api.count()).toBe(1);
  });

  it('asks a model without structured outputs for plain JSON (no response_format; a fenced reply parses)', async () => {
    reply = '```json\n' + reply + '\n```';
    const llm = new IngestLlm(session(), 'deepseek-chat', { system: 'x', flag: '--x' });
    expect(llm.structured).toBe(false);
    expect((await llm.call(Step, messages(), 512)).value.facts).toHaveLength(1);
    expect(api.requests[0]!.body.response_format).toBeUndefined();
  });

  it('a reply off the schema is an error and is not cached: asking again sends again', async () => {
    reply = JSON.stringify({ facts: [{ fact: 'x' }] });
    const s = session();
    const llm = new IngestLlm(s, 'gpt-4o-mini', { system: 'x', flag: '--x' });
    await expect(llm.call(Step, messages(), 512)).rejects.toThrow(IngestReplyError);
    await expect(llm.call(Step, messages(), 512)).rejects.toThrow(/atomic_facts reply does not match its schema at facts\.0\.source_turns/);
    expect(api.count()).toBe(2);
  });

  it('names the flag when the model cannot run here', () => {
    expect(
      () =>
        new IngestLlm(new ProviderSession({ cacheDir: tempDir(), env: {} }), 'gpt-4o-mini', {
          system: 'raw-rag-facts',
          flag: '-S extractor',
        }),
    ).toThrow(/-S extractor: raw-rag-facts cannot call its ingest model/);
  });
});

describe('derived units', () => {
  it('a fact is a memory block of its own text whose source turns count for coverage; windows still expand', () => {
    const derived = withUnits(ep, { units: [{ text: '[d] Luna is a cat.', sourceTurns: [2, 0] }], keepWindows: true }, 'f');
    const fact = derived.chunks.length - 1;
    expect(derived.chunks[fact]).toMatchObject({ id: 'ep#f0', firstTurn: 0, lastTurn: 2, sourceTurns: [0, 2] });
    const e = assemble(
      derived,
      [
        { chunk: fact, score: 1 },
        { chunk: 3, score: 0.5 },
      ],
      { expandToTurns: true, order: 'rank' },
    );
    expect(e.blocks.map((b) => b.kind)).toEqual(['memory', 'history']);
    expect(e.blocks[0]!.text).toBe('[d] Luna is a cat.');
    expect(e.turnIndices).toEqual([3]);
    expect(coveredTurnIds(derived, e)).toEqual([3, 0, 2].map((t) => ep.episode.turns[t]!.id));
    const replaced = withUnits(ep, { units: [{ text: 'x', sourceTurns: [1] }], keepWindows: false }, 'f');
    expect(replaced.chunks.map((c) => c.id)).toEqual(['ep#f0']);
  });
});
