/**
 * EverMemOS's wire formats as its own evaluation writes and reads them (EverMind-AI/EverMemOS
 * @e37205f5, methods/EverCore/):
 * - a conversation's messages as `evaluation/src/core/loaders.py` L127-265 builds them: sender_id
 *   `<speaker lower, spaces as _>_<conversation>`, sender_name = the speaker, an image turn's
 *   content prefixed with `[<speaker> shared an image: <caption>] `, per-message timestamps = the
 *   session time + 30 s per position, squeezed into 90 % of the gap to the next session, and a
 *   session without a date placed at 2024-01-01 00:00 + <session index> hours;
 * - that message in the v1 group add's `MessageItem` (src/api_specs/dtos/memory.py L359-388:
 *   `{message_id, sender_id, sender_name, role, timestamp (unix ms), content}`), with the turn's id
 *   as message_id, as the stale HTTP adapter used LoCoMo's dia_id (evermemos_api_adapter.py L149-165);
 * - an episode of a search or a listing (SearchEpisodeItem / EpisodeItem, dtos/memory.py
 *   L1074-1103, L1443-1476) shown as the in-process adapter shows it: `<subject>: <episode>`
 *   (evermemos_adapter.py L559-563), dated by its timestamp.
 */
import { spacedTimestamps } from '../memory-service/plan.js';
import type { AddCall, ServiceMemory, ServiceMessage } from '../memory-service/service.js';

const isChatRole = (s: string) => s.toLowerCase() === 'user' || s.toLowerCase() === 'assistant';

/** The episode an add belongs to (its key is `<episode>#<n>`): the loader's conversation id. */
export function conversationOf(call: AddCall): string {
  return call.key.slice(0, call.key.lastIndexOf('#'));
}

/** loaders.py L252: `f"{speaker.lower().replace(' ', '_')}_{conv_id}"`. */
export function senderIdOf(speaker: string, conversation: string): string {
  return `${speaker.toLowerCase().replace(/ /g, '_')}_${conversation}`;
}

/** loaders.py L240-245: the caption before the text, `[Speaker shared an image: caption] text` (one bracket per caption). */
export function contentOf(m: ServiceMessage): string {
  const images = m.captions.map((c) => `[${m.speaker} shared an image: ${c}] `).join('');
  return images + m.text;
}

/** loaders.py L155-176: a session without a readable date starts at 2024-01-01 00:00 plus its index in hours. */
const FAKE_BASE = Date.UTC(2024, 0, 1) / 1000;

/** The session's index in its conversation, read from its id (`session_3` -> 2); 0 when it carries no number. */
function sessionIndex(session: string): number {
  const m = /(\d+)\D*$/.exec(session);
  return m ? Math.max(0, Number(m[1]) - 1) : 0;
}

/**
 * Unix milliseconds per message of the call: the loader's spacing (30 s apart, within 90 % of the
 * gap to the next session); an undated session from the loader's fake base, 30 s apart.
 */
export function timestampsMs(call: AddCall, stepSeconds: number, fitToGap: number): number[] {
  const dated =
    call.timestamp !== null ? call : { ...call, timestamp: FAKE_BASE + 3600 * sessionIndex(call.session), nextSessionTimestamp: null };
  return spacedTimestamps(dated, stepSeconds, fitToGap).map((s) => Math.round(s! * 1000));
}

/**
 * A user / assistant history (LongMemEval) as the vendor's converter names it: speaker
 * `<role>_<question id>` (longmemeval_converter.py L84-97), its text cut at 8,000 characters
 * (config/datasets/longmemeval.yaml L20: max_content_length).
 */
const CHAT_CONTENT_LIMIT = 8000;

/**
 * One v1 MessageItem per turn. LoCoMo's two named speakers are both people of one group stream:
 * each is `user` (the v1 API takes only user / assistant); a user / assistant history keeps its roles.
 */
export function messagesOf(call: AddCall, o: { stepSeconds: number; fitToGap: number }): Array<Record<string, unknown>> {
  const conversation = conversationOf(call);
  const stamps = timestampsMs(call, o.stepSeconds, o.fitToGap);
  return call.messages.map((m, i) => {
    const chat = isChatRole(m.speaker);
    const name = chat ? `${m.speaker.toLowerCase()}_${conversation}` : m.speaker;
    return {
      message_id: m.turnId,
      sender_id: senderIdOf(name, conversation),
      sender_name: name,
      role: chat ? m.speaker.toLowerCase() : 'user',
      timestamp: stamps[i]!,
      content: chat ? contentOf(m).slice(0, CHAT_CONTENT_LIMIT) : contentOf(m),
    };
  });
}

/** An episode as a memory (`<subject>: <episode>`, the in-process adapter's evidence line); null for an unreadable one. */
export function episodeMemory(e: unknown): ServiceMemory | null {
  const o = (e ?? {}) as Record<string, unknown>;
  const text = typeof o.episode === 'string' && o.episode.trim() !== '' ? o.episode : typeof o.summary === 'string' ? o.summary : null;
  if (typeof o.id !== 'string' || text === null) return null;
  const subject = typeof o.subject === 'string' && o.subject.trim() !== '' ? o.subject : null;
  return {
    id: o.id,
    memory: subject ? `${subject}: ${text}` : text,
    score: typeof o.score === 'number' ? o.score : null,
    date: typeof o.timestamp === 'string' ? o.timestamp : null,
    // v1 episodes name no source message (parent_id is a MemCell no v1 route returns): no turns.
    turnIds: [],
    addKey: null,
    speaker: null,
  };
}
