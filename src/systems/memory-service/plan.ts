/**
 * How an episode's visible history becomes owners and add calls. Owners: one per (episode,
 * visibility horizon), or, per speaker, one store per speaker of a two-person conversation with
 * every turn added to both under mirrored roles (Mem0's and MemOS's own LoCoMo evaluations).
 * Calls: sessions in order, each cut into calls of `batch` turns, every call carrying its turns'
 * ids and date and each message its raw fields (speaker, text, captions, position in the session),
 * so an adapter can format it as its vendor does. Deterministic, so a resumed run plans the very
 * same calls and recognises those already acknowledged by their keys.
 */
import { basename, resolve } from 'node:path';
import type { IngestedEpisode } from '../../core/ingested-episode.js';
import { sha256Hex } from '../../util/fsx.js';
import type { Turn } from '../../core/schema.js';
import type { CaptionPolicy } from '../../core/system.js';
import { parseDay } from '../../retrieval/local/dates.js';
import type { AddCall, ServiceMessage } from './service.js';
import type { ServiceSettings } from './config.js';

/**
 * A run directory's tag in its owner ids: its folder name, and a hash of its absolute path, so two
 * run directories of the same name in different folders (results/a/mem0, results/b/mem0) never
 * add to the same owners on a service.
 */
export function runTag(runDir: string): string {
  const dir = resolve(runDir);
  return `${basename(dir)}-${sha256Hex(dir).slice(0, 8)}`;
}

/** The episode's owner id on the service: unique per run directory, episode and horizon, so runs never share memories. */
export function ownerOf(runId: string, ep: Pick<IngestedEpisode, 'episode' | 'visibleTurns'>): string {
  const horizon = ep.visibleTurns < ep.episode.turns.length ? `@${ep.visibleTurns}` : '';
  return `rawrag-${runId}-${ep.episode.id}${horizon}`;
}

/** A speaker's name as an id part: lower case, letters and digits. */
function slug(speaker: string): string {
  return (
    speaker
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'speaker'
  );
}

export interface OwnerPlan {
  owner: string;
  /** Whose store it is (per-speaker owners), else null. */
  speaker: string | null;
  calls: AddCall[];
}

export interface EpisodePlan {
  owners: OwnerPlan[];
  /** Why the scheme asked for could not be followed for this episode (e.g. not a two-person conversation). */
  note: string | null;
}

const isChatRole = (s: string) => s.toLowerCase() === 'user' || s.toLowerCase() === 'assistant';

/** The speakers the benchmark lists for the episode (LoCoMo: meta.speakers, speaker_a first); empty when it lists none. */
function listedSpeakers(ep: IngestedEpisode): string[] {
  return Array.isArray(ep.episode.meta?.speakers)
    ? (ep.episode.meta!.speakers as unknown[]).filter((s): s is string => typeof s === 'string')
    : [];
}

/** The two named speakers of a conversation (LoCoMo lists them in meta.speakers), or null. */
function twoSpeakers(ep: IngestedEpisode): [string, string] | null {
  const listed = listedSpeakers(ep);
  const seen = listed.length ? listed : [...new Set(ep.episode.turns.slice(0, ep.visibleTurns).map((t) => t.speaker))];
  if (seen.length !== 2 || seen.some(isChatRole)) return null;
  return [seen[0]!, seen[1]!];
}

/** `Name: text [shared an image: caption]` for named speakers; a user/assistant history keeps its text. */
function defaultContent(t: Turn): string {
  const text = t.text + t.captions.map((c) => ` [shared an image: ${c}]`).join('');
  return isChatRole(t.speaker) ? text : `${t.speaker}: ${text}`;
}

