/**
 * Where the store oracle's objects come from (`-S store`):
 * - `raw`: the raw history itself (built per episode by the source, not here);
 * - a run directory: the whole persisted store of the system that wrote it, through that system's
 *   `exportStore` capability (src/core/system.ts); a system without one is refused, naming it;
 * - a `.jsonl` file: an external system's exported store, one object a line:
 *   `{"episode": "conv-26", "text": "...", "source_turns": ["D1:3"], "date": "8 May 2023"}`
 *   (`source_turns`, `date`, `scope` optional; an object without `episode` belongs to every episode,
 *   which suits a single-conversation store).
 */
import { readRunManifest } from '../../run-files/record.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import type { StoreRecord } from '../../core/store-record.js';
import type { SystemDescriptor } from '../../core/system.js';
import { InputError, formatPath } from '../../util/errors.js';
import { sha256Hex } from '../../util/fsx.js';

export interface LoadedStore {
  /** How manifests and stats name the store: `raw`, the writing run's system, or `jsonl:<file>`. */
  label: string;
  /** Content digest (part of the source name, so an edited store never resumes an older run). */
  digest: string;
  /** Records by episode (`*` = every episode); null = the raw history. */
  byEpisode: Map<string, StoreRecord[]> | null;
  /** How many objects the store holds. */
  objects: number;
}

/** The key of objects that belong to every episode. */
export const EVERY_EPISODE = '*';

const JsonlRecord = z
  .object({
    episode: z.string().min(1).optional(),
    text: z.string(),
    source_turns: z.array(z.string()).optional(),
    date: z.string().nullable().optional(),
    scope: z.number().int().nonnegative().optional(),
    status: z.string().optional(),
    id: z.string().optional(),
  })
  .passthrough();

export function loadStore(store: string, systemOf: (runDir: string) => SystemDescriptor<unknown, unknown>): LoadedStore {
  if (store === 'raw') return { label: 'raw', digest: 'raw', byEpisode: null, objects: 0 };
  const path = resolve(store);
  if (!existsSync(path))
    throw new InputError('no such store (give raw, a run directory or a .jsonl file)', { file: store, place: '-S store' });
  let records: StoreRecord[];
  let label: string;
  if (statSync(path).isDirectory()) {
    const system = systemOf(path);
    if (!system.exportStore)
      throw new InputError(`system '${system.name}' exports no store (its descriptor has no exportStore)`, {
        file: join(path, 'manifest.json'),
      });
    records = system.exportStore(path);
    label = readRunManifest(path).manifest.system ?? system.name;
  } else {
    records = readJsonlStore(path);
    label = `jsonl:${basename(path)}`;
  }
  const byEpisode = new Map<string, StoreRecord[]>();
  for (const r of records) {
    const list = byEpisode.get(r.episode) ?? [];
    list.push(r);
    byEpisode.set(r.episode, list);
  }
  return { label, digest: sha256Hex(JSON.stringify(records)).slice(0, 10), byEpisode, objects: records.length };
}

function readJsonlStore(file: string): StoreRecord[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: StoreRecord[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const place = `line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new InputError(`not JSON: ${(e as Error).message}`, { file, place });
    }
    const parsed = JsonlRecord.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InputError(issue.message, { file, place: `${place}${issue.path.length ? ` (${formatPath(issue.path)})` : ''}` });
    }
    out.push({ ...parsed.data, episode: parsed.data.episode ?? EVERY_EPISODE });
  });
  if (out.length === 0) throw new InputError('the store is empty', { file });
  return out;
}
