/**
 * MemOS (MemoryOS 2.x): its mem reader's chat extraction (memos/templates/mem_reader_prompts.py
 * SIMPLE_STRUCT_MEM_READER_PROMPT, "You are a memory extraction expert.", one user message ending in
 * "Conversation:\n<lines>\n\nYour Output:") answered as mem_reader/multi_modal_struct.py
 * `_process_string_fine` parses it (parse_json_result): `{"memory list": [{key, memory_type, value,
 * tags}], "summary"}`. One memory per conversation line (`role: [time]: content`), its content as the
 * value: deterministic, and MemOS's own embedding and graph-store writes then run on it. A reply
 * MemOS could not parse would make it store the raw window instead (its fallback), silently: this
 * responder is what keeps that path from being the one tested.
 */
import type { LlmRequest, Responder } from './types.js';

const MARK = 'You are a memory extraction expert.';

/** The lines of the prompt's last `Conversation:` block: `role: [time]: content` (or `role: content`). */
export function conversationLines(user: string): Array<{ role: string; content: string }> {
  const at = user.lastIndexOf('\nConversation:\n');
  const end = user.lastIndexOf('\n\nYour Output:');
  if (at < 0 || end < at) return [];
  return user
    .slice(at + '\nConversation:\n'.length, end)
    .split('\n')
    .map((line) => /^(user|assistant|system): (?:\[[^\]]*\]: )?([\s\S]*)$/.exec(line))
    .filter((x): x is RegExpExecArray => x !== null && x[2]!.trim() !== '')
    .map((x) => ({ role: x[1]!, content: x[2]!.trim() }));
}

export const responder: Responder = {
  library: 'memos',
  matches: (r: LlmRequest) => r.user.startsWith(MARK) && r.user.includes('"memory list"') && r.user.trimEnd().endsWith('Your Output:'),
  answer: (r: LlmRequest) => {
    const lines = conversationLines(r.user);
    return JSON.stringify({
      'memory list': lines.map((l) => ({
        key: l.content.slice(0, 40),
        memory_type: l.role === 'user' ? 'UserMemory' : 'LongTermMemory',
        value: l.content,
        tags: [l.role],
      })),
      summary: lines.map((l) => l.content).join(' '),
    });
  },
};
