/**
 * The Anthropic batch backend's data mapping: a Message Batch as batches.json records it, a result
 * line as an OpenAI output line (read by the same collection code), custom_ids within Anthropic's
 * limits, and Claude batch prices at half the list prices.
 */
import { describe, expect, it } from 'vitest';
import { anthropicCustomId, outputLineOf, viewOf, RESULTS_FILE } from '../../../src/providers/batch/anthropic.js';
import { parseOutputLine, replyOf } from '../../../src/providers/batch/output.js';
import { loadRegistry } from '../../../src/providers/models.js';

const batch = (status: 'in_progress' | 'canceling' | 'ended', counts: Partial<Record<string, number>>) =>
  ({
    id: 'msgbatch_1',
    type: 'message_batch',
    processing_status: status,
    request_counts: { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0, ...counts },
    created_at: '2026-01-01T00:00:00Z',
    ended_at: null,
    expires_at: '2026-01-02T00:00:00Z',
    archived_at: null,
    cancel_initiated_at: null,
    results_url: null,
  }) as any;

describe('Anthropic Message Batches backend', () => {
  it('maps processing_status and request_counts to the recorded status and counts', () => {
    expect(viewOf(batch('in_progress', { processing: 7, succeeded: 2, errored: 1 }))).toMatchObject({
      status: 'in_progress',
      request_counts: { total: 10, completed: 2, failed: 1 },
      output_file_id: null,
    });
    expect(viewOf(batch('canceling', { processing: 3 })).status).toBe('cancelling');
    expect(viewOf(batch('ended', { succeeded: 9, errored: 1 }))).toMatchObject({ status: 'completed', output_file_id: RESULTS_FILE });
    expect(viewOf(batch('ended', { succeeded: 5, expired: 5 })).status).toBe('expired');
    expect(viewOf(batch('ended', { succeeded: 5, canceled: 5 })).status).toBe('cancelled');
  });

  it('keeps a 64-hex cache key as custom_id and hashes any key outside [a-zA-Z0-9_-]{1,64}', () => {
    const key = 'a'.repeat(64);
    expect(anthropicCustomId(key)).toBe(key);
    for (const bad of ['x'.repeat(65), 'has space', 'dots.and/slash', '']) {
      const id = anthropicCustomId(bad);
      expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(id).not.toBe(bad);
    }
    expect(anthropicCustomId('has space')).toBe(anthropicCustomId('has space'));
  });

  it('turns results into output lines the collection reads: a reply, a request error, requests not run', () => {
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      content: [{ type: 'text', text: 'Paris' }],
      usage: { input_tokens: 11, output_tokens: 2 },
    };
    const ok = parseOutputLine(JSON.stringify(outputLineOf({ custom_id: 'c', result: { type: 'succeeded', message } } as any, 'KEY')))!;
    expect(ok.custom_id).toBe('KEY');
    const reply = replyOf(ok, '/v1/messages', 'api.anthropic.com');
    expect(reply).toMatchObject({
      reply: { text: 'Paris', prompt_tokens: 11, completion_tokens: 2, batch: true },
      tokens: { prompt_tokens: 11, completion_tokens: 2 },
    });
    const errored = outputLineOf(
      {
        custom_id: 'c',
        result: { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: too large' } } },
      } as any,
      'KEY',
    );
    expect(replyOf(parseOutputLine(JSON.stringify(errored))!, '/v1/messages', 'x')).toEqual({
      message: 'invalid_request_error: max_tokens: too large',
      notRun: false,
    });
    for (const type of ['expired', 'canceled'])
      expect(
        replyOf(parseOutputLine(JSON.stringify(outputLineOf({ custom_id: 'c', result: { type } } as any, 'KEY')))!, '/v1/messages', 'x'),
      ).toMatchObject({ notRun: true });
    const empty = outputLineOf({ custom_id: 'c', result: { type: 'succeeded', message: { ...message, content: [] } } } as any, 'KEY');
    expect(replyOf(parseOutputLine(JSON.stringify(empty))!, '/v1/messages', 'x')).toMatchObject({
      message: expect.stringMatching(/empty reply/),
    });
  });

  it('gives every Claude model batch prices at half its list prices', () => {
    const reg = loadRegistry();
    for (const name of ['claude-haiku-4-5', 'claude-sonnet-4-5', 'claude-opus-4-1']) {
      const m = reg.models[name]!;
      expect(m.batchPrices, name).toEqual({ input: m.prices!.input! / 2, output: m.prices!.output! / 2 });
    }
  });
});
