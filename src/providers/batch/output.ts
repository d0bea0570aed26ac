/**
 * Batch output (and error) file lines: checked as a whole file, parsed line by line, and each
 * line's reply validated as an interactive reply of its protocol would be.
 */
import type OpenAI from 'openai';
import { storedReply, type StoredReply } from '../chat.js';
import { storedAnthropicReply } from '../anthropic.js';
import { readVectors } from '../embedding-reply.js';
import { BadReplyError, parseJsonReply } from '../errors.js';

/** Error codes the provider writes for requests a batch never ran (not failures of the request). */
const NOT_RUN = new Set(['batch_expired', 'batch_cancelled']);

export interface OutputLine {
  custom_id: string;
  response?: { status_code?: number; body?: unknown } | null;
  error?: { code?: string; message?: string } | null;
}

/** A batch output (or error) file whose every line is JSON, or a retryable malformed-reply error naming the line. */
export function checkedOutputFile(fileId: string, text: string): string {
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      parseJsonReply(raw);
    } catch (e) {
      throw new BadReplyError(
        `batch file ${fileId}, line ${i + 1} of ${lines.length}: ${(e as Error).message}`,
        (e as BadReplyError).retryable,
      );
    }
  });
  return text;
}

export function parseOutputLine(raw: string): OutputLine | null {
  try {
    const v = JSON.parse(raw) as OutputLine;
    return typeof v?.custom_id === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** A line's reply, validated as an interactive reply would be, or why it is not one. */
export type LineResult =
  | { reply: StoredReply; tokens: { prompt_tokens: number; completion_tokens: number } }
  | { vector: Float32Array; tokens: { prompt_tokens: number; completion_tokens: number } }
  | { message: string; notRun?: boolean };

export function replyOf(line: OutputLine, url: string, endpoint: string): LineResult {
  if (line.error)
    return { message: `${line.error.code ?? 'error'}: ${line.error.message ?? ''}`.trim(), notRun: NOT_RUN.has(line.error.code ?? '') };
  const status = line.response?.status_code;
  const body = line.response?.body as { error?: { code?: string; message?: string } } | undefined;
  if (status !== 200) {
    if (body?.error?.code && NOT_RUN.has(body.error.code)) return { message: body.error.code, notRun: true };
    return { message: `HTTP ${status ?? '?'}: ${body?.error?.message ?? JSON.stringify(body ?? null).slice(0, 300)}` };
  }
  try {
    if (url === '/v1/embeddings') {
      const res = body as unknown as OpenAI.CreateEmbeddingResponse;
      return { vector: readVectors(res, 1)[0]!, tokens: { prompt_tokens: res.usage?.prompt_tokens ?? 0, completion_tokens: 0 } };
    }
    const reply =
      url === '/v1/messages'
        ? storedAnthropicReply(body as unknown as Parameters<typeof storedAnthropicReply>[0], endpoint)
        : storedReply(body as OpenAI.Chat.ChatCompletion, endpoint);
    return { reply: { ...reply, batch: true }, tokens: { prompt_tokens: reply.prompt_tokens, completion_tokens: reply.completion_tokens } };
  } catch (e) {
    return { message: (e as Error).message };
  }
}
