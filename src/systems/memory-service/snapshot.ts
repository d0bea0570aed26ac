/**
 * The complete store a memory service holds for a run, as the store oracle reads it
 * (`--system store-oracle -S store=RUN_DIR`): when an owner's history is complete and searchable,
 * its memories are listed once and kept in `<run>/service-store.jsonl` (one line per owner and
 * listing: the final snapshot, as the paper defines the complete store). A service that cannot list
 * has no snapshot, and the oracle says so. A purged owner's snapshot no longer counts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { appendRecordsToFile } from '../../util/checked-write.js';
import { join } from 'node:path';
import type { StoreRecord } from '../../core/store-record.js';
import { InputError } from '../../util/errors.js';
import type { IngestLog } from './ingest-log.js';
import type { ServiceMemory } from './service.js';

export const SNAPSHOT_FILE = 'service-store.jsonl';

interface SnapshotLine {
  owner: string;
  episode: string;
  scope: number;
  at: string;
  memories: Array<{ id: string; text: string; date: string | null; source_turns: string[] }>;
}

export function appendSnapshot(
  runDir: string,
  owner: { owner: string; episode: string; scope: number },
  memories: ServiceMemory[],
  turnsOf: (m: ServiceMemory) => string[],
): void {
  const line: SnapshotLine = {
    ...owner,
    at: new Date().toISOString(),
    memories: memories.map((m) => ({ id: m.id, text: m.memory, date: m.date, source_turns: turnsOf(m) })),
  };
  appendRecordsToFile(join(runDir, SNAPSHOT_FILE), [JSON.stringify(line)]);
}

/** The store of the run's live owners (the last snapshot of each); an error when there is none. */
export function readSnapshots(runDir: string, log: IngestLog, system: string): StoreRecord[] {
  const path = join(runDir, SNAPSHOT_FILE);
  if (!existsSync(path))
    throw new InputError(
      `${system} kept no snapshot of its store in this run (it cannot list an owner's memories, or no owner is complete)`,
      {
        file: path,
      },
    );
  const last = new Map<string, SnapshotLine>();
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.forEach((text, i) => {
    if (text.trim() === '') return;
    try {
      const v = JSON.parse(text) as SnapshotLine;
      last.set(v.owner, v);
    } catch (e) {
      // A kill while appending tears only the last line: that owner's snapshot is taken again on resume.
      if (i < lines.length - 1) throw new InputError(`not JSON (${(e as Error).message})`, { file: path, place: `line ${i + 1}` });
    }
  });
  const live = new Set(log.liveOwners().map((s) => s.owner));
  const out: StoreRecord[] = [];
  for (const s of [...last.values()].filter((v) => live.has(v.owner)).sort((a, b) => (a.owner < b.owner ? -1 : 1)))
    for (const m of s.memories)
      out.push({ episode: s.episode, text: m.text, source_turns: m.source_turns, date: m.date, scope: s.scope, id: m.id });
  return out;
}
