/**
 * Mem0 (mem0ai 2.x): its additive extraction call (mem0/configs/prompts.py ADDITIVE_EXTRACTION_PROMPT,
 * "You are a Memory Extractor", with `response_format: json_object`) answered as mem0/memory/main.py
 * parses it: `{"memory": [{"id": "0", "text": ...}, ...]}` (main.py reads `.get("memory")`, each
 * item's `text`). One memory per new message, its content as the fact: deterministic, and the
 * library's own embedding, dedup (md5 of the text) and storage then run on it.
 */
import type { LlmRequest, Responder } from './types.js';

/** The `## New Messages` section of mem0's user prompt: `role: content` lines (mem0/memory/utils.py parse_messages). */
export function newMessages(user: string): Array<{ role: string; content: string }> {
  const m = /## New Messages\n([\s\S]*?)\n\n## Observation Date/.exec(user);
  if (!m) return [];
  return m[1]!
    .split('\n')
    .map((line) => /^(user|assistant|system): ([\s\S]*)$/.exec(line))
    .filter((x): x is RegExpExecArray => x !== null && x[1] !== 'system' && x[2]!.trim() !== '')
    .map((x) => ({ role: x[1]!, content: x[2]!.trim() }));
}

export const responder: Responder = {
  library: 'mem0',
  matches: (r: LlmRequest) => r.system.includes('You are a Memory Extractor') && r.user.includes('## New Messages'),
  answer: (r: LlmRequest) => JSON.stringify({ memory: newMessages(r.user).map((m, i) => ({ id: String(i), text: m.content })) }),
};
