/**
 * The loopback OpenAI-compatible API's answer to a Letta agent's step (letta 0.11.7, LettaAgent
 * with the LoCoMo script's system prompt, configs/prompts/letta-locomo-agent.txt): a chat
 * completion whose `tools` hold `semantic_search_files` (the agent's first tool by its run_first
 * rule) is answered with one call of it, `query` = the user's question as Letta passed it (its
 * user message text, or the `message` of the JSON Letta may wrap it in). Deterministic; null for
 * anything else.
 */
import type { LlmRequest, Responder } from './types.js';

const TOOL = 'semantic_search_files';

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

export const responder: Responder = {
  library: 'letta',
  matches: (req: LlmRequest) =>
    Array.isArray(req.body?.tools) &&
    req.body.tools.some((t: any) => (t.function?.name ?? t.name) === TOOL) &&
    req.system.includes('You are tasked with answering questions about conversation history'),
  answer: (req: LlmRequest) => {
    const users = req.messages.filter((m) => m.role === 'user');
    return { tool_calls: [{ name: TOOL, arguments: { query: question(users[users.length - 1]?.content ?? req.user).trim() } }] };
  },
};
