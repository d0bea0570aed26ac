/**
 * MemMachine's wire formats as its own LoCoMo evaluation writes and reads them (MemMachine/MemMachine
 * @18f12112): the project id an owner becomes (spec.py's SafeId), the per-message body of
 * `evaluation/episodic_memory/restapiv2_locomo_ingest.py` L56-88 (producer = speaker, timestamp =
 * session time + i seconds, content = text + the caption, metadata as the script sets it plus
 * rawrag's own, every value a string: MemoryMessage.metadata is dict[str, str]), and an episode of
 * a search or a listing read back as `evaluation/utils/memmachine_helper_restapiv2.py` L869-954 does
 * (source_timestamp and source_speaker, else the episode's created_at and producer_id).
 */
import { sha256Hex } from '../../util/fsx.js';
import { isoUtc, spacedTimestamps } from '../memory-service/plan.js';
import { readMetadata, type AddCall, type ServiceMemory, type ServiceMessage } from '../memory-service/service.js';

/** spec.py `_is_valid_name`: an org or project id is letters, digits, `_`, `:` and `-` only. */
const SAFE_ID = /^[\p{L}\p{N}_:-]+$/u;

/**
 * The project an owner is: its id where MemMachine accepts it as is, else its other characters
 * (`~` of a speaker's store, `@` of a visibility horizon, a `.` of the run folder) as `_` and a
 * hash of the owner appended, so two owners never share a project.
 */
export function projectIdOf(owner: string): string {
  if (SAFE_ID.test(owner)) return owner;
  return `${owner.replace(/[^\p{L}\p{N}_:-]/gu, '_')}_${sha256Hex(owner).slice(0, 8)}`;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * The helper's `locomo_timestamp_format` (memmachine_helper_base.py L230-243): an ISO timestamp as
 * "Monday, May 08, 2023 at 01:56 PM", in the wall clock of its own offset; anything else as given.
 */
export function vendorDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})/.exec(iso);
  if (!m) return iso;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (Number.isNaN(day.getTime()) || mo < 1 || mo > 12) return iso;
  const hour12 = h % 12 === 0 ? 12 : h % 12;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${WEEKDAYS[day.getUTCDay()]}, ${MONTHS[mo - 1]} ${two(d)}, ${y} at ${two(hour12)}:${two(mi)} ${h < 12 ? 'AM' : 'PM'}`;
}

/** The script's content: the text, then ` [Attached <blip_caption>]` (rawrag's turns keep the caption, not the image's search query). */
export function contentOf(m: ServiceMessage): string {
  return m.text + m.captions.map((c) => ` [Attached ${c}]`).join('');
}

/** One MemMachine MemoryMessage per turn of the call. */
export function messagesOf(call: AddCall): Array<Record<string, unknown>> {
  const stamps = spacedTimestamps(call, 1);
  return call.messages.map((m, i) => {
    const ts = stamps[i] ?? null;
    // The session's wall clock with a +00:00 offset (the script's astimezone() gives the machine's own offset).
    const iso = ts === null ? null : isoUtc(ts);
    const metadata: Record<string, string> = {
      locomo_session_id: call.session,
      ...(iso ? { source_timestamp: iso } : {}),
      source_speaker: m.speaker,
      rawrag_add: call.key,
      turn_ids: JSON.stringify([m.turnId]),
      session: call.session,
      ...(call.date ? { date: call.date } : {}),
    };
    // An unreadable date: no timestamp (the server stamps its own now), where the script would send its own now().
    return { producer: m.speaker, ...(iso ? { timestamp: iso } : {}), content: contentOf(m), metadata };
  });
}

/** An episode (search result or listing) as a memory, dated and attributed as the vendor's helper shows it. */
export function episodeMemory(e: unknown): ServiceMemory | null {
  const o = (e ?? {}) as Record<string, unknown>;
  if (typeof o.uid !== 'string' || typeof o.content !== 'string') return null;
  const meta = (o.metadata && typeof o.metadata === 'object' ? o.metadata : {}) as Record<string, unknown>;
  const stamp = typeof meta.source_timestamp === 'string' ? meta.source_timestamp : typeof o.created_at === 'string' ? o.created_at : null;
  const speaker = typeof meta.source_speaker === 'string' ? meta.source_speaker : typeof o.producer_id === 'string' ? o.producer_id : null;
  const read = readMetadata(meta);
  return {
    id: o.uid,
    memory: o.content,
    score: typeof o.score === 'number' ? o.score : null,
    date: stamp === null ? null : vendorDate(stamp),
    turnIds: read.turnIds,
    addKey: read.addKey,
    speaker,
  };
}