/** Roles from `self`'s point of view: its own turns are `user`; a user/assistant history keeps its roles. */
function roleOf(t: Turn, self: string): 'user' | 'assistant' {
  if (isChatRole(t.speaker)) return t.speaker.toLowerCase() as 'user' | 'assistant';
  return t.speaker === self ? 'user' : 'assistant';
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

/**
 * Unix seconds as Python's `datetime.isoformat()` writes an aware UTC datetime
 * (`2023-05-08T13:56:00+00:00`): how vendors' evaluation scripts write a session's time.
 */
export function isoUtc(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** The visible history as sessions: consecutive turns of one session id, in order. */
function sessionsOf(turns: Turn[]): Turn[][] {
  const out: Turn[][] = [];
  for (const t of turns) {
    const last = out[out.length - 1];
    if (last && last[0]!.session === t.session) last.push(t);
    else out.push([t]);
  }
  return out;
}

/** One owner's calls: each session cut into calls of `batch` turns, messages from `self`'s point of view. */
function callsOf(
  ep: IngestedEpisode,
  owner: string,
  self: { speaker: string | null; first: string; keyPart: string },
  batch: ServiceSettings['batch'],
): AddCall[] {
  const sessions = sessionsOf(ep.episode.turns.slice(0, ep.visibleTurns));
  const speakers = listedSpeakers(ep);
  const stamps = sessions.map((s) => unixSeconds(s[0]!.date));
  if (batch === 'episode') return sessions.length ? [wholeCall(ep, owner, self, sessions, stamps, speakers)] : [];
  const calls: AddCall[] = [];
  sessions.forEach((turns, si) => {
    const size = batch === 'session' ? turns.length : batch;
    for (let s = 0; s < turns.length; s += size) {
      const part = turns.slice(s, s + size);
      const date = part[0]!.date;
      const messages: ServiceMessage[] = part.map((t, i) => messageOf(t, self.speaker ?? self.first, s + i));
      calls.push({
        owner,
        ownerSpeaker: self.speaker,
        key: `${ep.episode.id}${self.keyPart}#${calls.length}`,
        messages,
        turnIds: part.map((t) => t.id),
        session: turns[0]!.session,
        date,
        timestamp: unixSeconds(date),
        sessionTurns: turns.length,
        nextSessionTimestamp: stamps[si + 1] ?? null,
        speakers,
      });
    }
  });
  return calls;
}

/** One turn as a message from `self`'s point of view, with its raw fields. */
function messageOf(t: Turn, self: string, indexInSession: number): ServiceMessage {
  return {
    role: roleOf(t, self),
    content: defaultContent(t),
    speaker: t.speaker,
    text: t.text,
    captions: t.captions,
    turnId: t.id,
    indexInSession,
    session: t.session,
    date: t.date,
  };
}

/**
 * `batch: 'episode'`: the whole visible history in one call (memU's evaluators memorize a whole
 * conversation at once). The call's session and date are the first session's; each message keeps
 * its own session and date, so an adapter can date every message as its vendor does.
 */
function wholeCall(
  ep: IngestedEpisode,
  owner: string,
  self: { speaker: string | null; first: string; keyPart: string },
  sessions: Turn[][],
  stamps: Array<number | null>,
  speakers: string[],
): AddCall {
  const first = sessions[0]!;
  const messages = sessions.flatMap((turns) => turns.map((t, i) => messageOf(t, self.speaker ?? self.first, i)));
  return {
    owner,
    ownerSpeaker: self.speaker,
    key: `${ep.episode.id}${self.keyPart}#0`,
    messages,
    turnIds: messages.map((m) => m.turnId),
    session: first[0]!.session,
    date: first[0]!.date,
    timestamp: stamps[0] ?? null,
    sessionTurns: first.length,
    nextSessionTimestamp: stamps[1] ?? null,
    speakers,
  };
}

/** The episode as a system with this caption policy is fed it: `with-image` drops captions the data gives without their image. */
export function withCaptions(ep: IngestedEpisode, captions: CaptionPolicy): IngestedEpisode {
  if (captions === 'all' || !ep.episode.turns.some((t) => t.captionWithoutImage)) return ep;
  const turns = ep.episode.turns.map((t) => (t.captionWithoutImage ? { ...t, captions: [] } : t));
  return { ...ep, episode: { ...ep.episode, turns } };
}

/** The owners of an episode under `scheme`, each with its calls (captions as `captions` says: see withCaptions). */
export function planEpisode(
  original: IngestedEpisode,
  runId: string,
  settings: Pick<ServiceSettings, 'owners' | 'batch'>,
  captions: CaptionPolicy = 'all',
): EpisodePlan {
  const ep = withCaptions(original, captions);
  const base = ownerOf(runId, ep);
  const first = ep.episode.turns[0]?.speaker ?? 'user';
  if (settings.owners === 'per-speaker') {
    const pair = twoSpeakers(ep);
    if (pair)
      return {
        owners: pair.map((speaker) => {
          const owner = `${base}~${slug(speaker)}`;
          return { owner, speaker, calls: callsOf(ep, owner, { speaker, first, keyPart: `~${slug(speaker)}` }, settings.batch) };
        }),
        note: null,
      };
    return {
      owners: [{ owner: base, speaker: null, calls: callsOf(ep, base, { speaker: null, first, keyPart: '' }, settings.batch) }],
      note: 'per-speaker owners need a conversation between two named people; other histories (user / assistant, several speakers) get one owner per episode',
    };
  }
  return {
    owners: [{ owner: base, speaker: null, calls: callsOf(ep, base, { speaker: null, first, keyPart: '' }, settings.batch) }],
    note: null,
  };
}

/**
 * Per-message Unix timestamps for one call: the session's time plus `stepSeconds` per position in
 * the session, squeezed (when `fitToGap` is set) so the session's last message stays within that
 * share of the gap to the next session (EverMemOS's loader: 30 s apart, within 90 % of the gap).
 * Null when the session has no readable date.
 */
export function spacedTimestamps(call: AddCall, stepSeconds: number, fitToGap?: number): Array<number | null> {
  if (call.timestamp === null) return call.messages.map(() => null);
  let step = stepSeconds;
  if (fitToGap !== undefined && call.nextSessionTimestamp !== null && call.sessionTurns > 1) {
    const room = (call.nextSessionTimestamp - call.timestamp) * fitToGap;
    if (room > 0 && step * (call.sessionTurns - 1) > room) step = room / (call.sessionTurns - 1);
  }
  return call.messages.map((m) => call.timestamp! + m.indexInSession * step);
}
