/**
 * MemU's wire formats as its evaluators write and read them:
 * - EverMemOS's adapter (EverMind-AI/EverMemOS@e37205f5 methods/EverCore/evaluation/src/adapters/
 *   online_base.py L601-719, memu_adapter.py L194-234; the LoCoMo loader core/loaders.py L155-265):
 *   per message `{role, content, name, time}` — the owner's own speaker `user`, the other
 *   `assistant`, content "Speaker: [Speaker shared an image: caption] text", `name` the speaker and
 *   `time` the naive session time plus 30 s per position (squeezed into 90 % of the gap to the next
 *   session) written `isoformat() + "Z"`; `session_date` the first message's day (`%Y-%m-%d`);
 * - MemOS's client (MemTensor/MemOS@be68e2fb evaluation/scripts/locomo/locomo_ingestion.py L22-46,
 *   L74-76; utils/client.py L319-355) through the memu-py SDK (NevaMind-AI/memU@e19c9a1
 *   memu/sdk/python/models.py L13-36): per session `{role, content: "Speaker: text", time: null}`,
 *   `conversation_text: null`, `session_date` the session time in ISO UTC;
 * - memU-server (NevaMind-AI/memU-server@17071716 README.md L190-200; memU@357aefc8
 *   src/memu/utils/conversation.py L7-89): `{role, content: {text}, created_at}`.
 * And the memories their replies carry: the hosted API's `related_memories[].memory`
 * (`{memory_id, category, content, happened_at}`, models.py L96-169) and memU-server's retrieve
 * items (memu-py `MemoryItem`: `{id, summary, happened_at, created_at, ...}`, database/models.py L76-93).
 */
import type { AddCall, ServiceMemory, ServiceMessage } from '../memory-service/service.js';
import { isoUtc, unixSeconds } from '../memory-service/plan.js';

const isChatRole = (s: string) => s.toLowerCase() === 'user' || s.toLowerCase() === 'assistant';

/** EverMemOS's loader puts an image before the text; its adapter then prefixes a named speaker. */
export function evermemosContent(m: ServiceMessage): string {
  const image = m.captions.map((c) => `[${m.speaker} shared an image: ${c}] `).join('');
  const text = `${image}${m.text}`;
  return isChatRole(m.speaker) ? text : `${m.speaker}: ${text}`;
}

/** MemOS's script: `speaker + ": " + text` (the text alone: no caption). */
export function memosContent(m: ServiceMessage): string {
  return isChatRole(m.speaker) ? m.text : `${m.speaker}: ${m.text}`;
}

/**
 * Per-message Unix seconds as EverMemOS's LoCoMo loader spaces them (loaders.py L178-239): each
 * session's messages 30 s apart from its time, the step squeezed so the last stays within 90 % of the
 * gap to the next session; one message: the session's time. Null for a session without a readable date.
 */
export function evermemosTimes(call: AddCall): Array<number | null> {
  const sessions: Array<{ session: string; start: number | null; size: number }> = [];
  for (const m of call.messages) {
    const session = m.session ?? call.session;
    const last = sessions[sessions.length - 1];
    if (last && last.session === session) last.size++;
    else sessions.push({ session, start: unixSeconds(m.date ?? call.date), size: 1 });
  }
  const steps = sessions.map((s, i) => {
    if (s.size <= 1 || s.start === null) return 0;
    // The next session's time: within the call, or (a one-session call) the one the plan names.
    const next = i + 1 < sessions.length ? sessions[i + 1]!.start : sessions.length === 1 ? call.nextSessionTimestamp : null;
    if (next === null) return 30;
    const room = next - s.start;
    if (room <= 0) return 30;
    return 30 * (s.size - 1) > room * 0.9 ? (room * 0.9) / (s.size - 1) : 30;
  });
  const out: Array<number | null> = [];
  sessions.forEach((s, i) => {
    for (let k = 0; k < s.size; k++) out.push(s.start === null ? null : s.start + k * steps[i]!);
  });
  return out;
}

/** Python's naive `datetime.isoformat()`: microseconds only when there are some. */
export function naiveIso(seconds: number): string {
  const whole = Math.floor(seconds);
  const micro = Math.round((seconds - whole) * 1e6);
  const base = new Date(whole * 1000).toISOString().slice(0, 19);
  return micro ? `${base}.${String(micro).padStart(6, '0')}` : base;
}

