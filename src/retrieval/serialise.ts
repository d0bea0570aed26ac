/**
 * Ingest step 1: every message becomes one line of text with its date (`unknown` when missing),
 * speaker and content; image captions enter as text. No LLM is involved.
 */
import type { Turn } from '../core/schema.js';
import type { Policy } from '../core/policy.js';

export function serialiseTurn(turn: Turn, style: Policy['serialisation']): string {
  const captions = turn.captions.map((c) => ` [shared an image: ${c}]`).join('');
  if (style === 'plain') return turn.text + captions;
  const speaker = turn.speaker ? `${turn.speaker}: ` : '';
  return `[${turn.date ?? 'unknown'}] ${speaker}${turn.text}${captions}`;
}
