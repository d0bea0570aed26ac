/**
 * The loopback OpenAI-compatible API's answer to a Letta agent's step (letta 0.11.7, LettaAgent
 * with the LoCoMo script's system prompt, configs/prompts/letta-locomo-agent.txt), a chat completion
 * whose `tools` hold `semantic_search_files`:
 * - no tool result since the user's message (the agent's first step: semantic_search_files is its
 *   run_first tool): one call of it, `query` = the user's question as Letta passed it (its user
 *   message text, or the `message` of the JSON Letta may wrap it in; Letta's heartbeat messages,
 *   which follow a continue_loop tool, are no question);
 * - a search's result since then, and `answer_question` among the tools (-S mode=agent: the
 *   script's terminal tool): one call of answer_question, `answer` = the line of the found
 *   passages sharing the most words with the question (its text after `Speaker: `), else
 *   "No information found.".
 * Deterministic; null for anything else.
 */
import type { LlmMessage, LlmRequest, Responder } from './types.js';

const TOOL = 'semantic_search_files';
const ANSWER = 'answer_question';
const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/**
 * Letta's own user messages that are no question: after a `continue_loop` tool (mode=agent's search)
 * it adds a heartbeat, `{"type": "heartbeat", "reason": "... Continuing: continue tool rule.", ...}`.
 */
function isHeartbeat(text: string): boolean {
  try {
    return (JSON.parse(text) as { type?: unknown })?.type === 'heartbeat';
  } catch {
    return false;
  }
}

/** The question in Letta's user message: the text itself, or the `message` of a packed JSON user message. */
function question(text: string): string {
  try {
    const v = JSON.parse(text) as { message?: unknown };
    if (v && typeof v.message === 'string') return v.message;
  } catch {
    // plain text
  }
  return text;
}

/** A tool result's text: Letta packs a tool's return as JSON `{"status", "message", "time"}`; else the text itself. */
function toolText(text: string): string {
  try {
    const v = JSON.parse(text) as { message?: unknown };
    if (v && typeof v.message === 'string') return v.message;
  } catch {
    // plain text
  }
  return text;
}

const toolNames = (req: LlmRequest): string[] =>
  Array.isArray(req.body?.tools) ? req.body.tools.map((t: any) => String(t.function?.name ?? t.name)) : [];

/** The passages' line that shares the most words with the question (ties: the first), without its speaker. */
export function bestLine(results: string, q: string): string | null {
  const qw = words(q);
  let best: { text: string; n: number } | null = null;
  for (const raw of results.split('\n')) {
    if (!raw.startsWith('  ') || /^\s*Timestamp: /.test(raw)) continue;
    const text = raw.trim().replace(/^[^:]{1,40}: /, '');
    const n = [...words(text)].filter((w) => qw.has(w)).length;
    if (n > 0 && (!best || n > best.n)) best = { text, n };
  }
  return best?.text ?? null;
}

export const responder: Responder = {
  library: 'letta',
  matches: (req: LlmRequest) =>
    toolNames(req).includes(TOOL) && req.system.includes('You are tasked with answering questions about conversation history'),
  answer: (req: LlmRequest) => {
    // The question: the last user message that is not Letta's heartbeat; tool results since then are this question's.
    const asked = req.messages.map((m, i) => [m, i] as const).filter(([m]) => m.role === 'user' && !isHeartbeat(m.content));
    const lastUser = asked.length ? asked[asked.length - 1]![1] : -1;
    const q = question(asked.length ? asked[asked.length - 1]![0].content : req.user).trim();
    const since: LlmMessage[] = req.messages.slice(lastUser + 1).filter((m) => m.role === 'tool');
    if (since.length === 0 || !toolNames(req).includes(ANSWER)) return { tool_calls: [{ name: TOOL, arguments: { query: q } }] };
    const answer = bestLine(since.map((m) => toolText(m.content)).join('\n'), q) ?? 'No information found.';
    return { tool_calls: [{ name: ANSWER, arguments: { answer } }] };
  },
};
