/**
 * The loopback OpenAI-compatible API's answers to RecMem's own prompts (CaiusDai/RecMem@a84252f6
 * recmem/prompt.py), in the JSON each prompt asks for and recmem/llm/base.py
 * `chat_completion_json` parses, so the library's own parsing, merging and storage code runs:
 * - EPISODIC_GENERATION_PROMPT ("Episodic Memory Constructor") -> {"episodes": [one paragraph of the messages]}
 * - EPISODIC_MERGE_PROMPT ("Episodic Memory Merger") -> {"should_merge": "yes", "merged_memory": past + new}
 * - SEMANTIC_EXTRACTION_PROMPT(_ABLATION) ("Semantic Memory Extractor") -> {"facts": [one per message, at most 3]}
 * Deterministic: the answer is a function of the prompt. null: not one of RecMem's prompts.
 */
import type { LlmRequest, Responder } from './types.js';

const MESSAGE = /\[Message\]: ([\s\S]*?)(?=\n- \[Message Timestamp\]|\n*$)/g;

/** The chat turns quoted in a prompt section ("[Speaker]: text" lines), in order. */
function turnsIn(section: string): string[] {
  const out: string[] = [];
  for (const m of section.matchAll(MESSAGE)) out.push(...m[1]!.split('\n').filter((l) => l.trim()));
  return out;
}

function between(text: string, from: string, to?: string): string {
  const i = text.indexOf(from);
  if (i < 0) return '';
  const rest = text.slice(i + from.length);
  const j = to ? rest.indexOf(to) : -1;
  return (j < 0 ? rest : rest.slice(0, j)).trim();
}

export function recmemResponder(body: any): string | null {
  const prompt: string = (body.messages as Array<{ content: string }>).map((m) => m.content).join('\n');
  if (prompt.includes('You are an Episodic Memory Constructor')) {
    const turns = turnsIn(between(prompt, '\nMessages:\n', '\nOutput:'));
    return JSON.stringify({ episodes: turns.length ? [`Episode: ${turns.join(' Then ')}`] : [] });
  }
  if (prompt.includes('You are an Episodic Memory Merger')) {
    const next = turnsIn(between(prompt, '<New Memory Piece>:', '<Past Memory Piece>:'));
    const past = between(prompt, '<Past Memory Piece>:', '\nOutput:');
    return JSON.stringify({ should_merge: 'yes', merged_memory: `${past} Later: ${next.join(' ')}` });
  }
  if (prompt.includes('You are a Semantic Memory Extractor')) {
    const turns = turnsIn(between(prompt, 'Raw Reference:', 'Old Semantic Memories:') || prompt);
    return JSON.stringify({ facts: turns.slice(0, 3).map((t) => `Fact: ${t}`) });
  }
  return null;
}

export const responder: Responder = {
  library: 'recmem',
  matches: (r: LlmRequest) => r.path === '/v1/chat/completions' && recmemResponder(r.body) !== null,
  answer: (r: LlmRequest) => recmemResponder(r.body)!,
};
