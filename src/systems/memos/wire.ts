/**
 * MemOS's wire formats as its own evaluation writes and reads them (MemTensor/MemOS@be68e2fb):
 * the messages of `evaluation/scripts/locomo/locomo_ingestion.py` L22-63 ("Speaker: text", the
 * owner's own speaker as `user`, `chat_time` = the session date as ISO UTC on every message; a
 * user/assistant history keeps its roles and text, cut at 8,000 characters as
 * `longmemeval/lme_ingestion.py` L32-42 does), and a memory node of a search or a listing
 * (`{id, memory, metadata: {relativity, info, status, ...}}`, formatters_handler.py L44-70).
 */
import { isoUtc } from '../memory-service/plan.js';
import { readMetadata, type AddCall, type ServiceMemory, type ServiceMessage } from '../memory-service/service.js';

const isChatRole = (s: string) => s.toLowerCase() === 'user' || s.toLowerCase() === 'assistant';

/** LoCoMo: `speaker + ": " + text` (no image caption: the script reads `text` only); a chat history: its text. */
export function contentOf(m: ServiceMessage): string {
  return isChatRole(m.speaker) ? m.text.slice(0, 8000) : `${m.speaker}: ${m.text}`;
}

/** The session's time as the script writes it (the date read as UTC, isoformat), or the date as given when it cannot be read. */
export function chatTimeOf(call: AddCall): string | null {
  return call.timestamp !== null ? isoUtc(call.timestamp) : call.date;
}

export function messagesOf(call: AddCall): Array<Record<string, unknown>> {
  const chatTime = chatTimeOf(call);
  return call.messages.map((m) => ({ role: m.role, content: contentOf(m), ...(chatTime !== null ? { chat_time: chatTime } : {}) }));
}

/** The episode id of an add (its key is `<episode>[~speaker]#<n>`): the script's conversation id is `<conversation>_<session>`. */
export function conversationIdOf(call: AddCall): string {
  const episode = call.key.slice(0, call.key.lastIndexOf('#'));
  const speakerPart = call.ownerSpeaker !== null ? episode.lastIndexOf('~') : -1;
  return `${speakerPart > 0 ? episode.slice(0, speakerPart) : episode}_${call.session}`;
}

/** A memory node as a memory (rawrag's metadata rides in `metadata.info`); null for an unreadable node. */
export function nodeMemory(n: unknown): ServiceMemory | null {
  const o = (n ?? {}) as Record<string, unknown>;
  if (typeof o.id !== 'string' || typeof o.memory !== 'string') return null;
  const meta = (o.metadata && typeof o.metadata === 'object' ? o.metadata : {}) as Record<string, unknown>;
  const read = readMetadata(meta.info);
  return {
    id: o.id,
    memory: o.memory,
    score: typeof meta.relativity === 'number' ? meta.relativity : null,
    date: read.date,
    turnIds: read.turnIds,
    addKey: read.addKey,
  };
}

/** Archived (merged into a newer memory) and deleted nodes are not part of the store. */
export function isLive(n: unknown): boolean {
  const status = ((n as { metadata?: { status?: unknown } })?.metadata?.status ?? 'activated') as unknown;
  return status !== 'archived' && status !== 'deleted';
}
