/**
 * The loopback OpenAI-compatible API's answers to Nemori's own prompts (nemori-ai/nemori@d2a6dff6
 * nemori/llm/prompts.py), in the form each of its generators parses (nemori/llm/generators/*.py),
 * so the library's own segmentation, episode, semantic and merge code runs (each generator falls
 * back quietly on a reply it cannot parse: the markers below let a test tell its output from a fallback):
 * - BATCH_SEGMENTATION_PROMPT -> {"episodes": [{"indices": [...], "topic": "Topic N"}]}, runs of at most 8 messages
 * - EPISODE_GENERATION_PROMPT -> {"title": "Episode: ...", "content": "Episode: <the lines>", "timestamp": the first message's}
 * - PREDICTION_PROMPT -> free text (no JSON is asked)
 * - EXTRACT_KNOWLEDGE_FROM_COMPARISON_PROMPT, SEMANTIC_GENERATION_PROMPT -> {"statements": ["Statement: ...", ...]}
 * - MERGE_DECISION_PROMPT -> {"decision": "new", "merge_target_id": null, "reason": ...}
 * - MERGE_CONTENT_PROMPT -> {"title", "content", "timestamp"}
 * Deterministic: the answer is a function of the prompt. null: not one of Nemori's prompts.
 */
import type { LlmRequest, Responder } from './types.js';

function section(text: string, from: string, to: string): string {
  const i = text.indexOf(from);
  if (i < 0) return '';
  const rest = text.slice(i + from.length);
  const j = rest.indexOf(to);
  return (j < 0 ? rest : rest.slice(0, j)).trim();
}

const lines = (s: string) => s.split('\n').filter((l) => l.trim());

export function nemoriResponder(body: any): string | null {
  const prompt: string = (body.messages as Array<{ content: unknown }>)
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
  if (prompt.includes('You are an intelligent conversation segmentation expert')) {
    const count = Number(/You will receive (\d+) messages/.exec(prompt)?.[1] ?? '0');
    const episodes = [];
    for (let start = 1; start <= count; start += 8) {
      const indices = Array.from({ length: Math.min(8, count - start + 1) }, (_, i) => start + i);
      episodes.push({ indices, topic: `Topic ${episodes.length + 1}` });
    }
    return JSON.stringify({ episodes });
  }
  if (prompt.includes('Boundary detection reason:')) {
    const conv = lines(section(prompt, 'Conversation content:', 'Boundary detection reason:'));
    const ts = /^\[(\d{4}-\d\d-\d\dT[\d:]+)/.exec(conv[0] ?? '')?.[1] ?? '2023-01-01T00:00:00';
    const first = (conv[0] ?? '').replace(/^\[[^\]]*\] /, '');
    return JSON.stringify({
      title: `Episode: ${first.split(' ').slice(0, 8).join(' ')}`,
      content: `Episode: ${conv.join(' ')}`,
      timestamp: ts,
    });
  }
  if (prompt.includes('You are a knowledge-based episode prediction system'))
    return `Prediction: ${section(prompt, '**Episode Title/Summary**:', '\n')}`;
  if (prompt.includes('You are extracting valuable knowledge by comparing')) {
    const original = lines(section(prompt, '## Original Conversation:', '## Predicted Summary:'));
    return JSON.stringify({ statements: original.slice(0, 2).map((l) => `Statement: ${l}`) });
  }
  if (prompt.includes('Extract HIGH-VALUE, PERSISTENT semantic memories')) {
    const content = section(prompt, 'Content:', '\n');
    return JSON.stringify({ statements: content ? [`Statement: ${content.slice(0, 200)}`] : [] });
  }
  if (prompt.includes('You are an episodic memory merge decision expert'))
    return JSON.stringify({ decision: 'new', merge_target_id: null, reason: 'a distinct event' });
  if (prompt.includes('You are an episodic memory merge content generator')) {
    const a = section(prompt, '## Original Episode', '## New Episode to Merge');
    const b = section(prompt, '## New Episode to Merge', '## Combined Event Details');
    return JSON.stringify({
      title: `Merged: ${section(a, 'Title:', '\n')}`,
      content: `Merged: ${section(a, 'Content:', '\n')} ${section(b, 'Content:', '\n')}`,
      timestamp: '2023-01-01T00:00:00',
    });
  }
  return null;
}

export const responder: Responder = {
  library: 'nemori',
  matches: (r: LlmRequest) => r.path === '/v1/chat/completions' && nemoriResponder(r.body) !== null,
  answer: (r: LlmRequest) => nemoriResponder(r.body)!,
};
