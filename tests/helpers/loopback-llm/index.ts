/**
 * Every responder module in this folder (types.ts says what one is), loaded in file-name order:
 * a library's module is added by dropping `<system>.ts` here, exporting `responder`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Responder } from './types.js';

export type { LlmAnswer, LlmRequest, Responder } from './types.js';

const NOT_RESPONDERS = new Set(['index.ts', 'types.ts', 'schema-json.ts', 'stop-words.ts']);

export async function loopbackResponders(): Promise<Responder[]> {
  const files = readdirSync(import.meta.dirname)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !NOT_RESPONDERS.has(f))
    .sort();
  const out: Responder[] = [];
  for (const f of files) {
    const mod = (await import(join(import.meta.dirname, f))) as { responder?: Responder; responders?: Responder[] };
    out.push(...(mod.responders ?? (mod.responder ? [mod.responder] : [])));
  }
  return out;
}
