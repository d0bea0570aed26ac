/**
 * Scripted replies of the RAW-RAG variants' ingest LLM (raw-rag-facts, -summaries, -graph) for a
 * loopback server (tests/helpers/fake-api.ts): requests are told apart by their system prompt,
 * the reply is built from the segment's `(turn id) [date] speaker: text` lines. Other chat
 * requests (reader, judge) go to `chat`.
 */
import { defaultChat, type RecordedRequest } from './fake-api.js';
import { segmentOf } from './fake-extractor.js';

export const INGEST_MARKERS = {
  facts: 'You are the atomic fact extractor',
  summaries: 'You summarise one session',
  graph: 'You build an entity graph',
} as const;

export function ingestKind(body: any): keyof typeof INGEST_MARKERS | null {
  const first = body?.messages?.[0]?.content;
  if (typeof first !== 'string') return null;
  for (const [k, m] of Object.entries(INGEST_MARKERS)) if (first.startsWith(m)) return k as keyof typeof INGEST_MARKERS;
  return null;
}

export function isIngestRequest(r: RecordedRequest): boolean {
  return r.path === '/v1/chat/completions' && ingestKind(r.body) !== null;
}

function parts(line: string): { speaker: string; text: string } {
  const m = /^\([^)]*\) \[[^\]]*\] ([^:]+): (.*)$/.exec(line);
  return { speaker: m?.[1] ?? 'someone', text: m?.[2] ?? line };
}

/** Capitalised words other than the first: the "entities" a turn mentions. */
function names(text: string): string[] {
  return [...new Set((text.match(/(?<=\s)[A-Z][a-z]{2,}/g) ?? []).slice(0, 3))];
}

/** The scripted reply: one fact per turn, a summary citing every turn, speakers and names as entities. */
export function ingestReply(body: any): string | null {
  const kind = ingestKind(body);
  if (!kind) return null;
  const { turnIds, lines } = segmentOf(body);
  const p = lines.map(parts);
  if (kind === 'facts')
    return JSON.stringify({ facts: p.map((x, i) => ({ fact: `${x.speaker} said: ${x.text}`, source_turns: [turnIds[i]] })) });
  if (kind === 'summaries')
    return JSON.stringify({
      summary: p
        .slice(0, 3)
        .map((x) => `${x.speaker}: ${x.text}`)
        .join(' '),
      source_turns: turnIds.slice(0, 3),
    });
  const entities = new Map<string, string[]>();
  const relations: Array<{ source: string; relation: string; target: string }> = [];
  p.forEach((x, i) => {
    for (const n of [x.speaker, ...names(x.text)]) entities.set(n, [...(entities.get(n) ?? []), turnIds[i]!]);
    for (const n of names(x.text)) relations.push({ source: x.speaker, relation: 'mentioned', target: n });
  });
  return JSON.stringify({ entities: [...entities].map(([name, turns]) => ({ name, turns })), relations });
}

/** A chat function for FakeApi: ingest replies, else `chat` (default: the FakeApi's judge/reader). */
export function withIngest(chat: (body: any) => string = defaultChat): (body: any) => string {
  return (body) => ingestReply(body) ?? chat(body);
}
