/**
 * The loopback OpenAI-compatible API's answers to Cognee's own prompts (cognee 1.6.5, behind
 * integrations/sidecars/cognee.py), in the structured form its default structured-output path
 * (`litellm_native`: the pydantic model as a strict `json_schema` response_format named after the
 * model) validates:
 * - KnowledgeGraph (cognify's graph extraction, infrastructure/llm/prompts/generate_graph_prompt.txt,
 *   "You are a top-tier algorithm designed for extracting information in structured formats to build
 *   a knowledge graph") -> each speaker of the chunk a Person, its capitalised words (at most 8)
 *   Concepts, the session's date a Timestamp; an edge `mentioned` from the speaker to each word they
 *   used (`{speaker} said: {text}` as its description) and `talked_on` from each speaker to the date
 * - SummarizedContent (cognify's chunk summaries, summarize_content.txt, "Summarize the chunk for
 *   retrieval.") -> the prompt's two sections: the people, then one fact per turn (at most 12)
 * - its connection test ('Respond to me with the following string: "test"') -> test
 * Deterministic: the answer is a function of the prompt. null: not one of Cognee's prompts.
 */
import type { LlmRequest, Responder } from './types.js';
import { NOT_ENTITIES as STOP } from './stop-words.js';

const GRAPH = 'You are a top-tier algorithm designed for extracting information in structured formats to build a knowledge graph';
const SUMMARY = 'Summarize the chunk for retrieval.';
const CONNECTION_TEST = 'Respond to me with the following string: "test"';

interface Line {
  speaker: string;
  text: string;
}

/** The chunk's turns: paragraphs `Speaker: text` (the sidecar's document layout), the session's header line left out. */
export function turnsOf(chunk: string): Line[] {
  return chunk
    .split(/\n+/)
    .map((p) => /^([A-Z][\w .'-]{0,40}): (.+)$/.exec(p.trim()))
    .filter((m): m is RegExpExecArray => m !== null && !m[1]!.startsWith('Conversation session'))
    .map((m) => ({ speaker: m[1]!, text: m[2]! }));
}

/** The session's date of the header line ("Conversation session session_1, 1:56 pm on 8 May, 2023."), or null. */
function dateOf(chunk: string): string | null {
  const m = /^Conversation session [^,]+, (.+)\.$/m.exec(chunk);
  return m ? m[1]! : null;
}

function knowledgeGraph(chunk: string): unknown {
  const turns = turnsOf(chunk);
  const speakers = [...new Set(turns.map((t) => t.speaker))];
  const nodes = speakers.map((s) => ({ id: s, name: s, type: 'Person', description: `${s}, a participant of the conversation` }));
  const edges: Array<Record<string, string | null>> = [];
  const words: string[] = [];
  for (const t of turns)
    for (const w of t.text.match(/\b[A-Z][A-Za-z]{2,}\b/g) ?? []) {
      if (STOP.has(w) || speakers.includes(w)) continue;
      if (!words.includes(w)) {
        if (words.length >= 8) continue;
        words.push(w);
        nodes.push({ id: w, name: w, type: 'Concept', description: `${w}, mentioned in the conversation` });
      }
      edges.push({
        source_node_id: t.speaker,
        target_node_id: w,
        relationship_name: 'mentioned',
        description: `${t.speaker} said: ${t.text}`,
      });
    }
  const date = dateOf(chunk);
  if (date) {
    nodes.push({ id: date, name: date, type: 'Timestamp', description: `the date of the session, ${date}` });
    for (const s of speakers)
      edges.push({ source_node_id: s, target_node_id: date, relationship_name: 'talked_on', description: `${s} talked on ${date}.` });
  }
  return { nodes, edges };
}

function summarized(chunk: string): unknown {
  const turns = turnsOf(chunk);
  const people = [...new Set(turns.map((t) => t.speaker))];
  const facts = turns.slice(0, 12).map((t) => `- ${t.speaker} said: ${t.text}`);
  return { summary: `This chunk is about:\n- People: ${people.join(', ') || 'none'}\n\nFacts:\n${facts.join('\n')}`, description: '' };
}

export function cogneeResponder(req: LlmRequest): string | null {
  if (req.path !== '/v1/chat/completions') return null;
  if (req.system.startsWith(CONNECTION_TEST)) return 'test';
  const schema: string | undefined = req.body.response_format?.json_schema?.name;
  if (schema === 'KnowledgeGraph' && req.system.startsWith(GRAPH)) return JSON.stringify(knowledgeGraph(req.user));
  if (schema === 'SummarizedContent' && req.system.startsWith(SUMMARY)) return JSON.stringify(summarized(req.user));
  return null;
}

export const responder: Responder = {
  library: 'cognee',
  matches: (r: LlmRequest) => cogneeResponder(r) !== null,
  answer: (r: LlmRequest) => cogneeResponder(r)!,
};
