/**
 * How an episode's visible history becomes add calls: one owner per (episode, visibility horizon),
 * sessions in order, each cut into calls of `batch` turns, every call carrying its turns' ids and
 * date. Deterministic, so a resumed run plans the very same calls and recognises those already
 * acknowledged by their keys.
 */
import { basename, resolve } from 'node:path';
import type { IngestedEpisode } from '../../core/ingested-episode.js';
import { sha256Hex } from '../../util/fsx.js';
import type { Turn } from '../../core/schema.js';
import { parseDay } from '../../retrieval/local/dates.js';
import type { AddCall, ServiceMessage } from './service.js';

/**
 * A run directory's tag in its owner ids: its folder name, and a hash of its absolute path, so two
 * run directories of the same name in different folders (results/a/mem0, results/b/mem0) never
 * add to the same owners on a service.
 */
export function runTag(runDir: string): string {
  const dir = resolve(runDir);
  return `${basename(dir)}-${sha256Hex(dir).slice(0, 8)}`;
}

/** The owner id on the service: unique per run directory, episode and horizon, so runs never share memories. */
export function ownerOf(runId: string, ep: Pick<IngestedEpisode, 'episode' | 'visibleTurns'>): string {
  const horizon = ep.visibleTurns < ep.episode.turns.length ? `@${ep.visibleTurns}` : '';
  return `rawrag-${runId}-${ep.episode.id}${horizon}`;
}

/**
 * Roles as a chat service expects them. Histories of a user and an assistant keep theirs; a
 * conversation between two named people (LoCoMo) has its first speaker as `user`, the other as
 * `assistant`, and every message names its speaker, as Mem0's own LoCoMo evaluation sends them.
 */
function roleMapper(ep: IngestedEpisode): (t: Turn) => ServiceMessage {
  const listed = Array.isArray(ep.episode.meta?.speakers)
    ? (ep.episode.meta!.speakers as unknown[]).filter((s) => typeof s === 'string')
    : [];
  const first = (listed[0] as string | undefined) ?? ep.episode.turns[0]?.speaker ?? 'user';
  return (t) => {
    const text = t.text + t.captions.map((c) => ` [shared an image: ${c}]`).join('');
    const s = t.speaker.toLowerCase();
    if (s === 'user' || s === 'assistant') return { role: s, content: text };
    return { role: t.speaker === first ? 'user' : 'assistant', content: `${t.speaker}: ${text}` };
  };
}

/** Unix seconds of a benchmark date ("1:56 pm on 8 May, 2023", "2023/05/20 (Sat) 02:21", ISO), or null. */
export function unixSeconds(date: string | null): number | null {
  const day = parseDay(date);
  if (day === null) return null;
  let seconds = day * 86_400;
  const t = /\b(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap]\.?m\.?)?/i.exec(date!);
  if (t) {
    let h = Number(t[1]) % 24;
    const pm = t[4] && /^p/i.test(t[4]);
    if (t[4]) h = (h % 12) + (pm ? 12 : 0);
    seconds += h * 3600 + Number(t[2]) * 60 + Number(t[3] ?? 0);
  }
  return seconds;
}

export function planAdds(ep: IngestedEpisode, owner: string, batch: 'session' | number): AddCall[] {
  const toMessage = roleMapper(ep);
  const turns = ep.episode.turns.slice(0, ep.visibleTurns);
  const calls: AddCall[] = [];
  let i = 0;
  while (i < turns.length) {
    const session = turns[i]!.session;
    let end = i;
    while (end < turns.length && turns[end]!.session === session) end++;
    const size = batch === 'session' ? end - i : batch;
    for (let s = i; s < end; s += size) {
      const part = turns.slice(s, Math.min(end, s + size));
      const date = part[0]!.date;
      calls.push({
        owner,
        key: `${ep.episode.id}#${calls.length}`,
        messages: part.map(toMessage),
        turnIds: part.map((t) => t.id),
        session,
        date,
        timestamp: unixSeconds(date),
      });
    }
    i = end;
  }
  return calls;
}
