/**
 * One LongMemEval instance -> one episode (its own haystack) + one question.
 *
 * - Sessions are put in time order by a stable sort on the full date string, as the official
 *   reader does: S is sorted by day only and the oracle not at all (spec §1.3).
 * - Turn ids are `<session key>:<n>`, n 1-based over all turns of the session, the numbering of
 *   the official turn-level corpus (`f"{sess_id}_{i_turn+1}"`). The session key is the session id,
 *   except that a repeated id in one haystack (S has 13) gets `~2`, `~3`, ... on its later
 *   occurrences, since turns must be keyed by position, not by id.
 * - Gold follows src/retrieval/run_retrieval.py (spec §2.3): a gold session has `answer` in its id
 *   and at least one user turn with has_answer; gold turns are those user turns.
 */
import type { Episode, LoadWarning, Question, Turn } from '../../core/schema.js';
import { InputError, formatPath } from '../../util/errors.js';
import { DATE_PATTERN, RawInstance, isAbstention, type RawInstanceT } from './format.js';

export interface LongMemEvalMeta extends Record<string, unknown> {
  abstention: boolean;
  /** `answer_session_ids` as given. */
  answerSessionIds: string[];
  /** Official session-level gold (session ids). */
  goldSessions: string[];
  /** Official turn-level gold: user turns with has_answer in `answer` sessions (turn ids). */
  goldTurns: string[];
  /** Why the official retrieval averages leave this question out; null = it is averaged. */
  retrievalExcluded: string | null;
}

export interface Converted {
  episode: Episode;
  question: Question;
  warnings: LoadWarning[];
}

/** Validates one parsed array element and maps it. */
export function convertInstance(value: unknown, index: number, file: string): Converted {
  const parsed = RawInstance.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(`not a LongMemEval instance: ${issue.message}`, { file, place: `[${index}].${formatPath(issue.path)}` });
  }
  return mapInstance(parsed.data, index, file);
}

function mapInstance(raw: RawInstanceT, index: number, file: string): Converted {
  const qid = raw.question_id;
  const place = `[${index}] (${qid})`;
  const warnings: LoadWarning[] = [];
  const nSessions = raw.haystack_session_ids.length;
  if (raw.haystack_dates.length !== nSessions || raw.haystack_sessions.length !== nSessions) {
    throw new InputError(
      `haystack_session_ids (${nSessions}), haystack_dates (${raw.haystack_dates.length}) and haystack_sessions (${raw.haystack_sessions.length}) differ in length`,
      { file, place },
    );
  }

  // Session keys in haystack order: later repeats of an id are numbered.
  const seen = new Map<string, number>();
  const keys = raw.haystack_session_ids.map((id) => {
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    return n === 1 ? id : `${id}~${n}`;
  });
  const duplicateSessions: Record<string, string> = {};
  keys.forEach((k, i) => {
    if (k !== raw.haystack_session_ids[i]) duplicateSessions[k] = raw.haystack_session_ids[i]!;
  });
  const repeated = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  if (repeated.length) {
    warnings.push({ place, message: `session id repeated in the haystack (later copies renamed <id>~2, ...): ${repeated.join(', ')}` });
  }

  const badDates = raw.haystack_dates.filter((d) => !DATE_PATTERN.test(d));
  if (badDates.length) warnings.push({ place, message: `${badDates.length} session date(s) not of the form YYYY/MM/DD (Day) HH:MM, kept as given (e.g. '${badDates[0]}')` });
  if (!DATE_PATTERN.test(raw.question_date)) warnings.push({ place, message: `question_date '${raw.question_date}' not of the form YYYY/MM/DD (Day) HH:MM, kept as given` });
  // A session later on the question's own day is in the data (76 in S); a later day is not.
  const questionDay = raw.question_date.slice(0, 10);
  const laterDays = raw.haystack_dates.filter((d) => d.slice(0, 10) > questionDay);
  if (laterDays.length) warnings.push({ place, message: `${laterDays.length} session(s) dated on a day after the question (${questionDay}), e.g. ${laterDays[0]}` });

  const order = keys.map((_, i) => i).sort((a, b) => compareStrings(raw.haystack_dates[a]!, raw.haystack_dates[b]!) || a - b);
  const turns: Turn[] = [];
  const goldTurns: string[] = [];
  const goldSessions: string[] = [];
  const hasAnswerTurns: string[] = [];
  for (const s of order) {
    const key = keys[s]!;
    const sessionId = raw.haystack_session_ids[s]!;
    const date = raw.haystack_dates[s]!;
    const isAnswerSession = sessionId.includes('answer');
    let userGold = false;
    raw.haystack_sessions[s]!.forEach((t, ti) => {
      const id = `${key}:${ti + 1}`;
      turns.push({ id, session: key, date, speaker: t.role, text: t.content, captions: [] });
      if (t.has_answer !== true) return;
      hasAnswerTurns.push(id);
      if (isAnswerSession && t.role === 'user') {
        goldTurns.push(id);
        userGold = true;
      }
    });
    if (userGold && !goldSessions.includes(sessionId)) goldSessions.push(sessionId);
  }

  const haystackIds = new Set(raw.haystack_session_ids);
  const missing = raw.answer_session_ids.filter((id) => !haystackIds.has(id));
  if (missing.length) warnings.push({ place, message: `answer_session_ids not in the haystack: ${missing.join(', ')}` });

  const abstention = isAbstention(qid);
  if (!abstention && hasAnswerTurns.length === 0) {
    warnings.push({ place, message: 'no turn has has_answer: true, so the question has no gold evidence turns (coverage is not computed for it)' });
  }
  const retrievalExcluded = abstention ? 'abstention' : goldTurns.length === 0 ? 'no user-side has_answer turn' : null;
  const meta: LongMemEvalMeta = {
    abstention,
    answerSessionIds: raw.answer_session_ids,
    goldSessions,
    goldTurns,
    retrievalExcluded,
  };
  const gold = String(raw.answer);
  const question: Question = {
    id: qid,
    episode: qid,
    type: raw.question_type,
    typeId: null,
    text: raw.question,
    gold,
    acceptable: [gold],
    questionDate: raw.question_date,
    // Coverage asks whether the evidence shown holds what answers the question: every has_answer
    // turn, assistant ones included (single-session-assistant). Abstention questions have nothing
    // that answers them, so they carry no gold evidence (left out of coverage rates).
    evidence: abstention ? [] : hasAnswerTurns,
    options: null,
    visibleTurns: null,
    meta,
  };
  const episodeMeta: Record<string, unknown> = { sessions: nSessions };
  if (Object.keys(duplicateSessions).length) episodeMeta.duplicateSessions = duplicateSessions;
  return { episode: { id: qid, turns, meta: episodeMeta }, question, warnings };
}

/** Plain code-unit order (Python's str order for these ASCII dates), independent of locale. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The official session id of a session key (undoes the `~n` numbering of repeated ids). */
export function sessionIdOf(episode: Episode, sessionKey: string): string {
  const dup = episode.meta?.duplicateSessions as Record<string, string> | undefined;
  return dup?.[sessionKey] ?? sessionKey;
}
