/**
 * The loopback OpenAI-compatible API the real-library tier runs the opponents' libraries against
 * (tests/helpers/fake-api.ts, issue 40: what the real libraries call, the spec's section 0), read
 * through OpenAI's own SDK as a library would read it: `response_format` json_object and
 * json_schema answered with JSON that parses (and has the schema's fields), a required tool called
 * with arguments from its schema, logprobs with top_logprobs, `/v1/responses` (output_text, and
 * json_schema in `text.format`), embeddings honouring `dimensions` (the SDK asks for base64) or a
 * model's real size, and rerank in Cohere's and vLLM/Jina's shapes. In library mode (responders
 * given), as the tier starts it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { FakeApi } from '../helpers/fake-api.js';

const FACTS = {
  type: 'object',
  properties: { facts: { type: 'array', items: { type: 'string' } }, confidence: { type: 'number' } },
  required: ['facts', 'confidence'],
  additionalProperties: false,
};

describe('the loopback API, read through the OpenAI SDK', () => {
  const api = new FakeApi({ responders: [], nativeDims: true });
  let client: OpenAI;
  beforeAll(async () => {
    await api.start();
    client = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: 'sk-loopback', maxRetries: 0 });
  });
  afterAll(() => api.close());

  const ask = [{ role: 'user' as const, content: 'Caroline went to a support group yesterday.' }];

  it('json_object and json_schema: JSON that parses, with the schema’s fields', async () => {
    const obj = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: ask, response_format: { type: 'json_object' } });
    expect(typeof JSON.parse(obj.choices[0]!.message.content!)).toBe('object');
    const schema = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: ask,
      response_format: { type: 'json_schema', json_schema: { name: 'facts', schema: FACTS, strict: true } },
    });
    const parsed = JSON.parse(schema.choices[0]!.message.content!);
    expect(Object.keys(parsed).sort()).toEqual(['confidence', 'facts']);
    expect(Array.isArray(parsed.facts)).toBe(true);
    expect(typeof parsed.confidence).toBe('number');
  });

  it('a required tool is called, its arguments built from the tool’s schema', async () => {
    const r = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: ask,
      tools: [{ type: 'function', function: { name: 'save_facts', parameters: FACTS } }],
      tool_choice: 'required',
    });
    const choice = r.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('save_facts');
    expect(Object.keys(JSON.parse(call.type === 'function' ? call.function.arguments : '{}')).sort()).toEqual(['confidence', 'facts']);
  });

  it('logprobs: one entry per token, with the top_logprobs asked for', async () => {
    const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: ask, logprobs: true, top_logprobs: 2, max_tokens: 1 });
    const tokens = r.choices[0]!.logprobs!.content!;
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens[0]!.top_logprobs).toHaveLength(2);
    expect(tokens[0]!.logprob).toBeLessThanOrEqual(0);
  });

  it('/v1/responses: output_text, and JSON for a json_schema text format', async () => {
    const plain = await client.responses.create({ model: 'gpt-4o-mini', input: 'Say something.' });
    expect(plain.status).toBe('completed');
    expect(plain.output_text.length).toBeGreaterThan(0);
    const json = await client.responses.create({
      model: 'gpt-4o-mini',
      input: [{ role: 'user', content: 'Caroline went to a support group.' }],
      text: { format: { type: 'json_schema', name: 'facts', schema: FACTS, strict: true } },
    });
    expect(Object.keys(JSON.parse(json.output_text)).sort()).toEqual(['confidence', 'facts']);
  });

  it('embeddings: `dimensions` honoured (base64, as the SDK asks), else the model’s real size; the same text the same vector', async () => {
    const sized = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a dog named Rex', 'a sunrise'],
      dimensions: 256,
    });
    expect(api.byPath('/v1/embeddings').at(-1)!.body.encoding_format).toBe('base64');
    expect(sized.data.map((d) => d.embedding.length)).toEqual([256, 256]);
    const native = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'a dog named Rex' });
    expect(native.data[0]!.embedding).toHaveLength(1536);
    const again = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'a dog named Rex' });
    expect(again.data[0]!.embedding).toEqual(native.data[0]!.embedding);
  });

  it("rerank: Cohere's /v2/rerank and vLLM/Jina's /v1/rerank, the document sharing the query's words first", async () => {
    const body = {
      model: 'rerank',
      query: 'Where is the dog Rex?',
      documents: ['a sunrise painted', 'the dog Rex sleeps', 'support group'],
      top_n: 2,
    };
    const post = async (path: string) =>
      (await (
        await fetch(`${api.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      ).json()) as any;
    const cohere = await post('/v2/rerank');
    expect(cohere.results.map((r: any) => r.index)).toHaveLength(2);
    expect(cohere.results[0].index).toBe(1);
    expect(cohere.results[0].relevance_score).toBeGreaterThan(cohere.results[1].relevance_score);
    const vllm = await post('/v1/rerank');
    expect(vllm.results[0]).toMatchObject({ index: 1, document: { text: 'the dog Rex sleeps' } });
  });
});
