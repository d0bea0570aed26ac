/**
 * The Together batch backend's data mapping (a job as batches.json records it, output and error
 * lines as OpenAI output lines read by the shared collection code) and the registry's batch APIs:
 * which batch API each provider's models get, Gemini batch prices at half the list prices, and a
 * bad `batchApi` named with its place.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { togetherOutputLine, togetherView } from '../../../src/providers/batch/together.js';
import { parseOutputLine, replyOf } from '../../../src/providers/batch/output.js';
import { batchApiOf, loadRegistry, resolveModel } from '../../../src/providers/models.js';
import { tempDir } from '../../helpers/cli.js';

const completion = {
  id: 'x',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};

describe('Together batch backend', () => {
  it('maps upper-case statuses, progress and file ids to the recorded view', () => {
    expect(togetherView({ id: 'j1', status: 'IN_PROGRESS', progress: 50, input_file_id: 'file-1' }, 10)).toMatchObject({
      id: 'j1',
      status: 'in_progress',
      input_file_id: 'file-1',
      request_counts: { total: 10, completed: 5, failed: 0 },
      output_file_id: null,
    });
    expect(togetherView({ id: 'j1', status: 'COMPLETED', progress: 100, output_file_id: 'file-2', error_file_id: '' }, 10)).toMatchObject({
      status: 'completed',
      request_counts: null,
      output_file_id: 'file-2',
      error_file_id: null,
    });
    for (const [s, want] of [
      ['VALIDATING', 'validating'],
      ['FAILED', 'failed'],
      ['EXPIRED', 'expired'],
      ['CANCELLED', 'cancelled'],
    ])
      expect(togetherView({ id: 'j', status: s as any }, 1).status).toBe(want);
    expect(togetherView({ id: 'j', status: 'FAILED', error: 'bad file' }, 1).errors).toEqual({
      data: [{ code: 'batch_failed', message: 'bad file' }],
    });
    expect(() => togetherView(undefined, 1)).toThrow(/without a job id or status/);
  });

  it('turns output and error lines into OpenAI output lines under the cache key', () => {
    const key = 'k'.repeat(64);
    const wrapped = togetherOutputLine({ custom_id: 'c', response: { status_code: 200, body: completion } }, key);
    const bare = togetherOutputLine({ custom_id: 'c', response: completion }, key);
    for (const line of [wrapped, bare]) {
      const parsed = parseOutputLine(JSON.stringify(line))!;
      expect(parsed.custom_id).toBe(key);
      const r = replyOf(parsed, '/v1/chat/completions', 'api.together.xyz');
      expect(r).toMatchObject({ reply: { text: 'hi', batch: true }, tokens: { prompt_tokens: 3, completion_tokens: 1 } });
    }
    const err = replyOf(
      parseOutputLine(JSON.stringify(togetherOutputLine({ custom_id: 'c', error: { message: 'model not found' } }, key)))!,
      '/v1/chat/completions',
      'e',
    );
    expect(err).toEqual({ message: 'error: model not found', notRun: false });
    expect(togetherOutputLine({ custom_id: 'c' }, key)).toMatchObject({ error: { code: 'no_response' } });
  });
});

describe('batch APIs in the model registry', () => {
  const reg = loadRegistry();

  it('gives each provider its batch API: Gemini without a list, Together its own, others by protocol', () => {
    expect(batchApiOf(reg.models['gpt-4o-mini']!)).toBe('openai');
    expect(batchApiOf(reg.models['claude-haiku-4-5']!)).toBe('anthropic');
    expect(batchApiOf(reg.models['gemini-2.5-flash']!)).toBe('openai-nolist');
    expect(batchApiOf(resolveModel(reg, 'gemini-3-pro-preview', 'chat'))).toBe('openai-nolist');
    const together = resolveModel(reg, 'together/Qwen/Qwen2.5-7B-Instruct-Turbo', 'chat');
    expect(batchApiOf(together)).toBe('together');
    expect(together.batchLimits).toEqual({ requests: 50_000, bytes: 100 * 1024 * 1024 });
    expect(together.batchPrices).toBeUndefined(); // unlisted: --batch refuses it until a --models file prices it
  });

  it('prices Gemini batch replies at half the list prices', () => {
    for (const name of ['gemini-2.5-flash', 'gemini-2.5-flash-lite', 'gemini-2.5-pro']) {
      const m = reg.models[name]!;
      expect(m.batchPrices).toEqual({ input: m.prices.input! / 2, output: m.prices.output! / 2 });
    }
  });

  it('a model of a --models file gets its provider batch API and limits; a bad batchApi is named with its place', () => {
    const dir = tempDir();
    const ok = join(dir, 'ok.yaml');
    writeFileSync(
      ok,
      'models:\n  org/m:\n    kind: chat\n    protocol: openai\n    provider: together\n    batchPrices: { input: 0.1, output: 0.1 }\n',
    );
    const m = loadRegistry(undefined, ok).models['org/m']!;
    expect(batchApiOf(m)).toBe('together');
    expect(m.batchLimits?.bytes).toBe(100 * 1024 * 1024);
    // `together/org/m` is that listed model, sent on the wire as `org/m`.
    const prefixed = resolveModel(loadRegistry(undefined, ok), 'together/org/m', 'chat');
    expect(prefixed).toMatchObject({ name: 'together/org/m', apiModel: 'org/m', batchApi: 'together', batchPrices: { input: 0.1 } });
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'providers:\n  x: { protocol: openai, batchApi: carrier-pigeon }\nmodels: {}\n');
    expect(() => loadRegistry(undefined, bad)).toThrow(/bad\.yaml: providers\.x\.batchApi: /);
  });
});
