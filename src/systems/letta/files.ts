/**
 * What Letta's LoCoMo script writes and what Letta's file search prints, as plain functions
 * (letta-ai/letta-leaderboard@802a7942 leaderboard/locomo/locomo_benchmark.py; letta 0.11.7
 * services/tool_executor/files_tool_executor.py).
 */
import type { AddCall, ServiceMessage } from '../memory-service/service.js';

/** A turn as the script writes it: `Speaker: text`, then ` [Image: caption]` when the turn has an image (L713-730, L746-758). */
export function turnLine(m: ServiceMessage): string {
  const caption = m.captions.length ? ` [Image: ${m.captions.join('; ')}]` : '';
  return `${m.speaker}: ${m.text}${caption}`;
}

/** One session's file: `Timestamp: <the session's date>` on line 1, then one line per turn (L616-626). */
export function sessionFile(call: AddCall): { name: string; content: string } {
  const first = call.date ? `Timestamp: ${call.date}` : `Session ${call.session}`;
  return { name: fileName(call), content: [first, ...call.messages.map(turnLine)].join('\n') };
}

/** The file's name as the script derives it: the session's date with `/` and `:` made `-`, `.txt` (L577); undated: the session's id. */
export function fileName(call: AddCall): string {
  if (!call.date) return `session_${call.session}.txt`;
  return `${call.date.replace(/\//g, '-').replace(/:/g, '-')}.txt`;
}

/** The session's date back from a file's first line (`Timestamp: ...`), else null. */
export function dateOfText(text: string): string | null {
  const m = /^\s*Timestamp: (.+)$/m.exec(text.split('\n', 1)[0] ?? '');
  return m ? m[1]!.trim() : null;
}

export interface FoundPassage {
  /** The file's name as the search printed it. */
  file: string;
  /** The passage's lines as printed (Letta prints at most 20 lines of a passage). */
  lines: string[];
}

/**
 * The passages of `semantic_search_files`'s reply, in its order: after a summary line, each passage
 * is `=== <file name> (passage #n) ===` then its lines indented by two spaces (and a
 * `... [truncated k more lines]` marker, dropped here). A reply without any header (`No semantic
 * matches found ...`) holds none.
 */
export function parseSearchReply(text: string): FoundPassage[] {
  const out: FoundPassage[] = [];
  let cur: FoundPassage | null = null;
  for (const line of text.split('\n')) {
    const h = /^=== (.*) \(passage #\d+\) ===$/.exec(line);
    if (h) {
      cur = { file: h[1]!, lines: [] };
      out.push(cur);
    } else if (cur && line.startsWith('  ') && !/^ {2}\.\.\. \[truncated \d+ more lines\]$/.test(line)) cur.lines.push(line.slice(2));
  }
  return out;
}
