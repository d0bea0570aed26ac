import { describe, expect, it } from 'vitest';
import { parseDay, questionSpan, saidAbout } from '../../src/retrieval/local/dates.js';
import { DEFAULT_SOFT_RERANK, SoftReranker, type SoftRerankParams } from '../../src/retrieval/local/soft-rerank.js';
import { ingest } from '../../src/retrieval/chunk.js';
import type { Episode, Turn } from '../../src/core/schema.js';

const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / 86_400_000;

describe('date reading', () => {
  it('reads the written forms the benchmarks use', () => {
    expect(parseDay('1:56 pm on 8 May, 2023')).toBe(day(2023, 5, 8));
    expect(parseDay('2023/05/20 (Sat) 02:21')).toBe(day(2023, 5, 20));
    expect(parseDay('2024-03-15T10:00:00Z')).toBe(day(2024, 3, 15));
    expect(parseDay('March-15-2024')).toBe(day(2024, 3, 15));
    expect(parseDay('on December 4, 2023?')).toBe(day(2023, 12, 4));
    expect(parseDay('before 4th October, 2023')).toBe(day(2023, 10, 4));
    expect(parseDay('31 February 2023')).toBeNull();
    expect(parseDay('unknown')).toBeNull();
    expect(parseDay(null)).toBeNull();
  });

  it('turns a question into the day or month it names', () => {
    expect(questionSpan('What was Sam doing on December 4, 2023?')).toEqual({ first: day(2023, 12, 4), last: day(2023, 12, 4) });
    expect(questionSpan('Which places did Evan visit in July 2023?')).toEqual({ first: day(2023, 7, 1), last: day(2023, 7, 31) });
    expect(questionSpan('How many pets as of December 2023?')).toEqual({ first: day(2023, 12, 1), last: day(2023, 12, 31) });
    expect(questionSpan('When did Melanie go camping?')).toBeNull();
  });

  it('a turn can report the span up to a week later', () => {
    const span = { first: day(2023, 12, 4), last: day(2023, 12, 4) };
    expect(saidAbout(day(2023, 12, 5), span, 7)).toBe(true);
    expect(saidAbout(day(2023, 12, 11), span, 7)).toBe(true);
    expect(saidAbout(day(2023, 12, 12), span, 7)).toBe(false);
    expect(saidAbout(day(2023, 12, 3), span, 7)).toBe(false);
    expect(saidAbout(null, span, 7)).toBe(false);
  });
});

describe('speaker and date awareness in the soft reranker (exact matches only, no vectors)', () => {
  const turn = (id: string, session: string, date: string, speaker: string, text: string): Turn => ({
    id,
    session,
    date,
    speaker,
    text,
    captions: [],
  });
  const plain = { chunking: 'turn' as const, serialisation: 'message' as const };
  const cfg = { tokenizer: 'cl100k_base', size: 256, stride: 224 };
  const rank = async (ep: Episode, query: string) => {
    const ing = ingest(ep, ep.turns.length, plain, cfg);
    const r = new SoftReranker(() => null);
    const all = ing.chunks.map((c) => ({ chunk: c.index, score: 0 }));
    return (await r.rerank(query, all, ing, all.length)).map((h) => ep.turns[h.chunk]!.id);
  };

  it('prefers the turn said around the date the question names', async () => {
    const ep: Episode = {
      id: 'e',
      turns: [
        turn('a', 's1', '1:00 pm on 2 March, 2023', 'Sam', 'I went to a cooking class.'),
        turn('b', 's2', '1:00 pm on 5 December, 2023', 'Sam', 'I went to a cooking class.'),
        turn('c', 's3', '1:00 pm on 9 June, 2023', 'Sam', 'I went to a cooking class.'),
      ],
    };
    expect((await rank(ep, 'What was Sam doing on December 4, 2023?'))[0]).toBe('b');
    // Without a date in the question the tie keeps chunk order.
    expect(await rank(ep, 'What class did Sam go to?')).toEqual(['a', 'b', 'c']);
  });

  it("a question about one speaker takes its turn signal from that speaker's turns", async () => {
    const ep: Episode = {
      id: 'e',
      turns: [
        turn('a', 's1', null as unknown as string, 'Maria', 'My brother joined a gym downtown.'),
        turn('b', 's1', null as unknown as string, 'John', 'I joined a gym downtown.'),
      ],
    };
    expect((await rank(ep, 'Which gym did John join?'))[0]).toBe('b');
    expect((await rank(ep, 'Which gym did Maria join?'))[0]).toBe('a');
  });

  it("in a chat with an assistant, the best-turn signal reads the user's turns", async () => {
    const ep: Episode = {
      id: 'e',
      turns: [
        turn('u', 's1', '2023/05/20 (Sat) 02:21', 'user', 'We adopted a rescue dog last week.'),
        turn(
          'a',
          's1',
          '2023/05/20 (Sat) 02:21',
          'assistant',
          'Congratulations on the rescue dog! A rescue dog you adopted needs time: adopted dogs settle in a few weeks.',
        ),
      ],
    };
    const ing = ingest(ep, ep.turns.length, plain, cfg);
    const all = ing.chunks.map((c) => ({ chunk: c.index, score: 0 }));
    const order = async (params: SoftRerankParams) =>
      (await new SoftReranker(() => null, params).rerank('When did I adopt the rescue dog?', all, ing, 2)).map(
        (h) => ep.turns[h.chunk]!.id,
      );
    // The assistant's reply repeats the question's words more often (BM25 prefers it) ...
    expect(await order({ ...DEFAULT_SOFT_RERANK, assistantTurnWeight: 1 })).toEqual(['a', 'u']);
    // ... but the fact is the user's: by default an assistant's turn does not count as the best turn.
    expect(await order(DEFAULT_SOFT_RERANK)).toEqual(['u', 'a']);
  });
});
