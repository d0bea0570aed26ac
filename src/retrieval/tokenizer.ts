/**
 * The GPT-4 tokenizer (cl100k_base), offline: js-tiktoken ships the ranks in the package; the
 * byte-pair encoding itself is ours (bpe.ts), with the same ids as js-tiktoken's and much cheaper
 * to load and run. Loaded once per process; only the encoding we use is imported.
 *
 * Two things differ from calling js-tiktoken's `encode` with its defaults, both because data is data:
 * - special-token text (`<|endoftext|>` in a real LongMemEval-S haystack) is encoded as the
 *   ordinary text it is, never refused (js-tiktoken throws by default) nor turned into a control token;
 * - a very long pre-token (1 MB of one character, a base64 blob) goes through an exact heap-based
 *   byte-pair merge instead of js-tiktoken's quadratic one, which takes minutes at 20k characters.
 */
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { InputError } from '../util/errors.js';
import { BytePairEncoder } from './bpe.js';

export { LONG_PRETOKEN } from './bpe.js';

export interface TextTokenizer {
  /** Token ids of `text`, special-token strings included as plain text; appended to `out` when given. */
  encode(text: string, out?: number[]): number[];
  decode(ids: number[]): string;
  /** UTF-8 bytes of one token: `decode` of a run of ids is the UTF-8 decoding of their bytes, concatenated. */
  byteLength(id: number): number;
}

const cache = new Map<string, TextTokenizer>();

export function getTokenizer(name: string): TextTokenizer {
  if (name !== 'cl100k_base') {
    throw new InputError(`unsupported tokenizer '${name}' (supported: cl100k_base)`, { place: 'chunking.tokenizer' });
  }
  let enc = cache.get(name);
  if (!enc) {
    enc = new BytePairEncoder(cl100k);
    cache.set(name, enc);
  }
  return enc;
}

export function countTokens(text: string, name = 'cl100k_base'): number {
  return getTokenizer(name).encode(text).length;
}
