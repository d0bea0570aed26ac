/**
 * Official prompt texts live verbatim in configs/prompts/<name>.txt (sources in the SOURCE notes
 * beside them). Each file is read once per process, byte for byte.
 */
import { readFileSync } from 'node:fs';
import { fromRoot } from '../util/paths.js';

const cache = new Map<string, string>();

export function promptFile(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(fromRoot('configs', 'prompts', `${name}.txt`), 'utf8');
    cache.set(name, text);
  }
  return text;
}
