/**
 * The loopback OpenAI-compatible API's answers to Graphiti's own prompts (graphiti-core 0.31.2,
 * graphiti_core/prompts/*.py, Zep's open-source engine behind integrations/sidecars/zep.py), in the
 * structured form its `OpenAIGenericClient` parses: a chat completion whose `response_format` is
 * `json_schema` named after the pydantic model the library validates the reply with.
 * - ExtractedEntities (extract_nodes.extract_message) -> the speaker of <CURRENT MESSAGE> and its
 *   capitalised words, entity type 0
 * - ExtractedEdges (extract_edges.edge) -> one fact per other entity of <ENTITIES> (the speaker
 *   alone: the speaker to itself), `fact` = "{speaker} said: {text}", valid_at = <REFERENCE_TIME>
 * - EdgeTimestamps / BatchEdgeTimestamps -> valid_at = the reference time, invalid_at null
 * - NodeResolutions (dedupe_nodes.nodes) -> an entity is the existing one with the same name, else new (-1)
 * - EdgeDuplicate (dedupe_edges.resolve_edge) -> the existing facts with the same text are duplicates
 * - SummarizedEntities / Summary / EntitySummary / SummaryDescription -> summaries quoting the message
 * - the cross-encoder (OpenAIRerankerClient: "Respond with "True" if PASSAGE is relevant") -> "True"
 *   when PASSAGE and QUERY share a word of 4+ letters, else "False" (read from logprobs)
 * Deterministic: the answer is a function of the prompt. null: not one of Graphiti's prompts.
 */
import type { LlmRequest, Responder } from './types.js';
import { NOT_ENTITIES as STOP } from './stop-words.js';


function tag(text: string, name: string): string {
  const m = new RegExp(`<${name}>\\n?([\\s\\S]*?)\\n?</${name}>`).exec(text);
  return m ? m[1]!.trim() : '';
}

/** `Speaker: text` of a message body. */
function message(body: string): { speaker: string; text: string } {
  const i = body.indexOf(': ');
  return i < 0 ? { speaker: body.trim(), text: '' } : { speaker: body.slice(0, i).trim(), text: body.slice(i + 2).trim() };
}

/** ISO time with Z of the prompt's reference time ("2023-05-08 13:56:00+00:00  # ..."). */
function referenceTime(text: string): string | null {
  const m = /(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)/.exec(tag(text, 'REFERENCE_TIME') || tag(text, 'REFERENCE TIME'));
  return m ? `${m[1]}T${m[2]}Z` : null;
}

const words = (s: string) => new Set((s.toLowerCase().match(/[a-z]{4,}/g) ?? []) as string[]);

/** The JSON list (or Python-repr list) inside a tag, as objects; [] when it does not parse. */
function listIn(text: string, name: string): Array<Record<string, any>> {
  const raw = tag(text, name);
  for (const attempt of [raw, raw.replace(/'/g, '"').replace(/\bNone\b/g, 'null')]) {
    try {
      const v = JSON.parse(attempt);
      if (Array.isArray(v)) return v;
    } catch {
      /* try the next reading */
    }
  }
  return [];
}

function entities(user: string): unknown {
  const { speaker, text } = message(tag(user, 'CURRENT MESSAGE'));
  const names = [speaker];
  for (const w of text.match(/\b[A-Z][A-Za-z]{2,}\b/g) ?? []) if (!STOP.has(w) && !names.includes(w) && names.length < 4) names.push(w);
  return { extracted_entities: names.filter(Boolean).map((name) => ({ name, entity_type_id: 0, episode_indices: [0] })) };
}

function edges(user: string): unknown {
  const { speaker, text } = message(tag(user, 'CURRENT_MESSAGE'));
  const names = listIn(user, 'ENTITIES').map((e) => String(e.name));
  const source = names.includes(speaker) ? speaker : (names[0] ?? speaker);
  const targets = names.filter((n) => n !== source);
  const fact = `${speaker} said: ${text}`;
  const valid_at = referenceTime(user);
  return {
    edges: (targets.length ? targets : [source]).map((target) => ({
      source_entity_name: source,
      target_entity_name: target,
      relation_type: targets.length ? 'MENTIONED' : 'SAID',
      fact,
      valid_at,
      invalid_at: null,
      episode_indices: [0],
    })),
  };
}

function resolutions(user: string): unknown {
  const existing = listIn(user, 'EXISTING ENTITIES');
  return {
    entity_resolutions: listIn(user, 'ENTITIES').map((e, i) => {
      const same = existing.find((x) => String(x.name).toLowerCase() === String(e.name).toLowerCase());
      return { id: e.id ?? i, name: e.name, duplicate_candidate_id: same ? (same.candidate_id ?? same.idx ?? -1) : -1 };
    }),
  };
}

function edgeDuplicate(user: string): unknown {
  const fact = JSON.stringify(tag(user, 'NEW FACT'));
  const existing = listIn(user, 'EXISTING FACTS');
  return {
    duplicate_facts: existing.filter((f) => fact.includes(JSON.stringify(String(f.fact)).slice(1, -1))).map((f) => f.idx),
    contradicted_facts: [],
  };
}

function summaries(user: string, schema: string): unknown {
  const about = (name: string) => `${name} appears in the conversation.`;
  if (schema === 'SummarizedEntities')
    return { summaries: listIn(user, 'ENTITIES').map((e) => ({ name: e.name, summary: about(String(e.name)) })) };
  if (schema === 'SummaryDescription') return { description: 'A summary of an entity in the conversation.' };
  return { summary: about(String(/"name":\s*"([^"]+)"/.exec(user)?.[1] ?? 'The entity')) };
}

const SCHEMAS = new Set([
  'ExtractedEntities',
  'ExtractedEdges',
  'EdgeTimestamps',
  'BatchEdgeTimestamps',
  'NodeResolutions',
  'EdgeDuplicate',
  'SummarizedEntities',
  'Summary',
  'EntitySummary',
  'SummaryDescription',
]);

export function graphitiResponder(req: LlmRequest): string | null {
  const body = req.body;
  if (req.path !== '/v1/chat/completions') return null;
  if (body.logprobs && req.system.includes('determining whether the passage is relevant to the query')) {
    const shared = [...words(tag(req.user, 'PASSAGE'))].some((w) => words(tag(req.user, 'QUERY')).has(w));
    return shared ? 'True' : 'False';
  }
  const schema: string | undefined = body.response_format?.json_schema?.name;
  if (!schema || !SCHEMAS.has(schema)) return null;
  // The summary models' names are generic: only Graphiti's own summary prompts are answered here.
  if (/Summar/.test(schema) && !/summar/i.test(req.system)) return null;
  const user = req.user;
  switch (schema) {
    case 'ExtractedEntities':
      return JSON.stringify(entities(user));
    case 'ExtractedEdges':
      return JSON.stringify(edges(user));
    case 'EdgeTimestamps':
      return JSON.stringify({ valid_at: referenceTime(user), invalid_at: null });
    case 'BatchEdgeTimestamps':
      return JSON.stringify({ timestamps: [{ valid_at: referenceTime(user), invalid_at: null }] });
    case 'NodeResolutions':
      return JSON.stringify(resolutions(user));
    case 'EdgeDuplicate':
      return JSON.stringify(edgeDuplicate(user));
    default:
      return JSON.stringify(summaries(user, schema));
  }
}

export const responder: Responder = {
  library: 'graphiti',
  matches: (r: LlmRequest) => graphitiResponder(r) !== null,
  answer: (r: LlmRequest) => graphitiResponder(r)!,
};
