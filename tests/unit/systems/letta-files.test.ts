/**
 * What rawrag's Letta plug-in writes (the leaderboard script's session files) and reads (the text
 * Letta's semantic_search_files prints, files_tool_executor.py _search_files_native in letta 0.16.8).
 */
import { describe, expect, it } from 'vitest';
import { dateOfText, fileName, parseSearchReply, sessionFile } from '../../../src/systems/letta/files.js';
import type { AddCall, ServiceMessage } from '../../../src/systems/memory-service/service.js';

const msg = (speaker: string, text: string, captions: string[] = []): ServiceMessage => ({
  role: 'user',
  content: `${speaker}: ${text}`,
  speaker,
  text,
  captions,
  turnId: `${speaker}-${text.length}`,
  indexInSession: 0,
});
const call = (date: string | null, messages: ServiceMessage[]): AddCall => ({
  owner: 'o',
  ownerSpeaker: null,
  key: 'conv#0',
  messages,
  turnIds: messages.map((m) => m.turnId),
  session: '3',
  date,
  timestamp: null,
  sessionTurns: messages.length,
  nextSessionTimestamp: null,
});

describe('letta files', () => {
  it('writes a session as the script does: Timestamp line, Speaker: text lines, [Image: caption], named after the date', () => {
    const c = call('1:56 pm on 8 May, 2023', [msg('Caroline', 'Hi Mel!'), msg('Melanie', 'Look at this', ['a photo of a dog'])]);
    expect(sessionFile(c)).toEqual({
      name: '1-56 pm on 8 May, 2023.txt',
      content: 'Timestamp: 1:56 pm on 8 May, 2023\nCaroline: Hi Mel!\nMelanie: Look at this [Image: a photo of a dog]',
    });
    expect(fileName(call('2023/05/08 13:56', []))).toBe('2023-05-08 13-56.txt');
    expect(sessionFile(call(null, [msg('A', 'x')]))).toEqual({ name: 'session_3.txt', content: 'Session 3\nA: x' });
    expect(dateOfText('Timestamp: 1:56 pm on 8 May, 2023\nCaroline: Hi')).toBe('1:56 pm on 8 May, 2023');
    expect(dateOfText('Caroline: Timestamp: no')).toBeNull();
  });

  it("reads semantic_search_files' reply: passages in order, indentation and the truncation marker dropped", () => {
    const reply = [
      "Found 2 semantic matches in 2 files for query: 'dog'",
      '=====================================================',
      '',
      '=== 1-56 pm on 8 May, 2023.txt (passage #1) ===',
      '  Timestamp: 1:56 pm on 8 May, 2023',
      '  Caroline: my dog',
      '  ... [truncated 4 more lines]',
      '',
      '=== folder/7-55 pm on 9 June, 2023.txt (passage #2) ===',
      '  Melanie:   indented text',
    ].join('\n');
    expect(parseSearchReply(reply)).toEqual([
      { file: '1-56 pm on 8 May, 2023.txt', lines: ['Timestamp: 1:56 pm on 8 May, 2023', 'Caroline: my dog'] },
      { file: 'folder/7-55 pm on 9 June, 2023.txt', lines: ['Melanie:   indented text'] },
    ]);
    expect(parseSearchReply("No semantic matches found for query: 'dog'")).toEqual([]);
  });
});
