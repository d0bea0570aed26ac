/**
 * A row's `context` (one string, up to ~3 M characters) becomes the episode's turns.
 *
 * FactConsolidation (spec §1.5): a header line, then one `"{serial}. {fact}"` line per fact. Each
 * fact is one turn, its text keeping its serial, so the reader can see that a larger number is the
 * newer fact; with `turn` chunking one fact = one chunk.
 *
 * Every other source: a turn is a run of consecutive lines of one unit — a paragraph (up to a
 * blank line, which is folded into it), a RULER `Document N:` passage, a LongMemEval `Chat Time:`
 * session — capped at about MAX_TURN_CHARS characters, so the serialised history (turn texts
 * joined by newlines) reproduces the context exactly and the 256/224 windows run over the context
 * text itself, while a book is thousands of turns rather than one per line. Lines are found with
 * indexOf (no split array of the whole context). Turn ids are `L<first line number>`; sessions
 * name the unit; LongMemEval turns carry their session's chat time as date.
 */
import type { LoadWarning, Turn } from '../../core/schema.js';
import { templateFamily } from './sources.js';

export interface ContextTurns {
  turns: Turn[];
  /** Lines before the first fact (FactConsolidation's `Here is a list of facts:`), kept out of the chunks. */
  header: string | null;
  /** Facts found (FactConsolidation only). */
  facts: number | null;
}

/** Lines of `text` without their `\n` (nor a `\r` before it: CRLF reads as LF); a final newline starts no empty line. */
export function* lines(text: string): Generator<string> {
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    yield text.charCodeAt(end - 1) === 13 && end > start ? text.slice(start, end - 1) : text.slice(start, end);
    if (nl === -1) return;
    start = nl + 1;
  }
}

export function isFactSource(source: string): boolean {
  return templateFamily(source) === 'factconsolidation';
}

export function contextToTurns(source: string, context: string, place: string, warnings: LoadWarning[]): ContextTurns {
  return isFactSource(source) ? factTurns(context, place, warnings) : lineTurns(source, context);
}

const FACT_LINE = /^(\d+)\.\s/;

function factTurns(context: string, place: string, warnings: LoadWarning[]): ContextTurns {
  const turns: Turn[] = [];
  const header: string[] = [];
  const gaps: string[] = [];
  const continued: string[] = [];
  for (const line of lines(context)) {
    const m = FACT_LINE.exec(line);
    if (m) {
      const serial = Number(m[1]);
      if (serial !== turns.length && gaps.length < 5) gaps.push(`fact ${serial} at position ${turns.length}`);
      turns.push({ id: `fact-${serial}`, session: 'facts', date: null, speaker: '', text: line, captions: [] });
    } else if (!line.trim()) {
      continue;
    } else if (turns.length === 0) {
      header.push(line);
    } else {
      // A line that is not a numbered fact continues the fact before it (none in the release).
      const last = turns[turns.length - 1]!;
      last.text += '\n' + line;
      continued.push(`${last.id}: '${line.slice(0, 60)}'`);
    }
  }
  if (continued.length) {
    warnings.push({ place, message: `${continued.length} line(s) are not numbered facts; each kept as part of the fact before it (first: ${continued[0]})` });
  }
  if (gaps.length) warnings.push({ place, message: `fact serials are not contiguous from 0 (${gaps.join('; ')})` });
  if (turns.length === 0) warnings.push({ place, message: 'no numbered fact found in the FactConsolidation context' });
  const ids = new Set<string>();
  for (let i = 0; i < turns.length; i++) {
    const t = turns[i]!;
    if (ids.has(t.id)) {
      t.id = `${t.id}@${i}`;
      warnings.push({ place, message: `fact serial repeated; renamed ${t.id}` });
    }
    ids.add(t.id);
  }
  return { turns, header: header.length ? header.join('\n') : null, facts: turns.length };
}

const LME_SESSION = /^Chat Time:\s*(.*)$/;
const RULER_DOCUMENT = /^Document (\d+):/;
/** A turn grows line by line up to about this size, so a book is thousands of turns, not one per line. */
export const MAX_TURN_CHARS = 2000;

function lineTurns(source: string, context: string): ContextTurns {
  const family = templateFamily(source);
  const turns: Turn[] = [];
  let session = 's0';
  let blocks = 0;
  let date: string | null = null;
  let cur: Turn | null = null;
  // A blank line closes the current turn (it is folded into it, so the text is reproduced).
  let closed = false;
  let lineNo = 0;
  for (const line of lines(context)) {
    lineNo++;
    if (!line.trim()) {
      if (cur) cur.text += '\n' + line;
      closed = true;
      continue;
    }
    let newSession = false;
    if (family === 'longmemeval') {
      const m = LME_SESSION.exec(line);
      if (m) {
        session = `chat-${++blocks}`;
        date = m[1]!.trim() || null;
        newSession = true;
      }
    } else if (family === 'ruler_qa') {
      const m = RULER_DOCUMENT.exec(line);
      if (m) {
        session = `doc-${m[1]}`;
        newSession = true;
      }
    } else if (closed || cur === null) {
      session = `block-${blocks++}`;
      newSession = true;
    }
    if (cur === null || closed || newSession || cur.text.length + line.length + 1 > MAX_TURN_CHARS) {
      cur = { id: `L${lineNo}`, session, date, speaker: '', text: line, captions: [] };
      turns.push(cur);
    } else {
      cur.text += '\n' + line;
    }
    closed = false;
  }
  return { turns, header: null, facts: null };
}
