/**
 * The judge stage: `runs` (default 3) judgements of the fixed answer, each a distinct request
 * (its replicate index is in the cache key), item score = mean of the verdicts. Every verdict and
 * raw judge text is kept in item.details.judge = { model, runs: [{verdict, raw}], votes, provenance }.
 * A reply the protocol cannot read is an error (retried by --retry-errors), never a WRONG.
 */
import type { ChatModel } from '../providers/chat.js';
import type { Provenance } from '../providers/provenance.js';
import type { ChatMessage, JudgeProtocol, Scoring } from '../core/protocol.js';
import { addItemUsage } from './reader.js';
import type { ItemStage } from './stage.js';
import { costOf } from '../providers/usage.js';
import type { ItemRecord } from '../core/item.js';

export interface JudgeRun {
  verdict: number;
  /** The judge's reply (several replies, in order, for multi-request judges). */
  raw: string | string[];
  details?: Record<string, unknown>;
}

export function judgeStage(model: ChatModel, protocol: JudgeProtocol, runs: number, fallbackMetric: string | undefined): ItemStage {
  return {
    name: 'judge',
    async run(item, ctx) {
      const { question: q, cfg } = ctx;
      const answer = item.answer ?? '';
      const first = protocol.render(q, answer);
      if (first === null) {
        scoreByMetric(item, fallbackMetric);
        return;
      }
      const provenance: Provenance[] = [];
      const ask =
        (replicate: number, replies: string[]) =>
        async (messages: ChatMessage[], opts?: { jsonMode?: boolean; maxTokens?: number }, keep?: (t: string) => boolean) => {
          const maxTokens = opts?.maxTokens ?? protocol.maxTokens ?? null;
          const reply = await model.complete(
            { messages, temperature: cfg.judge.temperature, maxTokens, jsonMode: opts?.jsonMode ?? protocol.jsonMode ?? false },
            replicate,
            keep,
          );
          const usage = { prompt_tokens: reply.prompt_tokens, completion_tokens: reply.completion_tokens, search_units: 0 };
          addItemUsage(item.details, 'judge', usage, costOf(usage, model.pricesOf(reply)), reply.cached);
          replies.push(reply.text);
          provenance.push(reply.provenance);
          return reply.text;
        };
      const one = async (replicate: number): Promise<JudgeRun> => {
        const replies: string[] = [];
        if (protocol.judge) {
          const out = await protocol.judge(q, answer, ask(replicate, replies));
          return {
            verdict: out.verdict,
            raw: replies.length === 1 ? replies[0]! : replies,
            ...(out.details ? { details: out.details } : {}),
          };
        }
        // Unreadable replies are not cached, so a retry asks the judge again.
        const readable = (t: string) => {
          try {
            protocol.parse(t, q);
            return true;
          } catch {
            return false;
          }
        };
        const text = await ask(replicate, replies)(first, undefined, readable);
        let verdict: number;
        try {
          verdict = protocol.parse(text, q);
        } catch (e) {
          throw new Error(`judge run ${replicate}: ${(e as Error).message}`);
        }
        return { verdict, raw: text };
      };
      // Replicates are numbered 1..runs (0 is the reader's single request).
      const results = await Promise.all(Array.from({ length: runs }, (_, i) => one(i + 1)));
      const votes = results.map((r) => r.verdict);
      item.score = votes.reduce((a, b) => a + b, 0) / votes.length;
      item.details.judge = { model: model.entry.name, protocol: protocol.id, runs: results, votes, provenance };
    },
  };
}

/** Questions the judge does not score get the protocol's fallback metric as their score. */
function scoreByMetric(item: ItemRecord, metric: string | undefined): void {
  const v = metric ? item.metrics[metric] : undefined;
  item.score = typeof v === 'number' ? v : null;
  item.details.judge = { model: null, runs: [], votes: [], scored_by: metric ?? null };
}

export function metricsStage(scoring: Scoring): ItemStage {
  return {
    name: 'metrics',
    async run(item, ctx) {
      for (const m of scoring.metrics) item.metrics[m.name] = m.score(item.answer ?? '', ctx.question);
    },
  };
}
