/**
 * The loopback OpenAI-compatible API's answers to LangMem's agents (langmem 0.0.30 behind
 * integrations/sidecars/langmem.py: a langgraph ReAct agent per speaker, `ChatOpenAI` with LangMem's
 * `manage_memory` and `search_memory` tools bound), as chat completions whose tool calls langgraph
 * parses (`message.tool_calls[].function.{name, arguments}`, finish_reason `tool_calls`):
 * - a user message that is a turn (`{date} | {speaker}: {text}`, Mem0's script) -> manage_memory
 *   {action: "create", content: "On {date}, {speaker} said: {text}"}; a turn that repeats, word for
 *   word, a memory the prompt's <memories> show -> manage_memory {action: "update", id: that memory's key}
 * - any other user message (a question) -> search_memory {query: the question, limit: 10}
 * - a tool result of manage_memory -> the text "Noted." (the agent's final message)
 * - a tool result of search_memory -> the memories' contents, one per line ("No relevant memories."
 *   when it found none): the final message Mem0's script takes as that speaker's memories
 * Deterministic: the answer is a function of the request. Not matched: a request without both tools.
 */
import type { LlmAnswer, LlmRequest, Responder } from './types.js';

const TURN = /^(.+?) \| ([^:\n]+): ([\s\S]*)$/;

type Message = { role: string; content?: unknown; tool_calls?: Array<{ id: string; function: { name: string } }>; tool_call_id?: string };

const textOf = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: any) => (typeof p === 'string' ? p : (p?.text ?? ''))).join('') : '';

const toolNames = (body: any): string[] => ((body?.tools ?? []) as any[]).map((t) => t?.function?.name ?? t?.name);

/** The memory the prompt shows (Python repr of SearchItems: `key='...', value={'content': '...'}`) whose content is `content`. */
function shownKey(system: string, content: string): string | null {
  const re = /key='([^']+)', value=\{'content': (['"])([\s\S]*?)\2\}/g;
  for (let m = re.exec(system); m; m = re.exec(system)) if (m[3] === content) return m[1]!;
  return null;
}

/** The contents of a search_memory result (utils.dumps of SearchItem dicts). */
function contents(toolText: string): string[] {
  try {
    const items = JSON.parse(toolText) as Array<{ value?: { content?: unknown } }>;
    return Array.isArray(items) ? items.map((i) => textOf(i?.value?.content)).filter(Boolean) : [];
  } catch {
    return [];
  }
}

function answer(req: LlmRequest): LlmAnswer {
  const messages = (req.body.messages ?? []) as Message[];
  const last = messages[messages.length - 1]!;
  if (last.role === 'tool') {
    // The nearest call with this id (the loopback numbers each reply's calls from call_0, so ids repeat along a thread).
    const call = messages
      .flatMap((m) => m.tool_calls ?? [])
      .reverse()
      .find((c) => c.id === last.tool_call_id);
    if (call?.function.name === 'search_memory') {
      const found = contents(textOf(last.content));
      return { content: found.length ? found.join('\n') : 'No relevant memories.' };
    }
    return { content: 'Noted.' };
  }
  const text = textOf(last.content);
  const turn = TURN.exec(text);
  if (!turn) return { tool_calls: [{ name: 'search_memory', arguments: { query: text, limit: 10 } }] };
  const content = `On ${turn[1]}, ${turn[2]} said: ${turn[3]}`;
  const key = shownKey(req.system, content);
  return {
    tool_calls: [
      { name: 'manage_memory', arguments: key ? { content, action: 'update', id: key } : { content, action: 'create' } },
    ],
  };
}

export const responder: Responder = {
  library: 'langmem',
  matches: (req) => req.path === '/v1/chat/completions' && ['manage_memory', 'search_memory'].every((n) => toolNames(req.body).includes(n)),
  answer,
};
