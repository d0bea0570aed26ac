/**
 * Keys from a `.env` file in the working folder: each `NAME=value` line the environment does not
 * already set is added to it (the environment wins). The file is only read, never written, and its
 * values reach no file or log: the provider layer blanks every key variable it knows from messages.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/** Reads `<dir>/.env` into `env` (names it does not hold yet); returns the names added. */
export function loadDotEnv(dir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  let text: string;
  try {
    text = readFileSync(join(dir, '.env'), 'utf8');
  } catch {
    return [];
  }
  const added: string[] = [];
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    added.push(name);
  }
  return added;
}