/** `%Y-%m-%d` of Unix seconds (UTC wall clock, as rawrag reads benchmark dates). */
export function dayOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** The hosted API's memorize body as EverMemOS's adapter sends it (memu_adapter.py L194-234). */
export function evermemosMemorize(call: AddCall, agent: { id: string; name: string }): Record<string, unknown> {
  const times = evermemosTimes(call);
  return {
    conversation: call.messages.map((m, i) => ({
      role: m.role,
      content: evermemosContent(m),
      name: m.speaker,
      time: times[i] !== null ? `${naiveIso(times[i]!)}Z` : null,
    })),
    user_id: call.owner,
    // The adapter names the store's user after its speaker (conv.metadata[speaker]), "User" when none.
    user_name: call.ownerSpeaker ?? call.speakers?.[0] ?? 'User',
    agent_id: agent.id,
    agent_name: agent.name,
    ...(times[0] !== null && times[0] !== undefined ? { session_date: dayOf(times[0]) } : {}),
  };
}

/** The hosted API's memorize body as MemOS's client sends it through the SDK's model_dump() (utils/client.py L328-338). */
export function memosMemorize(call: AddCall, agent: { id: string; name: string }): Record<string, unknown> {
  return {
    conversation_text: null,
    conversation: call.messages.map((m) => ({ role: m.role, content: memosContent(m), time: null })),
    user_id: call.owner,
    // The client passes the user id as the user's name too.
    user_name: call.owner,
    agent_id: agent.id,
    agent_name: agent.name,
    session_date: call.timestamp !== null ? isoUtc(call.timestamp) : call.date,
  };
}

/** memU-server's memorize body: memu-py's conversation JSON, each message dated as EverMemOS's loader dates it. */
export function serverMemorize(call: AddCall, agentId: string): Record<string, unknown> {
  const times = evermemosTimes(call);
  return {
    conversation: call.messages.map((m, i) => ({
      role: m.role,
      content: { text: evermemosContent(m) },
      ...(times[i] !== null ? { created_at: naiveIso(times[i]!).replace('T', ' ') } : {}),
    })),
    user_id: call.owner,
    agent_id: agentId,
  };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
/** A date as its day, for the evidence header (EverMemOS shows `happened_at` as YYYY-MM-DD). */
const dayPart = (v: unknown): string | null => str(v)?.split('T')[0]?.split(' ')[0] ?? null;

/** One `related_memories[]` entry of the hosted API; null when unreadable. `category` is shown after it as EverMemOS shows it. */
export function relatedMemory(r: unknown): ServiceMemory | null {
  const o = (r ?? {}) as { memory?: Record<string, unknown>; similarity_score?: unknown };
  const m = o.memory ?? {};
  const content = str(m.content);
  if (content === null) return null;
  const category = str(m.category);
  return {
    id: str(m.memory_id) ?? content,
    memory: category ? `${content} (Category: ${category})` : content,
    score: typeof o.similarity_score === 'number' ? o.similarity_score : null,
    date: dayPart(m.happened_at),
    turnIds: [],
    addKey: null,
  };
}

/** A listed memory item of the hosted API's default-categories reply (`memory_items.memories[]`). */
export function listedItem(m: unknown): ServiceMemory | null {
  const o = (m ?? {}) as Record<string, unknown>;
  const content = str(o.content);
  if (content === null) return null;
  return { id: str(o.memory_id) ?? content, memory: content, score: null, date: dayPart(o.happened_at), turnIds: [], addKey: null };
}

/** EverMemOS's category overview (memu_adapter.py L761-794): shown with a store's memories. */
export function categoryOverview(categories: unknown): string | null {
  const list = Array.isArray(categories) ? (categories as Array<Record<string, unknown>>) : [];
  const parts = list.filter((c) => str(c?.name) && str(c?.summary)).map((c) => `**${String(c.name)}:** ${String(c.summary)}\n\n`);
  return parts.length ? `## Memory Overview (by Category)\n${parts.join('')}`.trimEnd() : null;
}

/** A memU-server retrieve item (memu-py MemoryItem dumped): its summary is the memory. */
export function serverItem(i: unknown): ServiceMemory | null {
  const o = (i ?? {}) as Record<string, unknown>;
  const summary = str(o.summary);
  if (summary === null) return null;
  return {
    id: str(o.id) ?? summary,
    memory: summary,
    score: typeof o.score === 'number' ? o.score : null,
    date: dayPart(o.happened_at) ?? dayPart(o.created_at),
    turnIds: [],
    addKey: null,
  };
}

/** memU-server's categories of a user (POST /categories) with a summary, as memories: what it can list. */
export function serverCategory(c: unknown): ServiceMemory | null {
  const o = (c ?? {}) as Record<string, unknown>;
  const name = str(o.name);
  const summary = str(o.summary);
  if (name === null || summary === null) return null;
  return { id: `category:${name}`, memory: `${name}: ${summary}`, score: null, date: null, turnIds: [], addKey: null };
}
