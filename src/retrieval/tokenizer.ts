/**
 * The GPT-4 tokenizer (cl100k_base), offline: js-tiktoken ships the ranks in the package.
 * Loaded once per process; only the encoding we use is imported.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { InputError } from '../util/errors.js';

const cache = new Map<string, Tiktoken>();

export function getTokenizer(name: string): Tiktoken {
  if (name !== 'cl100k_base') {
    throw new InputError(`unsupported tokenizer '${name}' (supported: cl100k_base)`, { place: 'chunking.tokenizer' });
  }
  let enc = cache.get(name);
  if (!enc) {
    enc = new Tiktoken(cl100k);
    cache.set(name, enc);
  }
  return enc;
}

export function countTokens(text: string, name = 'cl100k_base'): number {
  return getTokenizer(name).encode(text).length;
}
