/**
 * The tokenizer (src/retrieval/tokenizer.ts, bpe.ts): the ids and text of js-tiktoken's own; special-token
 * text is ordinary text, and very long pre-tokens take an exact heap merge.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { countTokens, getTokenizer, LONG_PRETOKEN } from '../../src/retrieval/tokenizer.js';
import { ingest } from '../../src/retrieval/chunk.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { episodeOf } from '../helpers/episodes.js';
import { ROOT } from '../helpers/cli.js';

const reference = new Tiktoken(cl100k);
const ordinary = (text: string): number[] => reference.encode(text, [], []);
const enc = getTokenizer('cl100k_base');

describe('special-token text', () => {
  it('encodes <|endoftext|> and friends as plain text, never as control tokens', () => {
    const text = 'He wrote <|endoftext|> then <|fim_prefix|>x<|endofprompt|> in chat.';
    const ids = enc.encode(text);
    expect(ids).toEqual(ordinary(text));
    expect(ids).not.toContain(100257);
    expect(enc.decode(ids)).toBe(text);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('ingests a turn holding <|endoftext|> (the LongMemEval-S gpt4_78cf46a3 haystack)', () => {
    const ep = ingest(episodeOf(['Sure! <|endoftext|> Here is the plan.', 'ok']), 2, DEFAULT_POLICY, {
      tokenizer: 'cl100k_base',
      size: 256,
      stride: 224,
    });
    expect(ep.chunks).toHaveLength(1);
    expect(ep.chunks[0]!.text).toContain('Sure! <|endoftext|> Here is the plan.');
  });
});

describe('any text', () => {
  it('gives js-tiktoken ids on odd characters and random code points (every character starts a pre-token)', () => {
    const odd = 'a\u0000b\u0007\t\v\f\r\n\r\r\n \u00a0\u2028\u200b\ufeffe\u0301 \ud800 x\udc00 123456 ٣٤٥ ½ ² 日本 😀\u200d👍 ';
    expect(enc.encode(odd)).toEqual(ordinary(odd));
    const rng = seedrandom('any-text');
    for (let i = 0; i < 200; i++) {
      const text = Array.from({ length: 1 + Math.floor(rng() * 40) }, () => {
        const r = rng();
        // Mostly ASCII and Latin-1, then any BMP unit (lone surrogates included), then astral.
        const cp =
          r < 0.5
            ? Math.floor(rng() * 0x80)
            : r < 0.7
              ? Math.floor(rng() * 0x100)
              : r < 0.95
                ? Math.floor(rng() * 0x10000)
                : 0x10000 + Math.floor(rng() * 0x10000);
        return cp >= 0xd800 && cp < 0xe000 ? String.fromCharCode(cp) : String.fromCodePoint(cp);
      }).join('');
      expect(enc.encode(text)).toEqual(ordinary(text));
    }
  });
});

describe('decoding', () => {
  it('gives js-tiktoken text for any id range, also one that cuts a character', () => {
    const text = 'Café ☕ 😀 naïve — “quoted” 日本語のテキスト\n'.repeat(20) + 'plain words <|endoftext|> end';
    const ids = enc.encode(text);
    for (let start = 0; start < ids.length; start += 7) {
      const part = ids.slice(start, start + 13);
      expect(enc.decode(part)).toBe(reference.decode(part));
    }
    expect(enc.decode([100257])).toBe(reference.decode([100257]));
  });
});

describe('long pre-tokens', () => {
  it('gives js-tiktoken ids exactly on the bundled LoCoMo text (one string per conversation)', () => {
    const data = JSON.parse(readFileSync(join(ROOT, 'datasets/locomo/locomo10.json'), 'utf8')) as Array<{
      conversation: Record<string, unknown>;
    }>;
    for (const s of data.slice(0, 3)) {
      const text = JSON.stringify(s.conversation);
      expect(text.length).toBeGreaterThan(LONG_PRETOKEN);
      expect(enc.encode(text)).toEqual(ordinary(text));
    }
  });

  it('gives js-tiktoken ids exactly on ordinary text with a long run inside (LongMemEval-S turns)', () => {
    const lme = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/longmemeval/longmemeval_s_cleaned.sample.json'), 'utf8')) as Array<{
      haystack_sessions: Array<Array<{ content: string }>>;
    }>;
    const turns = lme[0]!.haystack_sessions.flat().map((t) => t.content);
    // Every turn alone, and all of them joined around a 1,500-character run (the heap path, then the library's).
    for (const t of turns.slice(0, 200)) expect(enc.encode(t)).toEqual(ordinary(t));
    const text = turns.slice(0, 100).join('\n') + ' ' + '-'.repeat(1500) + ' ' + turns.slice(100, 200).join('\n');
    expect(enc.encode(text)).toEqual(ordinary(text));
  }, 60_000);

  it.each([
    ['one letter', 'a'.repeat(1200)],
    ['two letters', 'ab'.repeat(600)],
    ['words around a run', 'hello ' + 'x'.repeat(1000) + ' world  \n\n' + 'é'.repeat(400)],
    ['punctuation', '.'.repeat(1200) + 'abc'],
    ['spaces', ' '.repeat(1200) + 'q'],
    ['emoji', '😀'.repeat(300)],
    ['special text then a run', 'a<|endoftext|>b'.repeat(50) + 'z'.repeat(700)],
  ])('gives js-tiktoken ids exactly on a long %s pre-token', (_, text) => {
    // Past LONG_PRETOKEN bytes (the heap merge), and short enough for the reference's quadratic merge.
    expect(Buffer.byteLength(text)).toBeGreaterThan(2 * LONG_PRETOKEN);
    expect(enc.encode(text)).toEqual(ordinary(text));
  });

  it('encodes 1 MB of one character and decodes it back', () => {
    const text = 'a'.repeat(1_000_000);
    const ids = enc.encode(text);
    expect(enc.decode(ids)).toBe(text);
  }, 60_000);
});
